"""Signals: a traced program dies by the same signal as untraced and keeps
everything recorded before it; it reads back exactly the dispositions it
set; every wrapped call returns what glibc returns, interrupted or not; its
own SIGPROF profiler keeps its samples; the flight recorder's snapshot
signal is one the kernel never sends, and a program's own handler for it
still runs. GOTRACE_CLOCK's bad value is named like every other."""
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import gtlib


def gotrace_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("gotrace:")]


def first_difference(a, b):
    """The first differing line of two outputs, for a failure message."""
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "(no line)"
        y = lb[i] if i < len(lb) else "(no line)"
        if x != y:
            return "line %d:\n  untraced: %s\n  traced:   %s" % (i + 1, x, y)
    return "no difference"


# Signals whose default action ends the process, as signals_death.c makes
# them come. XCPU burns a second of CPU.
DEATHS = ["PIPE", "ALRM", "USR1", "USR2", "VTALRM", "PROF", "XCPU", "XFSZ", "IO", "PWR", "RTMIN+2", "TERM"]


def signal_number(name):
    if name.startswith("RTMIN+"):
        return signal.SIGRTMIN + int(name[6:])
    return getattr(signal, "SIG" + name)


class Runner:
    """Runs signals_death SIGNAL MODE untraced or traced, the way that
    signal comes: into `head -c1` for PIPE, killed from outside for TERM."""

    def __init__(self, binary, tmpdir):
        self.binary = binary
        self.tmpdir = tmpdir

    def env(self, trace=None, extra=None):
        env = gtlib.clean_env()
        if trace:
            env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace})
        env.update(extra or {})
        return env

    def run(self, name, mode, trace=None, extra=None, timeout=60):
        """(returncode, stderr)."""
        argv = [self.binary, name, mode, os.path.join(self.tmpdir, "data.bin")]
        env = self.env(trace, extra)
        if name == "PIPE":
            p1 = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            p2 = subprocess.Popen(["head", "-c1"], stdin=p1.stdout, stdout=subprocess.DEVNULL)
            p1.stdout.close()
            p2.wait(timeout=timeout)
            err = p1.stderr.read().decode("utf-8", "replace")
            p1.wait(timeout=timeout)
            return p1.returncode, err
        if name == "TERM":
            p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True)
            line = p.stdout.readline()
            if line.strip() != "ready":
                p.kill()
                p.communicate()
                raise AssertionError("signals_death TERM did not say ready: %r" % line)
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=timeout)
            return p.returncode, err
        p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=timeout)
        return p.returncode, p.stderr


def _death_check(name, mode):
    def test(self):
        self.require_tools()
        sig = signal_number(name)
        rc, err = self.runner.run(name, mode)
        self.assertEqual(rc, -sig, "untraced signals_death %s %s: %s" % (name, mode, err))
        trace = gtlib.trace_path("signals_death-%s-%s" % (name.replace("+", "_"), mode))
        if os.path.exists(trace):
            os.unlink(trace)
        # A period longer than the run: only the death can write the trace.
        rc, err = self.runner.run(name, mode, trace=trace, extra={"GOTRACE_PERIOD": "1m"})
        self.assertEqual(rc, -sig, "traced signals_death %s %s died otherwise (%s): %s"
                         % (name, mode, rc, err))
        self.assertEqual(gotrace_lines(err), [], err)
        gtlib.validate(trace)
        events = gtlib.parsed_events(trace)
        # Main and the three contending workers, and their mutex waits,
        # all written before the signal.
        self.assertGreaterEqual(len(gtlib.goroutine_ids(events)), 4, trace)
        self.assertTrue(gtlib.blocks(events, "sync.mutex"), "no mutex wait in %s" % trace)
        creations = gtlib.goroutine_creations(events)
        starts = {g: e for g, e in creations.items() if e.stack and "main" in e.stack}
        self.assertGreaterEqual(len(starts), 3, "workers created by main: %s" % trace)
        gtlib.discard(trace)
    test.__name__ = "test_death_%s_%s" % (name.replace("+", "_").lower(), mode)
    test.__doc__ = "dies by SIG%s as untraced (%s threads) and keeps its trace" % (name, mode)
    return test


