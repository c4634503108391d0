"""Trace the sample programs of test/programs with libgotrace and judge the
traces with the Go tools.

For every program and every period mode (pdefault: the library's default
period, one generation for these short programs; p5ms: a 5 ms period that
cuts the run into many generations):

  * the traced run prints exactly what the untraced run prints and ends with
    the same status;
  * Go 1.23 (`go tool trace -d=1`) and the newest Go (`-d=parsed`) accept the
    trace;

plus per-program checks of what a user sees in `go tool trace`: goroutines
grouped by start routine, the sync blocking profile, block reasons, labels.

Test names end in the period mode (and the Go tool where it matters), e.g.
test_sync_profile_go1_23_p5ms; select with `run.py -k NAME`.
"""
import os
import unittest

import gtlib
from gtlib import GO_NEW, go_label


def outermost(frames):
    return frames[-1] if frames else None


def ended_by_godestroy(events, goid):
    """True when goroutine goid's last transition is Running->NotExist (GoDestroy)."""
    last = None
    for e in events:
        if e.kind == "StateTransition" and e.goid == goid:
            last = e
    return last is not None and last.transition == ("Running", "NotExist")


class _ProgramChecks:
    """Checks shared by every sample program.  Subclasses set PROGRAM and, for
    programs with several modes, MODES = {argv[1]: expected exit status}
    (statuses as Python reports them: negative = killed by that signal)."""

    PROGRAM = None
    MODES = {None: 0}
    TIMEOUT = 20       # every sample program needs < 2 s untraced

    # -- runs (cached per class) -------------------------------------------

    def binary(self):
        return self.cached(("bin",), lambda: gtlib.compile(self.PROGRAM))

    def argv(self, mode):
        return [self.binary()] + ([mode] if mode else [])

    def name(self, mode):
        stem = os.path.splitext(self.PROGRAM)[0]
        return stem + ("-" + mode if mode else "")

    def plain(self, mode=None):
        def go():
            r = gtlib.run_plain(self.argv(mode), timeout=self.TIMEOUT)
            want = self.MODES[mode]
            if r.returncode != want:
                raise AssertionError("the untraced program itself misbehaves (want status %s):\n%s\nstdout:\n%s"
                                     % (want, r.describe(), gtlib.head(r.stdout, 30)))
            return r
        return self.cached(("plain", mode), go)

    def traced(self, period, mode=None):
        def go():
            self.require_tools()
            return gtlib.run_traced(self.argv(mode), gtlib.trace_path(self.name(mode), period),
                                    period=period, timeout=self.TIMEOUT)
        return self.cached(("traced", mode, period), go)

    def checked(self, period, mode=None):
        """The traced run, after checking its output/status and both parsers."""
        def go():
            plain = self.plain(mode)
            run = self.traced(period, mode)
            self.assert_same_behaviour(plain, run)
            gtlib.validate(run.trace)
            return run
        return self.cached(("checked", mode, period), go)

    def events(self, period, mode=None):
        run = self.checked(period, mode)
        return self.cached(("events", mode, period), lambda: gtlib.parsed_events(run.trace))

    # -- helpers ---------------------------------------------------------------

    def assert_same_behaviour(self, plain, traced):
        if traced.returncode != plain.returncode or traced.stdout != plain.stdout:
            raise AssertionError(
                "traced run differs from the untraced one\n"
                "untraced: status %s, stdout:\n%s\ntraced:\n%s\nstdout:\n%s"
                % (plain.returncode, gtlib.head(plain.stdout, 30), traced.describe(),
                   gtlib.head(traced.stdout, 30)))

    def goroutines_by_start(self, events):
        """{start function: [goid, ...]} from the creation events (the
        outermost frame of GoCreate's new-goroutine stack)."""
        out = {}
        for g, ev in sorted(gtlib.goroutine_creations(events).items()):
            out.setdefault(outermost(ev.tstack), []).append(g)
        return out

    def where(self, run):
        return "trace %s (period %s)" % (run.trace, run.period or "default")

    def started_with(self, events, fn, run, count=1):
        """The goroutines created with start function fn; asserts how many."""
        by_start = self.goroutines_by_start(events)
        gs = by_start.get(fn, [])
        if len(gs) != count:
            self.fail("want %d GoCreate with new stack [%s], found %d in %s; start functions seen: %s"
                      % (count, fn, len(gs), self.where(run),
                         ", ".join("%s x%d" % (k, len(v)) for k, v in sorted(by_start.items(), key=str))))
        return gs

    # -- the shared checks --------------------------------------------------------

    def mode_check_traced_output_and_status_match_untraced(self, mode, period):
        self.assert_same_behaviour(self.plain(mode), self.traced(period, mode))

    def mode_check_trace_accepted_by_go123_and_newest_go(self, mode, period):
        self.checked(period, mode)

    def mode_check_main_thread_is_goroutine_1(self, mode, period):
        run = self.checked(period, mode)
        ev = self.events(period, mode)
        self.assertIn(1, gtlib.goroutine_ids(ev), "no goroutine 1 (the main thread) in %s" % self.where(run))
        self.assertNotIn(1, gtlib.goroutine_creations(ev),
                         "goroutine 1 must exist from the start, not be created: %s" % self.where(run))


