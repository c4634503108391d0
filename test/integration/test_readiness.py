"""Readiness waits labelled by the descriptors they watch (issue 15 item 2).

Sample program (test/programs):

  readiness.c  nine threads make one ~200 ms wait each, all at once:
               epoll_wait on a timerfd alone (sleep), on a socketpair end
               (network), on a pipe (network), on an eventfd another thread
               writes after 200 ms (sync.eventfd); poll on a signalfd
               (sync.signal); select on a socket (network); epoll_wait on a
               set whose socket was taken out by EPOLL_CTL_DEL (sleep) or
               closed (sleep), and epoll_pwait on a set holding a dup'd
               epoll descriptor whose set holds a timerfd (sleep).

In both period modes: output and exit status equal the untraced run, both Go
parsers accept the trace; each wait is a block with its reason, ~200 ms
long, under its call (parsed events and `gotrace stat -json`), and no system
call; `go tool trace -pprof=net` holds the socket and pipe waits and none of
the others (timer waits are not network waits); `-pprof=sync` holds the
eventfd and signalfd waits.
"""
import json
import unittest

import gtlib
from gtlib import GO_NEW, GO_OLD
from test_io import _IOProgram, format_samples, syscalls, under, wait_durations

# thread function -> (reason, leaf call)
WAITS = {
    "timerfd_main": ("sleep", "epoll_wait"),
    "socket_main": ("network", "epoll_wait"),
    "pipe_main": ("network", "epoll_wait"),
    "eventfd_main": ("sync.eventfd", "epoll_wait"),
    "signalfd_main": ("sync.signal", "poll"),
    "select_main": ("network", "select"),
    "deleted_main": ("sleep", "epoll_wait"),
    "closed_main": ("sleep", "epoll_wait"),
    "nested_main": ("sleep", "epoll_pwait"),
}
NETWORK = {fn for fn, (reason, _) in WAITS.items() if reason == "network"}
SYNC = {fn for fn, (reason, _) in WAITS.items() if reason.startswith("sync.")}


@gtlib.expand
class ReadinessTest(_IOProgram, gtlib.TracedTestCase):
    PROGRAM = "readiness.c"

    def period_check_each_wait_has_the_reason_of_its_descriptors(self, period):
        run = self.checked(period)
        ev = self.events(period)
        for fn, (reason, call) in sorted(WAITS.items()):
            g = self.goroutine_of(ev, fn, run)
            d = wait_durations(ev, g, reason, call)
            self.assertTrue(d and 0.15 <= max(d) <= 0.6,
                            "%s (G%d): %s blocks in %s lasted %s s, want one of ~0.2 s; %s"
                            % (fn, g, reason, call, d, self.where(run)))
            # the wait call itself is never a system call (the read that
            # follows it may be one if it was preempted for >= 10 us)
            waits_as_syscalls = [e for e in syscalls(ev, g) if e.stack[:1] == [call]]
            self.assertEqual(waits_as_syscalls, [], "%s: a readiness wait is not a system call; %s"
                             % (fn, self.where(run)))

    def period_check_stat_json(self, period):
        run = self.checked(period)
        data = self.stat(period)
        threads = {t["function"]: t for t in data["threads"]["list"]}
        where = "gotrace stat -json %s:\n%s" % (run.trace, json.dumps(data["threads"], indent=1)[:4000])
        for fn, (reason, _) in sorted(WAITS.items()):
            t = threads[fn]
            got = t["sleep"] if reason == "sleep" else t["blocked"].get(reason, 0)
            self.assertTrue(0.15 <= got <= 0.6, "%s: %.3f s of %s, want ~0.2 s\n%s" % (fn, got, reason, where))
            if reason != "network":
                self.assertEqual(t["blocked"].get("network", 0), 0.0, "%s is no network wait\n%s" % (fn, where))
            # no wait counted as a system call: at most a preempted read after it
            self.assertLess(t["syscall"], 0.01, "%s\n%s" % (fn, where))
            self.assertLess(t["running"], 0.05, "%s runs while it waits\n%s" % (fn, where))

    def period_check_network_profile_holds_only_socket_and_pipe_waits(self, period):
        run = self.checked(period)
        for go in (GO_NEW, GO_OLD):
            samples = self.samples(period, "net", go)
            for fn, (_, call) in sorted(WAITS.items()):
                total, leaves = under(samples, fn)
                if fn in NETWORK:
                    self.assertTrue(0.15 <= leaves.get(call, 0) <= 0.6,
                                    "%s -pprof=net: %.3f s under %s, leaves %s; %s\n%s"
                                    % (gtlib.go_label(go), total, fn, leaves, self.where(run), format_samples(samples)))
                else:
                    self.assertEqual(total, 0.0, "%s -pprof=net holds %s (not a network wait); %s\n%s"
                                     % (gtlib.go_label(go), fn, self.where(run), format_samples(samples)))

    def period_check_sync_profile_holds_eventfd_and_signalfd_waits(self, period):
        run = self.checked(period)
        samples = self.samples(period, "sync", GO_NEW)
        for fn, (_, call) in sorted(WAITS.items()):
            total, leaves = under(samples, fn)
            got = leaves.get(call, 0)
            if fn in SYNC:
                self.assertTrue(0.15 <= got <= 0.6, "-pprof=sync: %.3f s in %s under %s; %s\n%s"
                                % (got, call, fn, self.where(run), format_samples(samples)))
            else:
                self.assertEqual(got, 0.0, "-pprof=sync holds %s's %s; %s\n%s"
                                 % (fn, call, self.where(run), format_samples(samples)))

    def period_check_no_wait_in_the_syscall_profile(self, period):
        # no readiness wait is a system call; other calls of the program
        # (main's write of the eventfd, which wakes a thread) may take a
        # little over 10 us on a loaded machine and be one, briefly
        run = self.checked(period)
        samples = self.samples(period, "syscall", GO_NEW)
        waits = {call for _, call in WAITS.values()}
        wrong = [(sec, funcs) for sec, funcs in samples if funcs and funcs[0] in waits]
        self.assertEqual(wrong, [], "-pprof=syscall; %s:\n%s" % (self.where(run), format_samples(samples)))
        self.assertLess(sum(sec for sec, _ in samples), 0.005,
                        "-pprof=syscall; %s:\n%s" % (self.where(run), format_samples(samples)))


if __name__ == "__main__":
    unittest.main()
