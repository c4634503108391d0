"""Calls through PLT stubs are named right, and a PC in a function stripped
of its symbol takes no other function's name (issue 15, item 4).

test/programs/plt_start.c is built without PIE, so the address of
plt_worker (a function of libpltstart.so, from plt_start_lib.c) that it
passes to pthread_create is its PLT stub, which the executable's symbol
table names after the preceding symbol: `_init` before. plt_worker sleeps in
hidden_wait, whose symbol and DWARF are stripped: `frame_dummy` (the
preceding, sizeless symbol) before. Traced in the default period and a 5 ms
one; both Go parsers accept the trace, and:

  * the thread's start function is `plt_worker@plt` (`gotrace stat -json`,
    the Go parser's goroutine creation);
  * the sleep's stack is usleep <- libpltstart.so+0x… <- plt_worker.
"""
import os
import re
import subprocess
import unittest

import gtlib


@gtlib.expand
class PltNamesTest(gtlib.TracedTestCase):

    def build(self):
        def go():
            lib = gtlib.compile("plt_start_lib", out=os.path.join(gtlib.BIN_DIR, "libpltstart.so"),
                                extra=("-shared", "-fPIC"))
            stripped = os.path.join(gtlib.BIN_DIR, "stripped", "libpltstart.so")
            os.makedirs(os.path.dirname(stripped), exist_ok=True)
            p = subprocess.run(["objcopy", "--strip-debug", "--strip-symbol=hidden_wait", lib, stripped],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            d = os.path.dirname(stripped)
            binary = gtlib.compile("plt_start", extra=("-fno-pie", "-no-pie", "-Wl,--no-as-needed",
                                                       stripped, "-Wl,-rpath," + d))
            return binary
        return self.cached("build", go)

    def run_once(self, period):
        def go():
            self.require_tools()
            binary = self.build()
            run = gtlib.run_traced([binary], gtlib.trace_path("plt_start", period), period=period,
                                   timeout=30)
            self.assertEqual((run.returncode, run.stdout), (0, "result 2\n"), run.describe())
            gtlib.validate(run.trace)
            return run
        return self.cached(("run", period), go)

    def period_check_plt_start_routine_is_target_at_plt(self, period):
        run = self.run_once(period)
        funcs = sorted(t["function"] for t in gtlib.stat_json(run.trace)["threads"]["list"])
        self.assertEqual(funcs, ["main", "plt_worker@plt"], "gotrace stat -json %s" % run.trace)
        starts = [e.tstack[-1] for e in gtlib.goroutine_creations(gtlib.parsed_events(run.trace)).values()]
        self.assertEqual(starts, ["plt_worker@plt"], "trace %s" % run.trace)

    def period_check_stripped_function_takes_no_other_name(self, period):
        run = self.run_once(period)
        stacks = {tuple(e.stack) for e in gtlib.parsed_events(run.trace)
                  if e.stack and e.stack[0] == "usleep"}
        where = "trace %s: %s" % (run.trace, stacks)
        self.assertTrue(stacks, where)
        for s in stacks:
            self.assertEqual(len(s), 3, where)
            self.assertRegex(s[1], r"^libpltstart\.so\+0x[0-9a-f]+$", where)
            self.assertEqual(s[2], "plt_worker", where)


if __name__ == "__main__":
    unittest.main()
