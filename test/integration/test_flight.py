"""The flight recorder (GOTRACE_FLIGHT): only the most recent generations
are kept in memory and written, as a self-contained trace both Go parsers
accept, on the snapshot signal, on a crash and at exit; the program runs as
if untraced meanwhile (output, exit status, the length of its sleeps)."""
import glob
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


def span_seconds(trace):
    """Seconds between the first and the last event the parser reports."""
    times = [e.time for e in gtlib.parsed_events(trace) if e.time > 0]
    return (max(times) - min(times)) / 1e9


def generations(trace):
    return sum(1 for l in gtlib.parsed_text(trace).splitlines() if " Sync " in l)


class FlightRecorderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = gtlib.compile("flight")

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gotrace-flight-")
        self.out = os.path.join(self.dir, "f.trace")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, args, flight, period="100ms", extra=None):
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": self.out, "GOTRACE_FLIGHT": flight,
                    "GOTRACE_PERIOD": period})
        env.update(extra or {})
        return subprocess.Popen([self.binary] + args, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, universal_newlines=True)

    def finish(self, p, timeout=60):
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err

    def test_snapshot_signal_writes_the_recent_window(self):
        p = self.start(["run", "4000"], "1s")
        time.sleep(2.0)
        p.send_signal(signal.SIGUSR2)
        time.sleep(1.0)
        p.send_signal(signal.SIGUSR2)
        rc, out, err = self.finish(p)
        plain = gtlib.run_plain([self.binary, "run", "4000"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, plain.stdout, err)
        self.assertIn("slept whole", out)
        snaps = sorted(glob.glob(self.out + ".snap*"))
        self.assertEqual([os.path.basename(s) for s in snaps], ["f.trace.snap1", "f.trace.snap2"], err)
        lines = gotrace_lines(err)
        self.assertEqual(len(lines), 3, err)
        for path in snaps + [self.out]:
            gtlib.validate(path)
            self.assertTrue(any(path in l for l in lines), (path, err))
            # The window is 1 s, kept in whole 100 ms generations: the
            # trace covers about a second, never the whole 4 s run.
            span = span_seconds(path)
            self.assertGreaterEqual(span, 0.8, path)
            self.assertLessEqual(span, 1.4, path)
            self.assertGreaterEqual(generations(path), 9, path)

    def test_window_at_exit_and_every_thread_visible(self):
        p = self.start(["run", "2500"], "500ms", period="50ms")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 0, err)
        gtlib.validate(self.out)
        self.assertLessEqual(span_seconds(self.out), 0.8)
        events = gtlib.parsed_events(self.out)
        # Workers started long before the window: they appear through the
        # status events each generation re-states, and their blocking shows.
        self.assertGreaterEqual(len(gtlib.goroutine_ids(events)), 4, "main and three workers")
        self.assertTrue(gtlib.blocks(events, "sync"), "mutex waits in the window")

    def test_size_cap_bounds_the_file(self):
        p = self.start(["heavy", "3000"], "2MB", period="50ms")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 0, err)
        gtlib.validate(self.out)
        size = os.path.getsize(self.out)
        # Generations end early at a quarter of the cap, so the kept ones
        # fill most of it and never exceed it (the header aside).
        self.assertLessEqual(size, 2 * 1024 * 1024 + 16, size)
        self.assertGreater(size, 1024 * 1024, size)

    def test_abort_writes_the_window_and_dies_the_same(self):
        p = self.start(["abort", "1500"], "10s")
        rc, out, err = self.finish(p)
        self.assertEqual(rc, -signal.SIGABRT, err)
        gtlib.validate(self.out)
        self.assertGreaterEqual(generations(self.out), 5)
        self.assertTrue(any("flight recorder" in l and self.out in l for l in gotrace_lines(err)), err)

    def test_program_with_its_own_handler_keeps_it(self):
        """The program's own USR2 handler runs, and the signal still takes
        a snapshot (the program raises it once at start, we send one)."""
        p = self.start(["own", "2000"], "5s")
        time.sleep(1.0)
        p.send_signal(signal.SIGUSR2)
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.count("own handler ran"), 2, out)
        lines = gotrace_lines(err)
        self.assertFalse(any("handler" in l for l in lines), err)
        snaps = sorted(glob.glob(self.out + ".snap*"))
        self.assertEqual([os.path.basename(s) for s in snaps], ["f.trace.snap1", "f.trace.snap2"], err)
        for path in snaps + [self.out]:
            gtlib.validate(path)

    def test_other_signal_chosen(self):
        p = self.start(["run", "2000"], "5s", extra={"GOTRACE_FLIGHT_SIGNAL": "RTMIN+3"})
        time.sleep(1.0)
        os.kill(p.pid, signal.SIGRTMIN + 3)
        rc, out, err = self.finish(p)
        self.assertEqual(rc, 0, err)
        self.assertIn("slept whole", out)
        gtlib.validate(self.out + ".snap1")

    def test_fork_children_keep_their_own_window(self):
        robust = gtlib.compile("robust")
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": self.out, "GOTRACE_FLIGHT": "5s"})
        plain = gtlib.run_plain([robust, "fork"])
        r = subprocess.run([robust, "fork"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
        self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout), r.stderr)
        files = sorted(glob.glob(self.out + "*"))
        self.assertEqual(len(files), 4, files)  # the parent and three children
        for f in files:
            gtlib.validate(f)

    def test_gotrace_run_flag_and_forwarded_signal(self):
        env = gtlib.clean_env()
        p = subprocess.Popen([gtlib.GOTRACE, "run", "-F", "2s", "-p", "100ms", "-o", self.out, "--",
                              self.binary, "run", "2000"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        time.sleep(1.0)
        p.send_signal(signal.SIGUSR2)  # to gotrace itself: passed on to the program
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("slept whole", out)
        gtlib.validate(self.out + ".snap1")
        gtlib.validate(self.out)


if __name__ == "__main__":
    unittest.main()
