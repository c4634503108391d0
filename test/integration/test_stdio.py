"""Blocking I/O through stdio is visible (issue 15, item 3).

glibc's stdio reaches the kernel through libc-internal calls, past the
read/write wrappers; interpose/stdio.c records the stdio call itself when
it waited (a system call on a pipe or file, a network block on a socket)
and costs a peek at the FILE when the buffer alone serves it.

Sample program (test/programs):

  stdio_pipe.c  fwrite_main fwrite()s 1 MiB into a pipe drained after
                300 ms; fgets_main fgets() a line written after 300 ms;
                fprintf_main fprintf()s 256 KiB into a pipe drained after
                300 ms; getc_main getc()s a 4 MiB file (nothing to record);
                main prints 4000 lines through every writing function and
                checks errno, fmemopen (no descriptor) and a failed flush
                in fclose.

Built twice: plain (-O2) and fortified (-D_FORTIFY_SOURCE=2, as Debian
builds its programs: fprintf is __fprintf_chk).  For each, in both period
modes: output (stdout through a pipe: 4000 small writes) and exit status
equal the untraced run, both Go parsers accept the trace, `gotrace stat
-json` shows each waiting thread ~300 ms in a system call and ~0 running,
and the newest Go's `-pprof=syscall` has the wait under the stdio call's
caller.
"""
import json
import unittest

import gtlib
from gtlib import GO_NEW
from test_io import _IOProgram, format_samples, under

WAIT = (0.25, 1.5)  # seconds: the 300 ms waits, with room for a loaded machine
WAITERS = {"fwrite_main": "fwrite", "fgets_main": "fgets", "fprintf_main": "fprintf"}


class _StdioProgram(_IOProgram):
    PROGRAM = "stdio_pipe.c"
    EXTRA = ()
    PRINT = "fprintf"   # the leaf of fprintf_main's wait

    def binary(self):
        name = "stdio_pipe" + ("_fortified" if self.EXTRA else "")
        return self.cached(("bin",), lambda: gtlib.compile(self.PROGRAM, out=gtlib.os.path.join(
            gtlib.BIN_DIR, name), extra=self.EXTRA))

    def stat(self, period):
        run = self.checked(period)
        return run, self.cached(("stat", period), lambda: gtlib.stat_json(run.trace))

    def thread(self, period, fn):
        run, data = self.stat(period)
        where = "gotrace stat -json %s:\n%s" % (run.trace, json.dumps(data["threads"], indent=1)[:3000])
        return {t["function"]: t for t in data["threads"]["list"]}[fn], where

    def period_check_waits_in_stdio_are_system_calls(self, period):
        for fn in WAITERS:
            t, where = self.thread(period, fn)
            self.assertTrue(WAIT[0] <= t["syscall"] <= WAIT[1], "%s: %.3fs in a system call, want ~0.3 s\n%s"
                            % (fn, t["syscall"], where))
            self.assertLess(t["running"], 0.03, "%s runs while it waits in stdio\n%s" % (fn, where))

    def period_check_getc_from_the_buffer_records_nothing(self, period):
        t, where = self.thread(period, "getc_main")
        # 4 Mi getc calls, 1024 of them refill the buffer from the page
        # cache: a refill preempted on a busy machine may be recorded (up
        # to a tenth, as test_io's assert_records_nothing allows), a getc
        # served by the buffer never.
        self.assertLess(t["syscall"], 0.1, "getc_main's buffered reads\n%s" % where)
        run = self.checked(period)
        ev = self.events(period)
        g = self.goroutine_of(ev, "getc_main", run)
        begins = [e for e in ev if e.kind == "StateTransition" and e.goid == g
                  and e.transition in (("Running", "Waiting"), ("Running", "Syscall"))]
        self.assertLessEqual(len(begins), 1024 // 10, "getc_main: %d waits recorded for 4 Mi getc calls; %s"
                        % (len(begins), self.where(run)))

    def period_check_syscall_profile_under_the_callers(self, period):
        run = self.checked(period)
        samples = self.samples(period, "syscall", GO_NEW)
        for fn, leaf in dict(WAITERS, fprintf_main=self.PRINT).items():
            total, leaves = under(samples, fn)
            self.assertTrue(WAIT[0] <= total <= WAIT[1], "-pprof=syscall: %.3fs under %s, want ~0.3 s; %s\n%s"
                            % (total, fn, self.where(run), format_samples(samples)))
            # the wait is under its call; the thread's other calls (fclose's
            # flush) may be brief system calls on a loaded machine
            others = sum(sec for name, sec in leaves.items() if name != leaf)
            self.assertTrue(leaves.get(leaf, 0) >= WAIT[0] and others < 0.005,
                            "-pprof=syscall: the samples under %s should end in %s; %s\n%s"
                            % (fn, leaf, self.where(run), format_samples(samples)))


@gtlib.expand
class StdioTest(_StdioProgram, gtlib.TracedTestCase):
    pass


@gtlib.expand
class StdioFortifiedTest(_StdioProgram, gtlib.TracedTestCase):
    EXTRA = ("-D_FORTIFY_SOURCE=2",)
    PRINT = "__fprintf_chk"


if __name__ == "__main__":
    unittest.main()
