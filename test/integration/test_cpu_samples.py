"""CPU samples (issue 17, items 1, 2 and 4): each traced thread's stack
every period of its own CPU time, written as Go CPUSample events.

Sample programs (test/programs):

  cpu_burn.c     two threads burn CPU in functions of their own (burn_short
                 for 50 units of 10 ms, burn_long for 100), a third sleeps
                 and waits on a mutex; each prints its tid and its
                 CLOCK_THREAD_CPUTIME_ID at its end.
  cpu_sigprof.c  the program's own SIGPROF profiler (setitimer ITIMER_PROF,
                 10 ms, a handler counting ticks) while two threads burn.
  cpu_sigmask.c  every signal blocked in both threads; one waits for any
                 signal with sigwaitinfo, main reads one from a signalfd of
                 every signal; both read their mask back.
  cpu_giveback.c uses SIGRTMAX itself after 0.2 s of CPU: a handler, a
                 raise, a sigwaitinfo on it alone, its own CPU-time timer
                 on it; the sampler gives the signal back.
  cpu_eintr.c    poll, read on a pipe, nanosleep and select after a
                 millisecond of CPU each, while two threads burn: counts
                 EINTR.

Checks, in both period modes (the default, and 5 ms generations) at the
default rate (100 Hz), with GOTRACE_CPU=4ms, and GOTRACE_CPU=0:
  * both Go parsers accept the traces;
  * every StackSample of a thread carries its M (tid), its G, and a stack
    holding its burning function;
  * samples x period = the thread's CPU time within 10 %, and the thread
    that burns twice as long has twice the samples within 20 %;
  * no sample of a goroutine lies inside an interval the trace shows it
    Waiting;
  * GOTRACE_CPU=0: no sample;
  * the signal programs print what they print untraced, exit 0, and have
    samples where they burn.
"""
import re
import unittest

import gtlib

CPU_MODES = {"default": (None, 0.010), "p4ms": ("4ms", 0.004), "off": ("0", None)}


def samples_of(events):
    return [e for e in events if e.kind == "StackSample"]


def waiting_intervals(events):
    """{goid: [(start, end)]} of the Running->Waiting ... ->Runnable/Running
    spans (an open one ends at infinity)."""
    out = {}
    start = {}
    for e in events:
        if e.kind != "StateTransition" or e.goid is None:
            continue
        frm, to = e.transition
        if to == "Waiting" and frm != "Waiting":
            start[e.goid] = e.time
        elif frm == "Waiting" and to != "Waiting" and e.goid in start:
            out.setdefault(e.goid, []).append((start.pop(e.goid), e.time))
    for g, t in start.items():
        out.setdefault(g, []).append((t, float("inf")))
    return out


def cpu_lines(stdout):
    """{name: (tid, seconds)} from cpu_burn's 'cpu NAME TID NS' lines."""
    out = {}
    for m in re.finditer(r"^cpu (\w+) (\d+) (\d+)$", stdout, re.M):
        out[m.group(1)] = (int(m.group(2)), int(m.group(3)) / 1e9)
    return out


@gtlib.expand
class CPUSamplesTest(gtlib.TracedTestCase):
    MODES = CPU_MODES
    UNITS = "50"

    def traced(self, mode, period):
        def go():
            self.require_tools()
            exe = gtlib.compile("cpu_burn.c")
            env = {}
            if CPU_MODES[mode][0] is not None:
                env["GOTRACE_CPU"] = CPU_MODES[mode][0]
            run = gtlib.run_traced([exe, self.UNITS], gtlib.trace_path("cpu_burn-" + mode, period),
                                   env_extra=env, period=period)
            if run.returncode != 0:
                raise AssertionError("traced run failed:\n%s" % run.describe())
            gtlib.validate(run.trace)
            return run, gtlib.parsed_events(run.trace)
        return self.cached((mode, period), go)

    def mode_check_samples_match_cpu_time(self, mode, period):
        run, events = self.traced(mode, period)
        samples = samples_of(events)
        step = CPU_MODES[mode][1]
        where = run.describe()
        if step is None:
            self.assertEqual(samples, [], "GOTRACE_CPU=0 wrote samples\n%s" % where)
            return
        cpu = cpu_lines(run.stdout)
        self.assertEqual(set(cpu), {"short", "long", "waiter", "main"}, run.stdout)
        counts = {}
        for name, fn in (("short", "burn_short"), ("long", "burn_long")):
            tid, secs = cpu[name]
            mine = [s for s in samples if s.m == tid]
            counts[name] = len(mine)
            want = secs / step
            self.assertTrue(abs(len(mine) - want) <= 0.10 * want,
                            "%s thread (M=%d): %d samples x %g s, its CPU time %.3f s (want %.0f +- 10%%)\n%s"
                            % (name, tid, len(mine), step, secs, want, where))
            gs = {s.g for s in mine}
            self.assertEqual(len(gs), 1, "samples of M=%d on goroutines %s" % (tid, gs))
            with_fn = [s for s in mine if fn in s.stack]
            self.assertGreaterEqual(len(with_fn), 0.9 * len(mine),
                                    "%s thread: %d of %d samples have %s in their stack; e.g. %s"
                                    % (name, len(with_fn), len(mine), fn,
                                       [s.stack for s in mine if fn not in s.stack][:3]))
        ratio = counts["long"] / max(counts["short"], 1)
        self.assertTrue(1.6 <= ratio <= 2.4, "long/short samples %s: ratio %.2f, want 2 +- 20%%" % (counts, ratio))
        # the waiter uses next to no CPU: at most a sample or two
        tid, secs = cpu["waiter"]
        self.assertLessEqual(len([s for s in samples if s.m == tid]), secs / step + 2)

    def mode_check_no_sample_while_waiting(self, mode, period):
        run, events = self.traced(mode, period)
        waits = waiting_intervals(events)
        bad = []
        for s in samples_of(events):
            for a, b in waits.get(s.g, ()):
                if a < s.time < b:
                    bad.append((s.g, s.time, a, b))
        self.assertEqual(bad, [], "samples inside Waiting intervals (g, time, from, to); %s" % run.trace)

    def mode_check_samples_on_running_goroutines(self, mode, period):
        run, events = self.traced(mode, period)
        created = gtlib.goroutine_ids(events)
        for s in samples_of(events):
            self.assertIn(s.g, created | {1}, "sample on an unknown goroutine: %r" % s)
            self.assertGreaterEqual(s.p, 0, "sample without a P: %r" % s)


