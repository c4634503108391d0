"""Raw futex waits through libc's syscall() (issue 15, item 1).

Sample program (test/programs):

  futex_wait.c  waiter_main waits in syscall(SYS_futex, FUTEX_WAIT_PRIVATE)
                until main's wake_it wakes it 300 ms later (FUTEX_WAKE_PRIVATE);
                timed_main's FUTEX_WAIT_BITSET times out after 300 ms
                (-1 ETIMEDOUT); mismatch_main makes 1000 waits on a value the
                word does not hold (-1 EAGAIN at once); main checks that
                getpid, gettid, a bad number (ENOSYS), read/write of a pipe, a
                bad descriptor (EBADF), a bad address (EFAULT), a wake nobody
                waits on and FUTEX_WAKE_OP (six arguments) return as untraced.

In both period modes: output and exit status equal the untraced run (the
program checks every return value and errno), both Go parsers accept the
trace; each 300 ms wait is a GoBlock("sync.futex") under `syscall` called
from its thread (>= 250 ms blocked, < 20 ms running, in the parsed events and
in `gotrace stat -json`); `go tool trace -pprof=sync` holds ~300 ms under each
waiting call site; the woken wait's wake-up carries the waker's site
(`syscall <- wake_it`, in the newest Go's -pprof=sched); the EAGAIN calls
record (almost) nothing; no futex wait is a system call.
"""
import json
import unittest

import gtlib
from gtlib import GO_NEW
from test_io import _IOProgram, _NoKernelWaitProfiles, format_samples, syscalls, under, wait_durations

WAITERS = ("waiter_main", "timed_main")


@gtlib.expand
class FutexTest(_NoKernelWaitProfiles, _IOProgram, gtlib.TracedTestCase):
    PROGRAM = "futex_wait.c"

    def period_check_futex_waits_are_sync_futex_blocks(self, period):
        run = self.checked(period)
        ev = self.events(period)
        for fn in WAITERS:
            g = self.goroutine_of(ev, fn, run)
            d = wait_durations(ev, g, "sync.futex", "syscall")
            self.assertTrue(d and 0.25 <= max(d) <= 0.6,
                            "%s (G%d): sync.futex blocks under syscall lasted %s s, want one of ~0.3 s; %s"
                            % (fn, g, d, self.where(run)))
            self.assertEqual(syscalls(ev, g), [], "%s: a futex wait is not a system call" % fn)

    def period_check_stat_json_shows_them_blocked(self, period):
        run = self.checked(period)
        data = self.stat(period)
        threads = {t["function"]: t for t in data["threads"]["list"]}
        where = "gotrace stat -json %s:\n%s" % (run.trace, json.dumps(data["threads"], indent=1)[:3000])
        for fn in WAITERS:
            t = threads[fn]
            self.assertTrue(0.25 <= t["blocked"].get("sync.futex", 0) <= 0.6, "%s\n%s" % (fn, where))
            self.assertLess(t["running"], 0.02, "%s runs while it waits on a futex\n%s" % (fn, where))
            self.assertEqual(t["syscall"], 0.0, where)
        # 1000 value mismatches return at once: a busy machine may hold a
        # few of them 10 us, never most of them
        self.assertLess(threads["mismatch_main"]["blocked"].get("sync.futex", 0), 0.05, where)

    def period_check_sync_profile(self, period):
        run = self.checked(period)
        samples = self.samples(period, "sync", GO_NEW)
        for fn in WAITERS:
            total, leaves = under(samples, fn)
            # (the start barrier's short wait is under fn too)
            self.assertTrue(0.25 <= leaves.get("syscall", 0) <= 0.6 and set(leaves) <= {"syscall", "pthread_barrier_wait"},
                            "-pprof=sync: %.3f s under %s, leaves %s; %s\n%s"
                            % (total, fn, leaves, self.where(run), format_samples(samples)))

    def period_check_wake_up_names_the_waker(self, period):
        """The waiter's GoUnblock carries the FUTEX_WAKE's site, so the newest
        Go's scheduler-latency profile blames `syscall <- wake_it`. (Not Go
        1.23, as for mutexes: test_threads.py.)"""
        run = self.checked(period)
        ev = self.events(period)
        g = self.goroutine_of(ev, "waiter_main", run)
        ups = [e for e in ev if e.kind == "StateTransition" and e.goid == g
               and e.transition == ("Waiting", "Runnable") and e.stack[:2] == ["syscall", "wake_it"]]
        self.assertEqual(len(ups), 1, "one wake-up of waiter_main by syscall <- wake_it; %s" % self.where(run))
        prof = gtlib.pprof_top(run.trace, "sched", GO_NEW)
        self.assertIn("wake_it", prof, "-pprof=sched should name the waker; %s; profile:\n%s"
                      % (self.where(run), gtlib.format_profile(prof)))


if __name__ == "__main__":
    unittest.main()
