"""Release points (issue 16 item 1): the thread whose call let a waiter go
on is named on the waiter's wake-up.

Sample program (test/programs):

  release_barrier.c  a barrier of 3 for 3 rounds: early_main (two threads)
                     arrive at once and wait; late_main sleeps 100 ms and
                     arrives last from arrive_last, a function of its own.

In both period modes: output and exit status equal the untraced run, both
Go parsers accept the trace, and

  - each early_main goroutine has one sync.barrier block per round (under
    pthread_barrier_wait), each ended by a wake-up (Waiting->Runnable) whose
    stack holds arrive_last: the last arrival's site, whether the wake-up
    is written by the woken thread with the releaser's two frames or by the
    releaser itself with its whole stack (helper wake16's change);
  - late_main, the last arrival of every round, shows no sync.barrier block
    (it never waits).

  release_pipe.c     reader_main waits for a pipe to be readable, with poll
                     and select in turn, 4 rounds; writer_main sleeps 100 ms
                     and writes a byte from write_it, a function of its own.

  - each of reader_main's waits in poll or select is a "network" block
    whose wake-up names write_it (the writer's site or, after wake16, its
    whole stack).

Not covered, because not done: a read() that waits on a pipe (a system
call, which has no wake-up), socketpairs (their two sockets share no inode),
poll or select on several descriptors, epoll (docs/design.md, "Barriers
and pipes: release points").
"""
import unittest

import gtlib
from test_io import _IOProgram, outermost

ROUNDS = 3      # release_barrier.c
PIPE_ROUNDS = 4  # release_pipe.c


@gtlib.expand
class BarrierReleaseTest(_IOProgram, gtlib.TracedTestCase):
    PROGRAM = "release_barrier.c"

    def goroutines_of(self, events, fn):
        return [g for g, e in sorted(gtlib.goroutine_creations(events).items()) if outermost(e.tstack) == fn]

    def barrier_waits(self, events, g):
        """[(block, wake-up)] of g's sync.barrier blocks."""
        out, block = [], None
        for e in events:
            if e.kind != "StateTransition" or e.goid != g:
                continue
            if e.transition == ("Running", "Waiting"):
                block = e if e.reason == "sync.barrier" else None
            elif e.transition[0] == "Waiting" and e.transition[1] != "Waiting" and block is not None:
                out.append((block, e))
                block = None
        return out

    def period_check_waiters_wake_up_named_after_the_last_arrival(self, period):
        run = self.checked(period)
        ev = self.events(period)
        early = self.goroutines_of(ev, "early_main")
        self.assertEqual(len(early), 2, "two early_main goroutines in %s" % self.where(run))
        for g in early:
            waits = self.barrier_waits(ev, g)
            self.assertEqual(len(waits), ROUNDS, "G%d (early_main): %d sync.barrier waits, want %d; %s\n%s"
                             % (g, len(waits), ROUNDS, self.where(run), "\n".join(map(repr, waits))))
            for block, up in waits:
                self.assertIn("pthread_barrier_wait", block.tstack or block.stack, repr(block))
                self.assertIn("arrive_last", up.stack,
                              "G%d's wake-up from the barrier does not name the last arrival (arrive_last): "
                              "%r; %s" % (g, up, self.where(run)))

    def period_check_last_arrival_does_not_wait(self, period):
        run = self.checked(period)
        ev = self.events(period)
        g = self.goroutine_of(ev, "late_main", run)
        waits = self.barrier_waits(ev, g)
        self.assertEqual(waits, [], "late_main arrives last at every round, yet blocked at the barrier; %s"
                         % self.where(run))


@gtlib.expand
class PipeReleaseTest(_IOProgram, gtlib.TracedTestCase):
    PROGRAM = "release_pipe.c"

    def period_check_poll_wake_up_named_after_the_writer(self, period):
        run = self.checked(period)
        ev = self.events(period)
        g = self.goroutine_of(ev, "reader_main", run)
        ups, block = [], None
        for e in ev:
            if e.kind != "StateTransition" or e.goid != g:
                continue
            if e.transition == ("Running", "Waiting"):
                block = e if (e.tstack or e.stack)[:1] in (["poll"], ["select"]) else None
            elif e.transition[0] == "Waiting" and e.transition[1] != "Waiting" and block is not None:
                ups.append((block, e))
                block = None
        self.assertEqual(len(ups), PIPE_ROUNDS, "reader_main: %d blocks in poll or select, want %d; %s"
                         % (len(ups), PIPE_ROUNDS, self.where(run)))
        self.assertEqual(sorted({b.tstack[0] if b.tstack else b.stack[0] for b, _ in ups}), ["poll", "select"])
        for block, up in ups:
            self.assertEqual(block.reason, "network", repr(block))
            self.assertIn("write_it", up.stack, "reader_main's wake-up from poll or select does not name the writer "
                          "(write_it): %r; %s" % (up, self.where(run)))


if __name__ == "__main__":
    unittest.main()