@gtlib.expand
class MutexWaitTest(_ProgramChecks, gtlib.TracedTestCase):
    """main holds a mutex for 200 ms while waiter_main waits for it."""
    PROGRAM = "mutex_wait.c"
    WAIT = (0.15, 0.35)

    def period_check_waiter_created_with_its_start_function(self, period):
        run = self.checked(period)
        created = gtlib.goroutine_creations(self.events(period))
        waiters = [e for e in created.values() if outermost(e.tstack) == "waiter_main"]
        self.assertEqual(len(waiters), 1, "GoCreate events with new stack [waiter_main] in %s: %s"
                         % (self.where(run), list(created.values())))
        self.assertIn("main", waiters[0].stack,
                      "GoCreate's stack should be pthread_create's caller (main): %r" % waiters[0])
        self.assertEqual(waiters[0].g, 1, "created by G1: %r" % waiters[0])

    def period_check_waiter_blocks_in_pthread_mutex_lock_with_sync_reason(self, period):
        run = self.checked(period)
        ev = self.events(period)
        waiter = self.started_with(ev, "waiter_main", run)[0]
        blocks = [b for b in gtlib.blocks(ev) if b.goid == waiter]
        self.assertTrue(blocks, "waiter_main's goroutine %s never blocked in %s" % (waiter, self.where(run)))
        sync = [b for b in blocks if "sync" in (b.reason or "")]
        self.assertTrue(sync, "no block with a reason containing 'sync' for waiter_main in %s: %s"
                        % (self.where(run), blocks))
        self.assertTrue(any("pthread_mutex_lock" in b.stack and "waiter_main" in b.stack for b in sync),
                        "the sync block's stack should be pthread_mutex_lock <- waiter_main: %s" % sync)
        d = gtlib.block_durations(ev, waiter, "sync")
        self.assertTrue(d and self.WAIT[0] <= max(d) <= self.WAIT[1],
                        "waiter_main's mutex wait lasted %s s in the trace, want ~0.2 s; %s" % (d, self.where(run)))

    def period_check_main_sleep_is_a_sleep_block_of_200ms(self, period):
        run = self.checked(period)
        ev = self.events(period)
        sleeps = [b for b in gtlib.blocks(ev, "=sleep") if b.goid == 1]
        self.assertTrue(sleeps, "no GoBlock with Reason=\"sleep\" on G1 in %s" % self.where(run))
        self.assertTrue(any("nanosleep" in b.stack for b in sleeps),
                        "sleep block stack should contain nanosleep: %s" % sleeps)
        d = gtlib.block_durations(ev, 1, "=sleep")
        self.assertTrue(d and self.WAIT[0] <= max(d) <= self.WAIT[1],
                        "main's 200 ms nanosleep lasted %s s in the trace (%s)" % (d, self.where(run)))

    def go_check_sync_profile(self, go, period):
        """-pprof=sync shows ~200 ms under waiter_main (Go 1.23 needs stacks
        on the GoUnblock events to close the interval, format doc 6.2)."""
        run = self.checked(period)
        prof = gtlib.pprof_top(run.trace, "sync", go)
        cum = prof.get("waiter_main", (0, 0))[1]
        self.assertTrue(self.WAIT[0] <= cum <= self.WAIT[1],
                        "%s -pprof=sync: cum at waiter_main = %.3fs, want %.2f-%.2fs; %s; profile:\n%s"
                        % (go_label(go), cum, self.WAIT[0], self.WAIT[1], self.where(run),
                           gtlib.format_profile(prof)))
        flat = prof.get("pthread_mutex_lock", (0, 0))[0]
        self.assertTrue(self.WAIT[0] <= flat <= self.WAIT[1],
                        "%s -pprof=sync: flat at pthread_mutex_lock = %.3fs; %s; profile:\n%s"
                        % (go_label(go), flat, self.where(run), gtlib.format_profile(prof)))

    def period_check_sched_profile_names_the_waker(self, period):
        """The waiter's GoUnblock carries the releaser's stack, so the newest
        Go's scheduler-latency profile blames main's pthread_mutex_unlock.
        (Not Go 1.23: there the runnable interval would only close at the
        waiter's next stack-carrying transition, and it has none: it runs
        and exits, format doc 6.2.)"""
        go = GO_NEW
        run = self.checked(period)
        prof = gtlib.pprof_top(run.trace, "sched", go)
        self.assertIn("pthread_mutex_unlock", prof,
                      "%s -pprof=sched should name the waker (pthread_mutex_unlock <- main); %s; profile:\n%s"
                      % (go_label(go), self.where(run), gtlib.format_profile(prof)))

