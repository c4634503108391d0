"""Signal waits and descriptor-less readiness waits (issue 15, items 9 and 2).

Sample program (test/programs):

  signal_waits.c  five threads wait 300 ms for a signal, each in one call:
                  sigwait (woken by pthread_kill), sigwaitinfo (kill to the
                  process), pause and sigsuspend (a handler runs; -1 EINTR),
                  sigtimedwait (times out; -1 EAGAIN); then main sleeps with
                  select(0, NULL, NULL, NULL, 200 ms) and poll(NULL, 0, 200).

In both period modes: output and exit status equal the untraced run, both Go
parsers accept the trace; each signal wait is a GoBlock("sync.signal") of
~300 ms under its call (>= 250 ms blocked, < 20 ms running for the thread,
in the parsed events and in `gotrace stat -json`), `go tool trace
-pprof=sync` holds ~300 ms under each call, the syscall and network
profiles none of them; select/poll without descriptors are "sleep" blocks
of ~200 ms, not system calls or network waits.
"""
import json
import unittest

import gtlib
from gtlib import GO_NEW
from test_io import _IOProgram, _NoKernelWaitProfiles, format_samples, syscalls, under, wait_durations

WAITS = (("sigwait_main", "sigwait"), ("sigwaitinfo_main", "sigwaitinfo"), ("pause_main", "pause"),
         ("sigsuspend_main", "sigsuspend"), ("sigtimedwait_main", "sigtimedwait"))



@gtlib.expand
class SignalWaitsTest(_NoKernelWaitProfiles, _IOProgram, gtlib.TracedTestCase):
    PROGRAM = "signal_waits.c"

    def period_check_signal_waits_are_sync_signal_blocks(self, period):
        run = self.checked(period)
        ev = self.events(period)
        for fn, call in WAITS:
            g = self.goroutine_of(ev, fn, run)
            d = wait_durations(ev, g, "sync.signal", call)
            self.assertTrue(d and 0.25 <= max(d) <= 0.6,
                            "%s (G%d): sync.signal blocks in %s lasted %s s, want one of ~0.3 s; %s"
                            % (fn, g, call, d, self.where(run)))
            self.assertEqual([e for e in syscalls(ev, g)], [], "%s: a signal wait is not a system call" % fn)

    def period_check_stat_json_shows_them_blocked(self, period):
        run = self.checked(period)
        data = self.stat(period)
        threads = {t["function"]: t for t in data["threads"]["list"]}
        where = "gotrace stat -json %s:\n%s" % (run.trace, json.dumps(data["threads"], indent=1)[:3000])
        for fn, call in WAITS:
            t = threads[fn]
            self.assertTrue(0.25 <= t["blocked"].get("sync.signal", 0) <= 0.6, "%s\n%s" % (fn, where))
            self.assertLess(t["running"], 0.02, "%s runs while it waits for a signal\n%s" % (fn, where))
            self.assertEqual(t["syscall"], 0.0, where)
        main = threads["main"]
        # nanosleep 300 ms + select 200 ms + poll 200 ms
        self.assertTrue(0.65 <= main["sleep"] <= 1.2, "main's sleep %.3f s\n%s" % (main["sleep"], where))
        self.assertEqual(main["syscall"], 0.0, where)
        self.assertLess(main["running"], 0.05, where)

    def period_check_select_and_poll_without_descriptors_are_sleeps(self, period):
        run = self.checked(period)
        ev = self.events(period)
        for call in ("select", "poll"):
            d = wait_durations(ev, 1, "sleep", call)
            self.assertTrue(d and 0.15 <= max(d) <= 0.5,
                            "main's %s on no descriptor (200 ms): sleep blocks %s s; %s" % (call, d, self.where(run)))
        self.assertEqual(syscalls(ev, 1), [], "select/poll on no descriptor is no system call; %s" % self.where(run))
        self.assertEqual(gtlib.blocks(ev, "network"), [], self.where(run))

    def period_check_sync_profile(self, period):
        run = self.checked(period)
        samples = self.samples(period, "sync", GO_NEW)
        for fn, call in WAITS:
            total, leaves = under(samples, fn)
            # (the start barrier's short wait is under fn too)
            self.assertTrue(0.25 <= leaves.get(call, 0) <= 0.6 and set(leaves) <= {call, "pthread_barrier_wait"},
                            "-pprof=sync: %.3f s under %s, leaves %s; %s\n%s"
                            % (total, fn, leaves, self.where(run), format_samples(samples)))


if __name__ == "__main__":
    unittest.main()