class DeathTest(gtlib.TracedTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.binary = gtlib.compile("signals_death")
        cls.tmpdir = tempfile.mkdtemp(prefix="gotrace-signals-")
        cls.runner = Runner(cls.binary, cls.tmpdir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmpdir, ignore_errors=True)

    def shell_status(self, script, trace=None):
        env = self.runner.env(trace)
        p = subprocess.run(["bash", "-c", script, "sh", self.binary], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        return p.stdout.strip()

    def test_shell_sees_128_plus_n(self):
        self.require_tools()
        for script, want in (('"$1" ALRM; echo $?', "142"),
                             ('"$1" PIPE | head -c1 >/dev/null; echo ${PIPESTATUS[0]}', "141"),
                             ('"$1" USR1; echo $?', "138")):
            trace = gtlib.trace_path("signals_shell")
            if os.path.exists(trace):
                os.unlink(trace)
            self.assertEqual(self.shell_status(script), want, script)
            self.assertEqual(self.shell_status(script, trace), want, script)
            gtlib.validate(trace)

    def test_death_with_short_period(self):
        """Many generations before the signal: all of them and the last."""
        self.require_tools()
        trace = gtlib.trace_path("signals_death-alrm-5ms")
        rc, err = self.runner.run("ALRM", "alive", trace=trace, extra={"GOTRACE_PERIOD": "5ms"})
        self.assertEqual(rc, -signal.SIGALRM, err)
        gtlib.validate(trace)
        self.assertTrue(gtlib.blocks(gtlib.parsed_events(trace), "sync.mutex"), trace)


for _name in DEATHS:
    for _mode in ("joined", "alive"):
        _t = _death_check(_name, _mode)
        setattr(DeathTest, _t.__name__, _t)


class SameAsUntracedTest(gtlib.TracedTestCase):
    """Programs whose output is the same traced and untraced, line by line."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmpdir = tempfile.mkdtemp(prefix="gotrace-signals-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmpdir, ignore_errors=True)

    def compare(self, program, args=(), extra=None, ignore=(), tag=""):
        """Runs untraced and traced with the given signals ignored from the
        start (inherited SIG_IGN), compares stdout and the exit status, and
        returns the traced stderr and the trace path."""
        binary = gtlib.compile(program)

        def preexec():
            for s in ignore:
                signal.signal(s, signal.SIG_IGN)

        argv = [binary] + list(args)
        plain = subprocess.run(argv, env=gtlib.clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=120, preexec_fn=preexec)
        trace = gtlib.trace_path("%s%s" % (program, tag))
        if os.path.exists(trace):
            os.unlink(trace)
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace})
        env.update(extra or {})
        traced = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                universal_newlines=True, timeout=120, preexec_fn=preexec)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertEqual(traced.returncode, plain.returncode, traced.stderr)
        self.assertTrue(plain.stdout.endswith("done\n"), plain.stdout[-500:])
        self.assertEqual(traced.stdout, plain.stdout,
                         "%s %s traced (%s) differs: %s" % (program, " ".join(args), extra or {},
                                                           first_difference(plain.stdout, traced.stdout)))
        return traced.stderr, trace

    def test_dispositions_read_back(self):
        self.require_tools()
        err, trace = self.compare("signals_dispositions")
        self.assertEqual(gotrace_lines(err), [], err)
        gtlib.validate(trace)

    def test_dispositions_inherited_ignored(self):
        self.require_tools()
        err, trace = self.compare("signals_dispositions", ignore=(signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE),
                                  tag="-ignored")
        gtlib.validate(trace)

    def test_dispositions_flight_recorder(self):
        """USR2 is the snapshot signal and the program sets it every way
        (a SA_RESETHAND handler it raises included): it reads back what it
        set, its handler runs, and a snapshot is written for the raise."""
        self.require_tools()
        extra = {"GOTRACE_FLIGHT": "5s", "GOTRACE_OUT": os.path.join(self.tmpdir, "disp-flight.trace")}
        err, _ = self.compare("signals_dispositions", extra=extra, ignore=(signal.SIGUSR1,), tag="-flight")
        out = extra["GOTRACE_OUT"]
        self.assertTrue(os.path.exists(out + ".snap1"), err)
        gtlib.validate(out + ".snap1")
        gtlib.validate(out)

    def test_results_default_period(self):
        self.require_tools()
        err, trace = self.compare("signals_results")
        self.assertEqual(gotrace_lines(err), [], err)
        gtlib.validate(trace)

    def test_results_short_period(self):
        self.require_tools()
        err, trace = self.compare("signals_results", extra={"GOTRACE_PERIOD": "5ms"}, tag="-5ms")
        gtlib.validate(trace)

    def test_results_flight_recorder(self):
        self.require_tools()
        extra = {"GOTRACE_FLIGHT": "2s", "GOTRACE_PERIOD": "100ms"}
        err, trace = self.compare("signals_results", extra=extra, tag="-flight")
        gtlib.validate(trace)

    def test_dispositions_changed_from_every_side(self):
        """Threads, a fast timer's handler and fork children change
        dispositions at once: no hang, the same final view, valid traces."""
        self.require_tools()
        out = os.path.join(self.tmpdir, "stress", "s.trace")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        err, _ = self.compare("signals_stress", extra={"GOTRACE_OUT": out, "GOTRACE_PERIOD": "5ms"},
                              tag="-stress")
        gtlib.validate(out)
        shutil.rmtree(os.path.dirname(out), ignore_errors=True)

    def test_own_sigprof_profiler(self):
        """setitimer(ITIMER_PROF) + a handler counting samples: as many per
        CPU second traced as untraced, the computation's result unchanged."""
        self.require_tools()
        rates = []
        for traced in (False, True):
            binary = gtlib.compile("signals_prof")
            env = gtlib.clean_env()
            trace = gtlib.trace_path("signals_prof")
            if traced:
                env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace})
            p = subprocess.run([binary], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(p.stdout.startswith("hash 3c0c1822e2e97383"), p.stdout)
            line = [l for l in p.stderr.splitlines() if l.startswith("samples ")]
            self.assertEqual(len(line), 1, p.stderr)
            samples, cpu = int(line[0].split()[1]), float(line[0].split()[3])
            self.assertGreaterEqual(samples, 40, p.stderr)
            rates.append(samples / cpu)
            if traced:
                gtlib.validate(trace)
        plain, traced = rates
        # 5 ms timer: about 200 samples per CPU second either way.
        self.assertGreater(traced, plain * 0.65, rates)
        self.assertLess(traced, plain * 1.5, rates)


class FlightSignalTest(gtlib.TracedTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.binary = gtlib.compile("signals_death")
        cls.tmpdir = tempfile.mkdtemp(prefix="gotrace-signals-")
        cls.runner = Runner(cls.binary, cls.tmpdir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmpdir, ignore_errors=True)

    def test_pipe_is_refused_and_still_ends_the_program(self):
        self.require_tools()
        trace = os.path.join(self.tmpdir, "pipe-flight.trace")
        rc, err = self.runner.run("PIPE", "joined", trace=trace,
                                  extra={"GOTRACE_FLIGHT": "5s", "GOTRACE_FLIGHT_SIGNAL": "PIPE"})
        self.assertEqual(rc, -signal.SIGPIPE, err)
        bad = [l for l in gotrace_lines(err) if "GOTRACE_FLIGHT_SIGNAL" in l]
        self.assertEqual(bad, ['gotrace: GOTRACE_FLIGHT_SIGNAL="PIPE" is not USR1, USR2, RTMIN+N or RTMAX-N '
                               '(N from 0 to 30), their number (10, 12, 34 to 64), or none; using USR2'], err)
        gtlib.validate(trace)

    def test_refused_values(self):
        self.require_tools()
        for value in ("ALRM", "TERM", "0", "9", "CHLD", "33"):
            trace = os.path.join(self.tmpdir, "refused.trace")
            rc, err = self.runner.run("USR1", "joined", trace=trace,
                                      extra={"GOTRACE_FLIGHT": "5s", "GOTRACE_FLIGHT_SIGNAL": value})
            self.assertEqual(rc, -signal.SIGUSR1, err)
            lines = gotrace_lines(err)
            self.assertEqual(len([l for l in lines if "GOTRACE_FLIGHT_SIGNAL=\"%s\" is not" % value in l]), 1, err)

    def test_usr1_ends_the_program_when_usr2_takes_snapshots(self):
        self.require_tools()
        trace = os.path.join(self.tmpdir, "usr1-flight.trace")
        rc, err = self.runner.run("USR1", "alive", trace=trace, extra={"GOTRACE_FLIGHT": "5s"})
        self.assertEqual(rc, -signal.SIGUSR1, err)
        gtlib.validate(trace)
        self.assertTrue(gtlib.blocks(gtlib.parsed_events(trace), "sync.mutex"), trace)

    def test_sleeps_resume_after_snapshots(self):
        """Snapshot signals every 30 ms while the sleep family runs (some
        sleeps also cut short by the program's own SIGALRM): every result
        is what it is untraced, and every snapshot is a valid trace."""
        self.require_tools()
        binary = gtlib.compile("signals_results")
        plain = subprocess.run([binary, "sleeps"], env=gtlib.clean_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        out = os.path.join(self.tmpdir, "snaps", "s.trace")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        env = self.runner.env(out, {"GOTRACE_FLIGHT": "5s", "GOTRACE_PERIOD": "50ms"})
        p = subprocess.Popen([binary, "sleeps"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        first = p.stdout.readline()  # main runs: the tracer took over
        sent = 0
        while p.poll() is None and sent < 200:
            try:
                p.send_signal(signal.SIGUSR2)
                sent += 1
            except ProcessLookupError:
                break
            time.sleep(0.03)
        rest, err = p.communicate(timeout=60)
        stdout = first + rest
        self.assertEqual(p.returncode, 0, err)
        self.assertGreaterEqual(sent, 20)
        self.assertEqual(stdout, plain.stdout, first_difference(plain.stdout, stdout))
        snaps = [f for f in os.listdir(os.path.dirname(out)) if ".snap" in f]
        self.assertGreaterEqual(len(snaps), 10, err)
        for f in sorted(snaps)[:3] + [os.path.basename(out)]:
            gtlib.validate(os.path.join(os.path.dirname(out), f))
        shutil.rmtree(os.path.dirname(out), ignore_errors=True)

    def test_realtime_snapshot_signal_by_rtmax(self):
        """RTMAX-28 (= RTMIN+2) takes snapshots: sent to the program, it
        writes OUT.snap1 and the program goes on until SIGTERM ends it."""
        self.require_tools()
        trace = os.path.join(self.tmpdir, "rt-flight.trace")
        env = self.runner.env(trace, {"GOTRACE_FLIGHT": "5s", "GOTRACE_FLIGHT_SIGNAL": "RTMAX-28",
                                      "GOTRACE_PERIOD": "50ms"})
        p = subprocess.Popen([self.binary, "TERM", "alive"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        try:
            self.assertEqual(p.stdout.readline().strip(), "ready")
            p.send_signal(signal.SIGRTMIN + 2)
            deadline = time.monotonic() + 20
            while not os.path.exists(trace + ".snap1") and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.2)
            self.assertIsNone(p.poll(), "RTMIN+2 ended the program")
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, -signal.SIGTERM, err)
        self.assertEqual([l for l in gotrace_lines(err) if "is not" in l], [], err)
        gtlib.validate(trace + ".snap1")
        gtlib.validate(trace)


class ClockOptionTest(unittest.TestCase):
    def test_bad_clock_value_is_named_once(self):
        problem = gtlib.library_problem() or gtlib.go_problem()
        if problem:
            self.fail(problem)
        binary = gtlib.compile("signals_death")
        trace = gtlib.trace_path("signals_clock")
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace, "GOTRACE_CLOCK": "garbage"})
        p = subprocess.run([binary, "USR1"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
        self.assertEqual(p.returncode, -signal.SIGUSR1, p.stderr)
        self.assertEqual(gotrace_lines(p.stderr),
                         ['gotrace: GOTRACE_CLOCK="garbage" is not auto or monotonic; using auto'], p.stderr)
        gtlib.validate(trace)

    def test_monotonic_clock_traces(self):
        problem = gtlib.library_problem() or gtlib.go_problem()
        if problem:
            self.fail(problem)
        binary = gtlib.compile("signals_death")
        trace = gtlib.trace_path("signals_clock_mono")
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace, "GOTRACE_CLOCK": "monotonic"})
        p = subprocess.run([binary, "USR2"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
        self.assertEqual(p.returncode, -signal.SIGUSR2, p.stderr)
        self.assertEqual(gotrace_lines(p.stderr), [], p.stderr)
        gtlib.validate(trace)

    def test_help_shows_the_clock(self):
        p = subprocess.run([gtlib.GOTRACE, "help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, env=gtlib.clean_env(), timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("GOTRACE_CLOCK", p.stdout)
        self.assertIn("monotonic", p.stdout)
        self.assertIn("RTMAX-N", p.stdout)


if __name__ == "__main__":
    unittest.main()