@gtlib.expand
class WorkersTest(_ProgramChecks, gtlib.TracedTestCase):
    """8 threads with start routine worker_main, named worker-<i>."""
    PROGRAM = "workers.c"
    N = 8

    def go_check_goroutine_analysis_groups_workers_by_start_function(self, go, period):
        run = self.checked(period)
        groups = gtlib.goroutine_groups(run.trace, go)
        self.assertEqual(groups.get("worker_main"), self.N,
                         "%s /goroutines: want worker_main x%d; groups %s; %s"
                         % (go_label(go), self.N, groups, self.where(run)))
        self.assertEqual(sum(groups.values()), self.N + 1,
                         "%s /goroutines: want %d goroutines (main + workers); groups %s; %s"
                         % (go_label(go), self.N + 1, groups, self.where(run)))
        self.assertNotIn("", groups, "goroutines without any stack (%s): %s; %s"
                         % (gtlib.INACTIVE, groups, self.where(run)))

    def go_check_main_thread_group_is_named_main(self, go, period):
        # The main goroutine's group is the outermost frame of the first
        # *transition* stack the summary sees; users should see "main", not
        # _start/__libc_start_main.  (Go 1.23 reports a GoStatusStack's stack
        # as the event stack, not as the transition stack, so only the first
        # GoBlock/GoSyscallBegin stack names G1 there.)
        run = self.checked(period)
        groups = gtlib.goroutine_groups(run.trace, go)
        self.assertEqual(groups.get("main"), 1, "%s /goroutines: want a group 'main' with one goroutine; groups %s; %s"
                         % (go_label(go), groups, self.where(run)))

    def period_check_thread_names_become_labels(self, period):
        run = self.checked(period)
        ev = self.events(period)
        labels = gtlib.labels(ev)
        workers = set(self.started_with(ev, "worker_main", run, self.N))
        got = {}
        for g, ls in labels.items():
            for l in ls:
                got[l] = g
        want = {"worker-%d" % i for i in range(self.N)}
        self.assertEqual(want - set(got), set(), "missing Label events in %s; labels seen: %s"
                         % (self.where(run), labels))
        self.assertTrue(all(got[w] in workers for w in want),
                        "labels must be on the worker goroutines %s: %s" % (sorted(workers), labels))
        self.assertEqual(len({got[w] for w in want}), self.N, "one label per worker: %s" % labels)

    def period_check_condvar_waits_are_sync_blocks(self, period):
        run = self.checked(period)
        ev = self.events(period)
        workers = set(self.started_with(ev, "worker_main", run, self.N))
        waits = [b for b in gtlib.blocks(ev, "sync") if b.goid in workers and "pthread_cond_wait" in b.stack]
        blocked = {b.goid for b in waits}
        self.assertEqual(blocked, workers,
                         "every worker waits at the start gate (pthread_cond_wait, reason ~ sync); "
                         "goroutines seen blocking there: %s of %s; %s"
                         % (sorted(blocked), sorted(workers), self.where(run)))
        for g in sorted(workers):
            self.assertTrue(ended_by_godestroy(ev, g),
                            "worker goroutine %d does not end with Running->NotExist in %s" % (g, self.where(run)))

    def go_check_sync_profile_counts_the_start_gate(self, go, period):
        # 8 workers wait ~50 ms at the gate: at least 0.25 s of sync time.
        run = self.checked(period)
        prof = gtlib.pprof_top(run.trace, "sync", go)
        cum = prof.get("worker_main", (0, 0))[1]
        self.assertTrue(cum >= 0.25, "%s -pprof=sync: cum at worker_main %.3fs < 0.25s; %s; profile:\n%s"
                        % (go_label(go), cum, self.where(run), gtlib.format_profile(prof)))


