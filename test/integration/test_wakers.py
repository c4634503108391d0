"""The releaser wakes the waiter, in the trace (issue 16, item 1).

test/programs/wakers.c releases what other threads wait for from functions
of its own: a mutex handoff, a condvar signal, a broadcast to three
waiters, a thread's exit for its joiner, and a producer/consumer queue. In
the newest Go's -d=parsed view, the woken goroutine's GoUnblock
(Waiting->Runnable) must be the releaser's event: its G is the releasing
goroutine (found by its start function), its stack is the releaser's full
stack (the function that released and its caller), its time is before the
waiter's GoStart. Both Go readers accept every trace, in both period modes
(and a format-26 trace and a flight-recorder snapshot, whose generation
bytes are the same batches). A timed-out wait has no releaser.
"""
import unittest

import gtlib
from gtlib import GO_NEW, go_label

PROGRAM = "wakers.c"


def outermost(frames):
    return frames[-1] if frames else None


def starts(events):
    """{goid: start function} (the outermost frame of the creation stack;
    the main thread's goroutine starts at "main")."""
    out = {}
    for g, ev in gtlib.goroutine_creations(events).items():
        out[g] = outermost(ev.tstack)
    return out


def goids_of(events, fn):
    return sorted(g for g, f in starts(events).items() if f == fn)


def wakeups(events, goid):
    """The Waiting->Runnable transitions of goroutine goid, each with the
    reason of the block it ended and the Runnable->Running that followed."""
    out = []
    reason = None
    pending = None
    for e in events:
        if e.kind != "StateTransition" or e.goid != goid:
            continue
        if e.transition == ("Running", "Waiting"):
            reason = e.reason or ""
        elif e.transition == ("Waiting", "Runnable"):
            pending = (e, reason)
        elif e.transition == ("Runnable", "Running") and pending:
            out.append((pending[0], pending[1], e))
            pending = None
    return out


def sync_wakeup_share(events):
    """(sync wake-ups, those whose GoUnblock has a goroutine (G != -1))."""
    last = {}
    total = with_g = 0
    for e in events:
        if e.kind != "StateTransition" or e.goid is None:
            continue
        if e.transition == ("Running", "Waiting"):
            last[e.goid] = e.reason or ""
        elif e.transition == ("Waiting", "Runnable") and "sync" in last.get(e.goid, ""):
            total += 1
            with_g += e.g != -1
    return total, with_g


