"""`make install` and the installed gotrace (issue 18).

A copy of the source tree with its build (build/ as `make` left it, without
the integration tests' files) installs under DESTDIR with PREFIX=/usr; the
copy is then deleted, so what follows runs from the installed tree alone:

  * the files a user and a build system need: bin/gotrace, the preload library
    in Debian's multiarch directory (lib/<triplet>/gotrace/), include/gotrace.h,
    lib/<triplet>/pkgconfig/gotrace.pc, the man page (with VERSION in its
    title line), bash completion;
  * the installed gotrace finds the installed library by itself (no variable):
    `gotrace help` names it, `gotrace run` preloads it, and a threaded program
    traced through it writes a trace both Go parsers accept;
  * `pkg-config --cflags gotrace` is all an annotated program needs to build
    (the header's functions are weak: nothing to link); it runs untraced as
    it is, and traced its tasks and regions are in the trace;
  * the bash completion completes commands and GOTRACE_* variables.
Nothing outside the temporary directories is written or deleted.
"""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

import gtlib

PREFIX = "/usr"
MAN_SOURCE = os.path.join(gtlib.ROOT, "docs", "gotrace.1")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def multiarch():
    p = subprocess.run([gtlib.CC, "-print-multiarch"], stdout=subprocess.PIPE, universal_newlines=True)
    return p.stdout.strip()


