"""`make deb` and the Debian package (issue 18).

  * `make deb` builds build/gotrace_<VERSION>_<arch>.deb with debhelper and
    lintian finds no error in it (make deb fails otherwise);
  * `dpkg-deb -c` lists the command, the preload library in the multiarch
    directory, the header, gotrace.pc, the man page, bash completion, the
    copyright file; the package's version is VERSION's and its dependencies
    come from the shared libraries it links (dh_shlibdeps);
  * as root with apt (CI): `apt install ./gotrace_*.deb` gives a gotrace that
    traces `ls` from /usr/bin with no variable set, `man -w gotrace` finds
    the page, and `apt remove` leaves none of the package's files behind.
    Skipped when gotrace is installed already (a user's own package stays).
"""
import os
import re
import shutil
import subprocess
import unittest

import gtlib


def version():
    with open(os.path.join(gtlib.ROOT, "VERSION")) as f:
        return f.read().strip()


def sh(argv, timeout=600, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=timeout, **kw)


class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.arch = sh(["dpkg", "--print-architecture"]).stdout.strip()
        cls.deb = os.path.join(gtlib.BUILD, "gotrace_%s_%s.deb" % (version(), cls.arch))
        if os.path.exists(cls.deb):
            os.unlink(cls.deb)
        cls.make = sh(["make", "deb"], cwd=gtlib.ROOT, env=gtlib.clean_env(), timeout=900)

    def setUp(self):
        if self.make.returncode != 0:
            self.fail("make deb failed (exit %d):\n%s" % (self.make.returncode, self.make.stdout[-4000:]))

    def test_built_and_lintian_clean(self):
        self.assertTrue(os.path.isfile(self.deb), self.make.stdout[-2000:])
        m = re.search(r"lintian: (\d+) errors", self.make.stdout)
        self.assertIsNotNone(m, self.make.stdout[-2000:])
        self.assertEqual(m.group(1), "0")
        self.assertNotRegex(self.make.stdout, r"(?m)^E: ", "lintian errors:\n" + self.make.stdout[-2000:])

    def test_contents(self):
        listing = sh(["dpkg-deb", "-c", self.deb])
        self.assertEqual(listing.returncode, 0, listing.stdout)
        files = set(l.split()[-1].lstrip(".") for l in listing.stdout.splitlines() if l.startswith("-"))
        triplet = sh(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip()
        want = {
            "/usr/bin/gotrace",
            "/usr/lib/%s/gotrace/libgotrace.so" % triplet,
            "/usr/lib/%s/pkgconfig/gotrace.pc" % triplet,
            "/usr/include/gotrace.h",
            "/usr/share/man/man1/gotrace.1.gz",
            "/usr/share/bash-completion/completions/gotrace",
            "/usr/share/doc/gotrace/copyright",
        }
        self.assertEqual(want - files, set(), "missing from the package; it holds:\n" + listing.stdout)
        self.assertEqual([f for f in files if not f.startswith("/usr/")], [])

    def test_control_fields(self):
        info = sh(["dpkg-deb", "-f", self.deb, "Package", "Version", "Architecture", "Depends"])
        self.assertIn("Version: %s\n" % version(), info.stdout)
        self.assertIn("Architecture: %s\n" % self.arch, info.stdout)
        depends = re.search(r"(?m)^Depends: (.*)$", info.stdout).group(1)
        for lib in ("libc6", "libdw1", "libelf1"):
            self.assertIn(lib, depends, "dependencies come from the linked libraries: " + depends)

    def test_install_use_remove(self):
        if os.geteuid() != 0 or not shutil.which("apt-get"):
            self.skipTest("installing the package needs root and apt (CI has both)")
        state = sh(["dpkg-query", "-W", "-f=${Status}", "gotrace"])
        if "ok installed" in state.stdout:
            self.skipTest("a gotrace package is installed on this machine already; left alone")
        env = gtlib.clean_env()
        env["DEBIAN_FRONTEND"] = "noninteractive"
        inst = sh(["apt-get", "install", "-y", "--no-install-recommends", self.deb], env=env)
        self.assertEqual(inst.returncode, 0, inst.stdout[-3000:])
        try:
            files = sh(["dpkg", "-L", "gotrace"]).stdout.split()
            trace = gtlib.trace_path("package-ls")
            run = sh(["/usr/bin/gotrace", "run", "-o", trace, "--", "ls", "/"], env=gtlib.clean_env(),
                     timeout=120)
            self.assertEqual(run.returncode, 0, run.stdout)
            self.assertIn("gotrace: trace written to %s" % trace, run.stdout)
            gtlib.validate(trace)
            gtlib.discard(trace)
            man = sh(["man", "-w", "gotrace"])
            self.assertEqual(man.returncode, 0, man.stdout)
            self.assertTrue(man.stdout.strip().endswith("/man1/gotrace.1.gz"), man.stdout)
        finally:
            rm = sh(["apt-get", "remove", "-y", "gotrace"], env=env)
        self.assertEqual(rm.returncode, 0, rm.stdout[-3000:])
        left = [f for f in files if os.path.exists(f) and not os.path.isdir(f)]
        self.assertEqual(left, [], "apt remove left these behind")
        gone = [f for f in files if os.path.isdir(f) and "gotrace" in os.path.basename(f)]
        self.assertEqual(gone, [], "apt remove left these directories behind")


if __name__ == "__main__":
    unittest.main()