@gtlib.expand
class TestWakers(gtlib.TracedTestCase):
    TIMEOUT = 30

    def binary(self):
        return self.cached(("bin",), lambda: gtlib.compile(PROGRAM))

    def run_mode(self, mode, period, env=None, tag=""):
        def go():
            self.require_tools()
            argv = [self.binary(), mode]
            plain = gtlib.run_plain(argv, timeout=self.TIMEOUT)
            self.assertEqual(plain.returncode, 0, plain.describe())
            run = gtlib.run_traced(argv, gtlib.trace_path("wakers-%s%s" % (mode, tag), period),
                                   period=period, timeout=self.TIMEOUT, env_extra=env)
            self.assertEqual((run.returncode, run.stdout), (plain.returncode, plain.stdout), run.describe())
            if (env or {}).get("GOTRACE_FORMAT") == "26":
                gtlib.validate_with(GO_NEW, run.trace)  # Go 1.23 does not read format 26
            else:
                gtlib.validate(run.trace)   # Go 1.23 -d=1 and the newest -d=parsed
            return run, gtlib.parsed_events(run.trace)
        return self.cached(("run", mode, period, tag), go)

    def assert_woken_by(self, mode, period, waiter_fn, releaser_fn, frames, reason, count=1, env=None, tag=""):
        """Each goroutine starting at waiter_fn has a wake-up from a block
        whose reason contains `reason`, whose GoUnblock is the goroutine
        starting at releaser_fn, carrying every function of `frames` in its
        stack, before the waiter's GoStart.

        A wake-up whose release and GoStart fall in different generations is
        written as before, on the waiter's M with the release site's two
        frames (docs/design.md: the releaser's chunk of the earlier
        generation may be written out already); with a 5 ms period that
        happens to a few wake-ups in a hundred on a loaded machine. Such a
        run is repeated (at most three runs), never accepted."""
        for attempt in range(3):
            run, events = self.run_mode(mode, period, env=env, tag=tag + ("" if attempt == 0 else "-%d" % attempt))
            crossed = False
            for w in goids_of(events, waiter_fn):
                mine = [x for x in wakeups(events, w) if reason in (x[1] or "")]
                if mine and mine[-1][0].g == -1 and frames[0] in mine[-1][0].stack:
                    crossed = True
            if not crossed:
                break
        self.assert_woken_in(events, run, waiter_fn, releaser_fn, frames, reason, count)

    def assert_woken_in(self, events, run, waiter_fn, releaser_fn, frames, reason, count):
        where = "trace %s (period %s)" % (run.trace, run.period or "default")
        waiters = goids_of(events, waiter_fn)
        releasers = goids_of(events, releaser_fn)
        self.assertEqual(len(waiters), count, "goroutines starting at %s: %s; %s" % (waiter_fn, waiters, where))
        self.assertEqual(len(releasers), 1, "goroutines starting at %s: %s; %s" % (releaser_fn, releasers, where))
        for w in waiters:
            mine = [x for x in wakeups(events, w) if reason in (x[1] or "")]
            self.assertTrue(mine, "goroutine %d (%s) has no wake-up from a %s wait; %s"
                            % (w, waiter_fn, reason, where))
            unblock, _, start = mine[-1]
            self.assertEqual(unblock.g, releasers[0],
                             "goroutine %d's GoUnblock is not the releaser's (%s, G%d) event:\n%r\n%s"
                             % (w, releaser_fn, releasers[0], unblock, where))
            for fn in frames:
                self.assertIn(fn, unblock.stack, "the GoUnblock's stack lacks %s:\n%r\n%s" % (fn, unblock, where))
            self.assertLessEqual(unblock.time, start.time, "GoUnblock after GoStart:\n%r\n%r" % (unblock, start))
            # on the releaser's M, where its goroutine runs
            releaser_ms = {e.m for e in events if e.g == releasers[0]}
            self.assertIn(unblock.m, releaser_ms, "%r\n%s" % (unblock, where))

    # -- the four wake-ups -----------------------------------------------

    def period_check_handoff(self, period):
        """A mutex handed over: holder_main unlocks in handoff_unlock."""
        self.assert_woken_by("handoff", period, "waiter_main", "holder_main",
                             ["handoff_unlock", "holder_main"], "sync.mutex")

    def period_check_signal(self, period):
        """A condvar signal from signal_one, called by signaler_main."""
        self.assert_woken_by("signal", period, "cond_waiter_main", "signaler_main",
                             ["signal_one", "signaler_main"], "sync.cond")

    def period_check_broadcast(self, period):
        """One broadcast wakes three waiters: each GoUnblock is the broadcaster's."""
        self.assert_woken_by("broadcast", period, "bcast_waiter_main", "broadcaster_main",
                             ["broadcast_all", "broadcaster_main"], "sync.cond", count=3)

    def period_check_join(self, period):
        """A join ends when exiting_main's thread exits: its GoUnblock."""
        for attempt in range(3):   # a generation between release and run: see assert_woken_by
            run, events = self.run_mode("join", period, tag="" if attempt == 0 else "-%d" % attempt)
            joins = [x for x in wakeups(events, 1) if "sync.join" in (x[1] or "")]
            if not joins or joins[-1][0].g != -1 or "exiting_main" not in joins[-1][0].stack:
                break
        where = "trace %s (period %s)" % (run.trace, run.period or "default")
        exiting = goids_of(events, "exiting_main")
        self.assertEqual(len(exiting), 1, where)
        self.assertTrue(joins, "main has no wake-up from its join; " + where)
        unblock = joins[-1][0]
        self.assertEqual(unblock.g, exiting[0], "the join's GoUnblock:\n%r\n%s" % (unblock, where))
        self.assertIn("exiting_main", unblock.stack, "%r\n%s" % (unblock, where))

    def period_check_prodcons(self, period):
        """At least 95 % of the sync wake-ups of a producer/consumer queue
        carry the releasing goroutine."""
        run, events = self.run_mode("prodcons", period)
        total, with_g = sync_wakeup_share(events)
        self.assertGreater(total, 50, "too few sync wake-ups to judge (%d); trace %s" % (total, run.trace))
        self.assertGreaterEqual(with_g, 0.95 * total,
                                "only %d of %d sync wake-ups carry a releasing goroutine; trace %s"
                                % (with_g, total, run.trace))

    def period_check_sched_profile(self, period):
        """-pprof=sched puts the handoff's release -> run latency under the
        releaser's full stack. The newest Go only: Go 1.23's profiles skip
        stackless transitions, so the waiter's (stackless) GoStart does not
        end its runnable interval, and waiter_main never blocks again."""
        run, _ = self.run_mode("handoff", period)
        prof = gtlib.pprof_top(run.trace, "sched", GO_NEW)
        label = go_label(GO_NEW)
        self.assertIn("handoff_unlock", prof, "%s -pprof=sched:\n%s" % (label, gtlib.format_profile(prof)))
        self.assertIn("holder_main", prof, "%s -pprof=sched:\n%s" % (label, gtlib.format_profile(prof)))

    # -- the same batches, written otherwise --------------------------------

    def test_format26(self):
        """Format 26 (EndOfGeneration): the newest Go reads the split batches."""
        self.assert_woken_by("broadcast", "5ms", "bcast_waiter_main", "broadcaster_main",
                             ["broadcast_all", "broadcaster_main"], "sync.cond", count=3,
                             env={"GOTRACE_FORMAT": "26"}, tag="-f26")

    def test_flight(self):
        """The flight recorder keeps the generation bytes as written: the
        snapshot has the releasers' GoUnblocks too."""
        run, events = self.run_mode("prodcons", "5ms", env={"GOTRACE_FLIGHT": "10s"}, tag="-flight")
        total, with_g = sync_wakeup_share(events)
        self.assertGreater(total, 50, run.trace)
        self.assertGreaterEqual(with_g, 0.95 * total, "%d of %d; %s" % (with_g, total, run.trace))


if __name__ == "__main__":
    unittest.main()
