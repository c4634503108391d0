"""`make install PREFIX=/usr DESTDIR=<tmp>` and the installed gotrace.

  * make install (run from the repository root; it only copies when the build
    is up to date) puts bin/gotrace and lib/gotrace/libgotrace.so under
    DESTDIR/usr, executable and identical to build/'s;
  * the installed gotrace, run by its own path, finds the installed library
    (tools/locate.c: next to itself, then ../lib/gotrace/): `gotrace help`
    names it, `gotrace run` puts it in the program's LD_PRELOAD, and a small
    threaded program traced through it writes a trace both Go parsers accept;
  * when the Makefile installs the man page (it mentions gotrace.1),
    share/man/man1/gotrace.1 is installed too, as docs/gotrace.1.
"""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

import gtlib

PREFIX = "/usr"
MAKEFILE = os.path.join(gtlib.ROOT, "Makefile")
MAN_SOURCE = os.path.join(gtlib.ROOT, "docs", "gotrace.1")


def read(path):
    with open(path, "rb") as f:
        return f.read()


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # No ':' or ' ' in the path: LD_PRELOAD could not carry the library's.
        cls.destdir = tempfile.mkdtemp(prefix="gotrace-install-")
        cls.root = cls.destdir + PREFIX
        cls.bin = os.path.join(cls.root, "bin", "gotrace")
        cls.lib = os.path.join(cls.root, "lib", "gotrace", "libgotrace.so")
        cls.make = None
        try:
            cls.make = subprocess.run(["make", "install", "PREFIX=" + PREFIX, "DESTDIR=" + cls.destdir],
                                      cwd=gtlib.ROOT, env=gtlib.clean_env(), stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, timeout=600)
        except Exception:
            shutil.rmtree(cls.destdir, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.destdir, ignore_errors=True)

    def setUp(self):
        out = self.make.stdout.decode("utf-8", "replace")
        if self.make.returncode != 0:
            self.fail("make install PREFIX=%s DESTDIR=%s failed (exit %d):\n%s"
                      % (PREFIX, self.destdir, self.make.returncode, gtlib.head(out, 30)))

    def installed(self, *args, env=None, timeout=60):
        """Run the installed gotrace by its own path, from a neutral directory."""
        return subprocess.run([self.bin] + list(args), env=env or gtlib.clean_env(), cwd=self.destdir,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)

    def assert_installed_copy(self, path, source):
        self.assertTrue(os.path.isfile(path), "make install did not install %s (files under DESTDIR: %s)"
                        % (path, self.listing()))
        mode = stat.S_IMODE(os.stat(path).st_mode)
        self.assertEqual(mode & 0o755, 0o755, "%s has mode %o, want 755" % (path, mode))
        self.assertEqual(read(path), read(source), "%s differs from %s" % (path, source))

    def listing(self):
        return sorted(os.path.relpath(os.path.join(d, f), self.destdir)
                      for d, _, fs in os.walk(self.destdir) for f in fs)

    # -- what is installed ----------------------------------------------------

    def test_install_puts_command_and_library_under_destdir(self):
        self.assert_installed_copy(self.bin, gtlib.GOTRACE)
        self.assert_installed_copy(self.lib, gtlib.LIB)

    def test_install_man_page_when_the_makefile_installs_it(self):
        if "gotrace.1" not in read(MAKEFILE).decode("utf-8", "replace"):
            self.skipTest("the Makefile does not install the man page (no gotrace.1 in it)")
        man = os.path.join(self.root, "share", "man", "man1", "gotrace.1")
        self.assertTrue(os.path.isfile(man), "make install did not install %s (files under DESTDIR: %s)"
                        % (man, self.listing()))
        self.assertEqual(read(man), read(MAN_SOURCE), "%s differs from %s" % (man, MAN_SOURCE))

    # -- the installed command finds the installed library ------------------------

    def test_installed_help_names_the_installed_library(self):
        res = self.installed("help")
        out = res.stdout.decode("utf-8", "replace")
        self.assertEqual(res.returncode, 0, res.stderr.decode("utf-8", "replace"))
        lines = [l for l in out.splitlines() if l.startswith("library:")]
        self.assertEqual(lines, ["library: " + os.path.realpath(self.lib)],
                         "`%s help` should name the installed library:\n%s" % (self.bin, gtlib.head(out, 30)))

    def test_installed_run_preloads_the_installed_library(self):
        trace = gtlib.trace_path("install-preload")
        res = self.installed("run", "-q", "-o", trace, "--", "sh", "-c", 'printf "%s\\n" "$LD_PRELOAD"')
        err = res.stderr.decode("utf-8", "replace")
        self.assertEqual(res.returncode, 0, err)
        self.assertEqual(res.stdout.decode().split(), [os.path.realpath(self.lib)],
                         "LD_PRELOAD seen by the program run through %s; stderr:\n%s" % (self.bin, err))
        self.assertEqual(err, "", "gotrace run -q should be silent")
        gtlib.discard(trace)

    def test_installed_run_writes_a_valid_trace(self):
        problem = gtlib.go_problem()
        if problem:
            self.fail(problem)
        binary = gtlib.compile("mutex_wait.c")
        plain = gtlib.run_plain([binary])
        trace = gtlib.trace_path("install-mutex_wait")
        if os.path.exists(trace):
            os.unlink(trace)
        res = self.installed("run", "-q", "-o", trace, "--", binary)
        err = res.stderr.decode("utf-8", "replace")
        self.assertEqual(res.returncode, 0, err)
        self.assertEqual(res.stdout.decode("utf-8", "replace"), plain.stdout, err)
        self.assertEqual(err, "", "gotrace run -q should be silent")
        gtlib.validate(trace)
        created = gtlib.goroutine_creations(gtlib.parsed_events(trace))
        starts = [e.tstack[-1] for e in created.values() if e.tstack]
        self.assertIn("waiter_main", starts, "the trace %s should show waiter_main's thread; created: %s"
                      % (trace, list(created.values())))
        gtlib.discard(trace)


if __name__ == "__main__":
    unittest.main()