def version():
    with open(os.path.join(gtlib.ROOT, "VERSION")) as f:
        return f.read().strip()


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # No ':' or ' ' in the path: LD_PRELOAD could not carry the library's.
        cls.tmp = tempfile.mkdtemp(prefix="gotrace-install-")
        cls.destdir = os.path.join(cls.tmp, "dest")
        cls.root = cls.destdir + PREFIX
        triplet = multiarch()
        cls.libdir = os.path.join(cls.root, "lib", triplet) if triplet else os.path.join(cls.root, "lib")
        cls.bin = os.path.join(cls.root, "bin", "gotrace")
        cls.lib = os.path.join(cls.libdir, "gotrace", "libgotrace.so")
        cls.make = None
        src = os.path.join(cls.tmp, "src")
        try:
            # The tree as a user has it after `make`: sources and build/ (the
            # objects keep their times, so install only copies).
            shutil.copytree(gtlib.ROOT, src, symlinks=True,
                            ignore=shutil.ignore_patterns(".git", "integration", "deb", "*.trace"))
            cls.make = subprocess.run(["make", "install", "PREFIX=" + PREFIX, "DESTDIR=" + cls.destdir],
                                      cwd=src, env=gtlib.clean_env(), stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, timeout=900)
        except Exception:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise
        finally:
            # From here on only the installed tree exists.
            shutil.rmtree(src, ignore_errors=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        out = self.make.stdout.decode("utf-8", "replace")
        if self.make.returncode != 0:
            self.fail("make install PREFIX=%s DESTDIR=%s failed (exit %d):\n%s"
                      % (PREFIX, self.destdir, self.make.returncode, gtlib.head(out, 30)))

    def installed(self, *args, env=None, timeout=60):
        """Run the installed gotrace by its own path, from a neutral directory."""
        return subprocess.run([self.bin] + list(args), env=env or gtlib.clean_env(), cwd=self.tmp,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)

    def listing(self):
        return sorted(os.path.relpath(os.path.join(d, f), self.destdir)
                      for d, _, fs in os.walk(self.destdir) for f in fs)

    def assert_file(self, path, mode):
        self.assertTrue(os.path.isfile(path), "make install did not install %s (files under DESTDIR: %s)"
                        % (path, self.listing()))
        got = stat.S_IMODE(os.stat(path).st_mode)
        self.assertEqual(got, mode, "%s has mode %o, want %o" % (path, got, mode))

    # -- what is installed ----------------------------------------------------

    def test_command_and_library(self):
        self.assert_file(self.bin, 0o755)
        self.assert_file(self.lib, 0o644)
        self.assertEqual(read(self.bin), read(gtlib.GOTRACE))
        self.assertEqual(read(self.lib), read(gtlib.LIB))

    def test_header_pkgconfig_completion(self):
        self.assert_file(os.path.join(self.root, "include", "gotrace.h"), 0o644)
        self.assertEqual(read(os.path.join(self.root, "include", "gotrace.h")),
                         read(os.path.join(gtlib.ROOT, "include", "gotrace.h")))
        pc = os.path.join(self.libdir, "pkgconfig", "gotrace.pc")
        self.assert_file(pc, 0o644)
        text = read(pc).decode()
        self.assertIn("Version: %s\n" % version(), text)
        self.assertIn("prefix=/usr\n", text)
        self.assertRegex(text, r"(?m)^Libs:\s*$", "nothing to link: the API's functions are weak")
        self.assert_file(os.path.join(self.root, "share", "bash-completion", "completions", "gotrace"), 0o644)

    def test_man_page_carries_the_version(self):
        man = os.path.join(self.root, "share", "man", "man1", "gotrace.1")
        self.assert_file(man, 0o644)
        lines = read(man).decode().splitlines()
        src = read(MAN_SOURCE).decode().splitlines()
        th = [l for l in lines if l.startswith(".TH ")]
        self.assertEqual(len(th), 1)
        self.assertIn('"gotrace %s"' % version(), th[0])
        self.assertEqual([l for l in lines if not l.startswith(".TH ")],
                         [l for l in src if not l.startswith(".TH ")])

    # -- the installed command finds the installed library ------------------------

    def test_help_names_the_installed_library(self):
        res = self.installed("help")
        out = res.stdout.decode("utf-8", "replace")
        self.assertEqual(res.returncode, 0, res.stderr.decode("utf-8", "replace"))
        lines = [l for l in out.splitlines() if l.startswith("library:")]
        self.assertEqual(lines, ["library: " + os.path.realpath(self.lib)],
                         "`%s help` should name the installed library:\n%s" % (self.bin, gtlib.head(out, 30)))
        res = self.installed("--version")
        self.assertEqual(res.stdout.decode(), "gotrace %s\n" % version())

    def test_run_preloads_the_installed_library(self):
        trace = gtlib.trace_path("install-preload")
        res = self.installed("run", "-q", "-o", trace, "--", "sh", "-c", 'printf "%s\\n" "$LD_PRELOAD"')
        err = res.stderr.decode("utf-8", "replace")
        self.assertEqual(res.returncode, 0, err)
        self.assertEqual(res.stdout.decode().split(), [os.path.realpath(self.lib)],
                         "LD_PRELOAD seen by the program run through %s; stderr:\n%s" % (self.bin, err))
        self.assertEqual(err, "", "gotrace run -q should be silent")
        gtlib.discard(trace)

    def test_run_writes_a_valid_trace(self):
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

    # -- a program built against the installed header -------------------------------

    def test_annotated_program_builds_with_pkg_config_only(self):
        env = gtlib.clean_env()
        env["PKG_CONFIG_PATH"] = os.path.join(self.libdir, "pkgconfig")
        env["PKG_CONFIG_SYSROOT_DIR"] = self.destdir
        cflags = subprocess.run(["pkg-config", "--cflags", "gotrace"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(cflags.returncode, 0, cflags.stderr)
        self.assertEqual(cflags.stdout.split(), ["-I" + os.path.join(self.root, "include")])
        libs = subprocess.run(["pkg-config", "--libs", "gotrace"], env=env, stdout=subprocess.PIPE,
                              universal_newlines=True)
        self.assertEqual(libs.stdout.strip(), "")
        # The example as a user writes it: <gotrace.h>, found through pkg-config.
        with open(os.path.join(gtlib.ROOT, "examples", "annotated.c")) as f:
            code = f.read().replace('#include "../include/gotrace.h"', "#include <gotrace.h>")
        src = os.path.join(self.tmp, "annotated_user.c")
        exe = os.path.join(self.tmp, "annotated_user")
        with open(src, "w") as f:
            f.write(code)
        cc = subprocess.run([gtlib.CC, "-O2", "-pthread", "-Wall", "-Werror"] + cflags.stdout.split()
                            + ["-o", exe, src], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)
        self.assertEqual(cc.returncode, 0, cc.stdout)
        plain = gtlib.run_plain([exe])
        self.assertEqual((plain.returncode, plain.stdout), (0, "served 60 requests\n"))
        trace = gtlib.trace_path("install-annotated")
        res = self.installed("run", "-q", "-o", trace, "--", exe, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stdout.decode(), plain.stdout)
        gtlib.validate(trace)
        text = gtlib.parsed_text(trace)
        self.assertEqual(sum(1 for l in text.splitlines() if " TaskBegin " in l), 60)
        self.assertEqual(sum(1 for l in text.splitlines() if " RegionBegin " in l), 180)
        gtlib.discard(trace)

    # -- bash completion -----------------------------------------------------

    def complete(self, *words):
        bc = "/usr/share/bash-completion/bash_completion"
        if not os.path.exists(bc):
            self.fail("%s is missing: make deps installs bash-completion" % bc)
        comp = os.path.join(self.root, "share", "bash-completion", "completions", "gotrace")
        words = ["gotrace"] + list(words)
        script = ("source %s; source %s; PATH=%s:$PATH; COMP_WORDS=(%s); COMP_CWORD=%d; "
                  "COMP_LINE='%s'; COMP_POINT=${#COMP_LINE}; _gotrace gotrace '%s' '%s'; "
                  "printf '%%s\\n' \"${COMPREPLY[@]}\""
                  % (bc, comp, os.path.dirname(self.bin), " ".join("'%s'" % w for w in words),
                     len(words) - 1, " ".join(words), words[-1], words[-2]))
        p = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=gtlib.clean_env(), cwd=self.tmp, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        return sorted(p.stdout.split())

    def test_completion_of_commands_and_variables(self):
        self.assertEqual(self.complete("v"), ["view"])
        self.assertIn("heap", self.complete(""))
        self.assertEqual(self.complete("help", "GOTRACE_PER"), ["GOTRACE_PERIOD"])
        self.assertEqual(self.complete("run", "-f", ""), ["23", "26"])
        self.assertIn("--view", self.complete("run", "--v"))
        self.assertEqual(self.complete("view", "-pprof=s"),
                         ["-pprof=sched", "-pprof=sync", "-pprof=syscall"])
        res = self.installed("help", "GOTRACE_PERIOD")
        self.assertEqual(res.returncode, 0)
        self.assertTrue(res.stdout.decode().startswith("GOTRACE_PERIOD\n"), res.stdout)


if __name__ == "__main__":
    unittest.main()