class _SignalProgram:
    PROGRAM = None
    EXPECT_SAMPLES = True

    def runs(self, period):
        def go():
            self.require_tools()
            exe = gtlib.compile(self.PROGRAM)
            plain = gtlib.run_plain([exe])
            run = gtlib.run_traced([exe], gtlib.trace_path(self.PROGRAM.split(".")[0], period), period=period)
            return plain, run
        return self.cached(period, go)

    def period_check_same_output_and_status(self, period):
        plain, run = self.runs(period)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assertEqual((run.returncode, run.stdout), (plain.returncode, plain.stdout),
                         "traced:\n%s\n%s\nuntraced:\n%s" % (run.describe(), run.stdout, plain.stdout))

    def period_check_trace_has_samples(self, period):
        plain, run = self.runs(period)
        gtlib.validate(run.trace)
        self.assertTrue(samples_of(gtlib.parsed_events(run.trace)), "no CPU sample in %s" % run.trace)


@gtlib.expand
class SigprofProgramTest(_SignalProgram, gtlib.TracedTestCase):
    PROGRAM = "cpu_sigprof.c"

    def period_check_prof_ticks(self, period):
        plain, run = self.runs(period)
        self.assertIn("prof ok", run.stdout, run.describe())


@gtlib.expand
class SigmaskProgramTest(_SignalProgram, gtlib.TracedTestCase):
    PROGRAM = "cpu_sigmask.c"

    def period_check_masks_and_waits(self, period):
        plain, run = self.runs(period)
        self.assertIn("waiter: mask full, sigwaitinfo got 10", run.stdout, run.describe())
        self.assertIn("main: mask full, signalfd got 12", run.stdout, run.describe())

    def period_check_both_threads_sampled(self, period):
        plain, run = self.runs(period)
        gtlib.validate(run.trace)
        gs = {s.g for s in samples_of(gtlib.parsed_events(run.trace))}
        self.assertTrue({1, 2} <= gs, "threads with every signal blocked are sampled: samples on %s" % gs)


@gtlib.expand
class EintrProgramTest(_SignalProgram, gtlib.TracedTestCase):
    PROGRAM = "cpu_eintr.c"

    def period_check_no_eintr(self, period):
        plain, run = self.runs(period)
        self.assertIn("200 calls, 0 EINTR", run.stdout, run.describe())


@gtlib.expand
class GivebackProgramTest(_SignalProgram, gtlib.TracedTestCase):
    PROGRAM = "cpu_giveback.c"

    def period_check_program_gets_its_signal(self, period):
        plain, run = self.runs(period)
        self.assertIn("handler 1, sigwaitinfo got SIGRTMAX, foreign timer signals 0, own timer ok",
                      run.stdout, run.describe())

    def period_check_sampling_stops(self, period):
        plain, run = self.runs(period)
        gtlib.validate(run.trace)
        n = len(samples_of(gtlib.parsed_events(run.trace)))
        # 0.2 s of CPU before the program takes the signal: ~20 samples, none of the 0.3 s after
        self.assertTrue(10 <= n <= 26, "%d samples; want those of the first 0.2 s only; %s" % (n, run.trace))


if __name__ == "__main__":
    unittest.main()