@gtlib.expand
class SyncZooTest(_ProgramChecks, gtlib.TracedTestCase):
    """Every interposed family once, with real contention."""
    PROGRAM = "sync_zoo.c"

    # each must appear in the stack of a block whose reason contains "sync"
    SYNC_APIS = ["pthread_mutex_lock", "pthread_mutex_timedlock",
                 "pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
                 "pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock",
                 "pthread_spin_lock",
                 "pthread_cond_wait", "pthread_cond_timedwait",
                 "pthread_barrier_wait",
                 "sem_wait", "sem_timedwait",
                 "pthread_join", "pthread_timedjoin_np"]
    # program function -> the sleep call it makes; each must show a Reason="sleep" block
    SLEEPS = {"do_nanosleep": "nanosleep", "do_usleep": "usleep",
              "do_clock_nanosleep": "clock_nanosleep", "do_sleep": "sleep"}
    HELPERS = ["sleeper_main", "mutex_locker_main", "mutex_timed_main", "rw_reader_main",
               "rw_writer_main", "spin_main", "cond_waiter_main", "cond_timed_waiter_main",
               "cond_broadcast_waiter_main", "barrier_main", "sem_waiter_main", "join_target_main"]
    BLOCKING_HELPERS = ["mutex_locker_main", "mutex_timed_main", "rw_reader_main", "rw_writer_main",
                        "spin_main", "cond_waiter_main", "cond_timed_waiter_main",
                        "cond_broadcast_waiter_main", "barrier_main", "sem_waiter_main"]

    def period_check_program_reports_all_checks_passed(self, period):
        run = self.traced(period)
        self.assertNotIn("FAIL", run.stdout, run.describe() + "\n" + run.stdout)
        self.assertIn(", 0 failed", run.stdout, run.describe() + "\n" + run.stdout)
        self.assertEqual(run.returncode, 0, run.describe())

    def period_check_every_helper_thread_is_created_with_its_start_function(self, period):
        run = self.checked(period)
        by_start = self.goroutines_by_start(self.events(period))
        missing = [h for h in self.HELPERS if h not in by_start]
        self.assertEqual(missing, [], "no GoCreate with new stack [fn] for %s in %s; seen %s"
                         % (missing, self.where(run), sorted(map(str, by_start))))
        self.assertEqual(len(by_start["cond_broadcast_waiter_main"]), 3)
        self.assertEqual(len(by_start["barrier_main"]), 3)

    def period_check_every_waiting_family_is_a_sync_block_named_on_the_stack(self, period):
        run = self.checked(period)
        sync = gtlib.blocks(self.events(period), "sync")
        seen = set()
        for b in sync:
            seen.update(b.stack)
        missing = [api for api in self.SYNC_APIS if api not in seen]
        self.assertEqual(missing, [], "no block with a reason containing 'sync' whose stack has %s in %s;"
                         " (reason, stack leaf) seen: %s"
                         % (missing, self.where(run),
                            sorted({(b.reason, b.stack[0] if b.stack else None) for b in sync})))

    def period_check_every_blocking_helper_blocks_with_sync_reason(self, period):
        run = self.checked(period)
        ev = self.events(period)
        by_start = self.goroutines_by_start(ev)
        blocked = {b.goid for b in gtlib.blocks(ev, "sync")}
        missing = [h for h in self.BLOCKING_HELPERS if not any(g in blocked for g in by_start.get(h, []))]
        self.assertEqual(missing, [], "helpers without a sync block in %s" % self.where(run))

    def period_check_sleep_calls_are_sleep_blocks(self, period):
        run = self.checked(period)
        sleeps = gtlib.blocks(self.events(period), "=sleep")
        missing = ["%s (in %s)" % (api, caller) for caller, api in self.SLEEPS.items()
                   if not any(caller in b.stack and api in b.stack for b in sleeps)]
        self.assertEqual(missing, [], "no Reason=\"sleep\" block for %s in %s; sleep stacks seen: %s"
                         % (missing, self.where(run), sorted({" <- ".join(b.stack[:3]) for b in sleeps})))

    def period_check_yields_are_goroutine_stops(self, period):
        run = self.checked(period)
        stops = [e for e in self.events(period) if e.transition == ("Running", "Runnable")]
        for api in ("sched_yield", "pthread_yield"):
            self.assertTrue(any(e.stack and e.stack[0] == api for e in stops),
                            "no Running->Runnable at %s; %s" % (api, self.where(run)))

    def period_check_sleep_in_thread_lasts_a_second(self, period):
        run = self.checked(period)
        ev = self.events(period)
        g = self.started_with(ev, "sleeper_main", run)[0]
        d = gtlib.block_durations(ev, g, "=sleep")
        self.assertTrue(d and 0.9 <= max(d) <= 1.5, "sleep(1) in sleeper_main (G%s) lasted %s s; %s"
                        % (g, d, self.where(run)))

    def period_check_own_thread_name_is_a_label_on_main(self, period):
        run = self.checked(period)
        labels = gtlib.labels(self.events(period))
        self.assertIn("zoo-main", labels.get(1, []), "Label=\"zoo-main\" on G1 missing in %s; labels %s"
                      % (self.where(run), labels))

    def period_check_name_set_by_another_thread_is_a_label(self, period):
        # main names the sleeper thread while it sleeps: the label must end up
        # on the sleeper's goroutine (GoLabel can only be written by the
        # running goroutine, so the library has to defer it).
        run = self.checked(period)
        ev = self.events(period)
        g = self.started_with(ev, "sleeper_main", run)[0]
        labels = gtlib.labels(ev)
        self.assertIn("zoo-sleeper", labels.get(g, []), "Label=\"zoo-sleeper\" on G%s missing in %s; labels %s"
                      % (g, self.where(run), labels))


