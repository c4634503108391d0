"""Frames in a library that was dlclose'd before its generation was written
keep their names (issue 15, item 4).

test/programs/dlgone.c opens three builds of dlgone_lib.c one after the
other and waits 30 ms for a mutex inside each (pthread_mutex_lock <-
dlgone_<v>_inner <- dlgone_<v>_wait <- call_in <- main): a is closed before
b is opened (8 and 2 MiB long, so b usually lands inside a's old range),
b stays open, c is closed and its file deleted. In the default period every
stack is written at exit, after a and c were unloaded; in a 5 ms one most
are written while the library is still there. Both Go parsers accept the
trace, and the newest one's stacks (`-d=parsed`) and `-pprof=sync` show:

  * a's and b's waits under their own functions, never under the other's
    (b reusing a's addresses must not rename a's frames, nor a's file b's);
  * c's wait under its functions if named before its file went, else as
    `dlgone-c-….so+0x…` (its offset in the file), never a bare address;
  * no frame anywhere named by a bare address.
"""
import os
import re
import shutil
import tempfile
import unittest

import gtlib

HEX = re.compile(r"^0x[0-9a-f]+$")


@gtlib.expand
class DlcloseNamesTest(gtlib.TracedTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.dir = tempfile.mkdtemp(prefix="gotrace-dlgone-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def libs(self):
        def go():
            flags = {"a": ("-DDLGONE_BIG=8",), "b": ("-DDLGONE_BIG=2", "-DDLGONE_PAD"), "c": ()}
            return {v: gtlib.compile("dlgone_lib", out=os.path.join(gtlib.BIN_DIR, "libdlgone_%s.so" % v),
                                     extra=("-shared", "-fPIC", "-DDLGONE_VARIANT=" + v) + flags[v])
                    for v in "abc"}
        return self.cached("libs", go)

    def run_once(self, period):
        def go():
            self.require_tools()
            libs = self.libs()
            binary = gtlib.compile("dlgone", extra=("-ldl",))
            c = os.path.join(self.dir, "dlgone-c-%s.so" % gtlib.period_tag(period))
            shutil.copy(libs["c"], c)  # deleted by the program
            run = gtlib.run_traced([binary, libs["a"], libs["b"], c],
                                   gtlib.trace_path("dlgone", period), period=period, timeout=30)
            self.assertEqual(run.returncode, 0, run.describe())
            self.assertIn("done", run.stdout, run.describe())
            gtlib.validate(run.trace)
            return run
        return self.cached(("run", period), go)

    def lib_stacks(self, run):
        """The distinct stacks of waits called from call_in, leaf first."""
        return {tuple(e.stack) for e in gtlib.parsed_events(run.trace)
                if e.stack and "call_in" in e.stack and e.stack[0] == "pthread_mutex_lock"}

    def period_check_waits_name_their_own_library(self, period):
        run = self.run_once(period)
        stacks = self.lib_stacks(run)
        where = "trace %s, %s; stacks:\n%s" % (run.trace, run.stdout.strip(),
                                               "\n".join(" <- ".join(s) for s in sorted(stacks)))
        for v in "ab":
            want = ("pthread_mutex_lock", "dlgone_%s_inner" % v, "dlgone_%s_wait" % v, "call_in", "main")
            self.assertIn(want, stacks, where)
        c_named = ("pthread_mutex_lock", "dlgone_c_inner", "dlgone_c_wait", "call_in", "main")
        c_offsets = [s for s in stacks if len(s) == 5 and s[1].startswith("dlgone-c-")
                     and re.match(r"^dlgone-c-\w+\.so\+0x[0-9a-f]+$", s[1])
                     and re.match(r"^dlgone-c-\w+\.so\+0x[0-9a-f]+$", s[2])]
        self.assertTrue(c_named in stacks or c_offsets, where)
        for s in stacks:
            self.assertEqual(s[-2:], ("call_in", "main"), where)
            lib = {f.split("_")[1] for f in s[1:3] if f.startswith("dlgone_")}
            self.assertLessEqual(len(lib), 1, "frames of two libraries in one stack: " + where)
            self.assertNotIn("dlgone_b_pad", s, where)

    def period_check_no_frame_is_a_bare_address(self, period):
        run = self.run_once(period)
        bare = {f for e in gtlib.parsed_events(run.trace) for f in e.stack + e.tstack if HEX.match(f)}
        self.assertEqual(bare, set(), "trace %s" % run.trace)

    def period_check_sync_profile_names_the_library_functions(self, period):
        run = self.run_once(period)
        prof = gtlib.pprof_top(run.trace, "sync")
        where = "trace %s; -pprof=sync:\n%s" % (run.trace, gtlib.format_profile(prof, 20))
        for v in "ab":
            self.assertGreaterEqual(prof.get("dlgone_%s_inner" % v, (0, 0))[1], 0.02, where)
        self.assertFalse([f for f in prof if HEX.match(f)], where)

    def test_b_usually_reuses_a_range(self):
        """Not a requirement, a note: the reuse case is exercised when b's
        code lies inside a's old range (printed by the program)."""
        run = self.run_once(None)
        if "inside a's old range: yes" not in run.stdout:
            self.skipTest("b was not loaded inside a's old range this time: %s" % run.stdout.strip())


if __name__ == "__main__":
    unittest.main()