@gtlib.expand
class ExitPathsTest(_ProgramChecks, gtlib.TracedTestCase):
    """The process ends in various ways; each trace must be complete."""
    PROGRAM = "exit_paths.c"
    MODES = {"return": 7, "exit_thread": 5, "pthread_exit": 0, "exit_main": 3, "sigterm": -15}

    def _check_blocked_at_exit(self, mode, period):
        run = self.checked(period, mode)
        ev = self.events(period, mode)
        for fn in ("cond_forever_main", "mutex_forever_main"):
            gs = self.started_with(ev, fn, run)
            self.assertTrue([b for b in gtlib.blocks(ev, "sync") if b.goid == gs[0]],
                            "%s (G%d) must be blocked (reason ~ sync) at exit; %s" % (fn, gs[0], self.where(run)))

    def period_check_blocked_threads_at_return_are_in_the_trace(self, period):
        self._check_blocked_at_exit("return", period)

    def period_check_blocked_threads_at_exit_from_thread_are_in_the_trace(self, period):
        self._check_blocked_at_exit("exit_thread", period)

    def period_check_threads_outliving_main_are_traced(self, period):
        # after main's pthread_exit, second_main still sleeps 20 ms: its
        # events must reach the trace, and main's goroutine must end.
        run = self.checked(period, "pthread_exit")
        ev = self.events(period, "pthread_exit")
        g = self.started_with(ev, "second_main", run)[0]
        self.assertTrue([b for b in gtlib.blocks(ev, "=sleep") if b.goid == g],
                        "no sleep block of second_main (G%s) after main's pthread_exit; %s" % (g, self.where(run)))
        self.assertTrue(ended_by_godestroy(ev, 1),
                        "G1 (main, pthread_exit) should end with Running->NotExist; %s" % self.where(run))


class DetachedExitTest(gtlib.TracedTestCase):
    """Detached workers end while main exits (the last one stops the flusher
    as main asks it for the final generation): every run leaves a trace that
    both Go readers accept, and no run waits for the flusher's time-out."""
    RUNS = 25

    def test_every_run_writes_its_trace(self):
        exe = gtlib.compile("detached_exit.c")
        for i in range(self.RUNS):
            trace = gtlib.trace_path("detached_exit-%d" % i)
            run = gtlib.run_traced([exe], trace, timeout=60)
            self.assertEqual((run.returncode, run.stdout), (0, "done\n"), run.describe())
            self.assertLess(run.elapsed, 5.0, "run %d waited for the flusher:\n%s" % (i, run.describe()))
            self.assertTrue(os.path.exists(trace), "run %d wrote no trace:\n%s" % (i, run.describe()))
            if i == 0:
                gtlib.validate(trace)
            gtlib.discard(trace)


@gtlib.expand
class CxxThreadsTest(_ProgramChecks, gtlib.TracedTestCase):
    """std::thread producer/consumer with std::mutex/std::condition_variable."""
    PROGRAM = "cxx_threads.cpp"

    def period_check_four_threads_created(self, period):
        run = self.checked(period)
        created = gtlib.goroutine_creations(self.events(period))
        self.assertEqual(len(created), 4, "want 4 GoCreate (2 producers, 2 consumers) in %s: %s"
                         % (self.where(run), created))

    def period_check_condition_variable_waits_are_sync_blocks(self, period):
        run = self.checked(period)
        cond = [b for b in gtlib.blocks(self.events(period), "sync") if "pthread_cond_wait" in b.stack]
        self.assertTrue(cond, "no pthread_cond_wait sync block (std::condition_variable::wait) in %s"
                        % self.where(run))
        self.assertTrue({b.goid for b in cond} - {1},
                        "worker goroutines must block in std::condition_variable::wait; %s" % self.where(run))


@gtlib.expand
class ManyThreadsTest(_ProgramChecks, gtlib.TracedTestCase):
    """2000 short-lived threads in waves of 50."""
    PROGRAM = "many_threads.c"
    N = 2000

    def period_check_every_thread_is_a_goroutine(self, period):
        run = self.checked(period)
        ev = self.events(period)
        gs = self.started_with(ev, "short_main", run, self.N)
        self.assertEqual(len(set(gs)), self.N, "goroutine IDs must not be reused")
        ended = [g for g in gs if ended_by_godestroy(ev, g)]
        self.assertEqual(len(ended), self.N, "goroutines that end with GoDestroy in %s" % self.where(run))

    def test_goroutine_analysis_pdefault(self):
        run = self.checked(None)
        groups = gtlib.goroutine_groups(run.trace, GO_NEW)
        self.assertEqual(groups.get("short_main"), self.N, "groups %s; %s" % (groups, self.where(run)))


@gtlib.expand
class CancelTest(_ProgramChecks, gtlib.TracedTestCase):
    """pthread_cancel of threads blocked in cond_wait, nanosleep, join, sem_wait."""
    PROGRAM = "cancel.c"
    CANCELLED = {"cond_cancel_main": "sync", "sleep_cancel_main": "=sleep",
                 "join_cancel_main": "sync", "sem_cancel_main": "sync"}

    def period_check_cancelled_threads_block_then_end(self, period):
        run = self.checked(period)
        ev = self.events(period)
        for fn, reason in self.CANCELLED.items():
            gs = self.started_with(ev, fn, run)
            self.assertTrue([b for b in gtlib.blocks(ev, reason) if b.goid == gs[0]],
                            "%s (G%d) must show a block with reason %s; %s" % (fn, gs[0], reason, self.where(run)))
            self.assertTrue(ended_by_godestroy(ev, gs[0]),
                            "cancelled %s (G%d) must end with Running->NotExist; %s" % (fn, gs[0], self.where(run)))


@gtlib.expand
class UncontendedTest(_ProgramChecks, gtlib.TracedTestCase):
    """Only waits emit events: 4 x 20000 rounds of uncontended lock/unlock,
    try-locks, timed locks, sem_post+sem_wait, signal without waiters."""
    PROGRAM = "uncontended.c"

    def period_check_uncontended_calls_emit_no_blocks(self, period):
        run = self.checked(period)
        ev = self.events(period)
        bad = [b for b in gtlib.blocks(ev) if b.reason != "sleep" and "pthread_barrier_wait" not in b.stack]
        if bad:
            self.fail("blocks other than main's sleeps in %s (%d of them; first: %s)"
                      % (self.where(run), len(bad), bad[:3]))
        sleeps = gtlib.blocks(ev, "=sleep")
        self.assertEqual(len(sleeps), 3, "main sleeps three times: %s" % sleeps)

    def period_check_last_arrival_at_a_barrier_emits_no_block(self, period):
        # a barrier of count 1 never waits (every caller is the last arrival)
        run = self.checked(period)
        bad = [b for b in gtlib.blocks(self.events(period)) if "pthread_barrier_wait" in b.stack]
        if bad:
            self.fail("pthread_barrier_wait on a barrier of count 1 emitted %d blocks in %s (first: %s)"
                      % (len(bad), self.where(run), bad[0]))


if __name__ == "__main__":
    unittest.main()
