"""Trace real multi-threaded programs from Debian that nobody here wrote.

  * pigz -p 2 compressing a generated 20 MB file: the traced run must write
    exactly the bytes the untraced run writes (-n -T make pigz's output
    deterministic), the result must decompress to the input, and pigz -d
    must work traced too;
  * /usr/bin/python3 (Debian's interpreter, not a pyenv shim) running four
    threading.Thread workers that share a queue.Queue, a threading.Lock and a
    threading.Condition.

Every trace must pass both Go parsers and hold more than one goroutine.  A
program that is not installed is skipped, never failed.
"""
import os
import random
import unittest

import gtlib

PIGZ = "/usr/bin/pigz"
PYTHON = "/usr/bin/python3"       # Debian's; a pyenv shim would exec another binary

INPUT_SIZE = 20 * 1024 * 1024


def pigz_input():
    """A deterministic, moderately compressible 20 MB file (16-letter alphabet)."""
    gtlib._ensure_dirs()
    path = os.path.join(gtlib.WORK, "pigz-input.dat")
    if os.path.exists(path) and os.path.getsize(path) == INPUT_SIZE:
        return path
    raw = random.Random(20240501).randbytes(INPUT_SIZE)
    alphabet = b"etaoinshrdlucmfw"
    table = bytes(alphabet[i % 16] for i in range(256))
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(raw.translate(table))
    os.replace(tmp, path)
    return path


class _RealProgram(gtlib.TracedTestCase):
    EXE = None

    def setUp(self):
        if not os.access(self.EXE, os.X_OK):
            self.skipTest("%s is not installed" % self.EXE)

    def where(self, run):
        return "trace %s (period %s)" % (run.trace, run.period or "default")

    def assert_valid_with_goroutines(self, run, at_least=2):
        gtlib.validate(run.trace)
        ev = gtlib.parsed_events(run.trace)
        gs = gtlib.goroutine_ids(ev)
        self.assertGreaterEqual(len(gs), at_least, "goroutines %s in %s" % (sorted(gs), self.where(run)))
        created = gtlib.goroutine_creations(ev)
        self.assertGreaterEqual(len(created), at_least - 1,
                                "GoCreate events: %d in %s" % (len(created), self.where(run)))
        return ev


@gtlib.expand
class PigzTest(_RealProgram):
    EXE = PIGZ
    FLAGS = ["-p", "2", "-n", "-T", "-c"]

    def plain(self):
        def go():
            r = gtlib.run_plain([PIGZ] + self.FLAGS + [pigz_input()], binary=True, timeout=120)
            if r.returncode != 0 or not r.stdout:
                raise AssertionError("untraced pigz failed:\n" + r.describe())
            return r
        return self.cached(("plain",), go)

    def traced(self, period):
        def go():
            self.require_tools()
            return gtlib.run_traced([PIGZ] + self.FLAGS + [pigz_input()], gtlib.trace_path("pigz", period),
                                    period=period, binary=True, timeout=180)
        return self.cached(("traced", period), go)

    def period_check_compressed_bytes_equal_untraced(self, period):
        plain, run = self.plain(), self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assertEqual(len(run.stdout), len(plain.stdout), "compressed size differs; " + run.describe())
        self.assertTrue(run.stdout == plain.stdout,
                        "compressed bytes differ (sha256 %s traced vs %s untraced); %s"
                        % (gtlib.sha256(run.stdout)[:16], gtlib.sha256(plain.stdout)[:16], run.describe()))

    def period_check_output_round_trips(self, period):
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        d = gtlib.run_plain([PIGZ, "-d", "-c"], stdin=run.stdout, binary=True, timeout=120)
        self.assertEqual(d.returncode, 0, d.describe())
        with open(pigz_input(), "rb") as f:
            data = f.read()
        self.assertTrue(d.stdout == data, "pigz -d of the traced output is not the input (%d vs %d bytes)"
                        % (len(d.stdout), len(data)))

    def period_check_trace_valid_with_threads(self, period):
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assert_valid_with_goroutines(run, at_least=3)

    def period_check_traced_decompression(self, period):
        self.require_tools()
        compressed = self.plain().stdout
        run = gtlib.run_traced([PIGZ, "-d", "-c"], gtlib.trace_path("pigz-d", period), period=period,
                               stdin=compressed, binary=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.describe())
        with open(pigz_input(), "rb") as f:
            self.assertTrue(run.stdout == f.read(), "traced pigz -d output is not the input; " + run.describe())
        gtlib.validate(run.trace)


PY_SCRIPT = r'''
import queue
import threading

N_WORKERS = 4
N_JOBS = 400

jobs = queue.Queue(maxsize=8)
lock = threading.Lock()
done = threading.Condition()
results = {"sum": 0, "count": 0}
finished = [0]


def work(n):
    # a little CPU so that the workers contend for the GIL
    return sum(i * i for i in range(n % 97 + 50))


def worker(idx):
    while True:
        n = jobs.get()
        if n is None:
            jobs.task_done()
            break
        r = work(n)
        with lock:
            results["sum"] += r
            results["count"] += 1
        jobs.task_done()
    with done:
        finished[0] += 1
        done.notify_all()


threads = [threading.Thread(target=worker, args=(i,), name="worker-%d" % i) for i in range(N_WORKERS)]
for t in threads:
    t.start()
for n in range(N_JOBS):
    jobs.put(n)
for _ in threads:
    jobs.put(None)
with done:
    while finished[0] < N_WORKERS:
        done.wait(timeout=10)
jobs.join()
for t in threads:
    t.join()
print("jobs", results["count"])
print("sum", results["sum"])
print("workers", finished[0])
'''


@gtlib.expand
class PythonThreadsTest(_RealProgram):
    EXE = PYTHON

    def argv(self):
        return [PYTHON, "-I", "-c", PY_SCRIPT]

    def plain(self):
        def go():
            r = gtlib.run_plain(self.argv(), timeout=120)
            if r.returncode != 0 or "jobs 400" not in r.stdout:
                raise AssertionError("untraced python3 failed:\n%s\n%s" % (r.describe(), r.stdout))
            return r
        return self.cached(("plain",), go)

    def traced(self, period):
        def go():
            self.require_tools()
            return gtlib.run_traced(self.argv(), gtlib.trace_path("python3-threads", period),
                                    period=period, timeout=180)
        return self.cached(("traced", period), go)

    def period_check_output_and_status_equal_untraced(self, period):
        plain, run = self.plain(), self.traced(period)
        self.assertEqual((run.returncode, run.stdout), (plain.returncode, plain.stdout), run.describe())

    def period_check_trace_valid_with_threads(self, period):
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assert_valid_with_goroutines(run, at_least=5)

    def period_check_worker_threads_wait(self, period):
        # queue.get / Condition.wait / the GIL block in sem_wait or
        # pthread_cond_*: the workers must show sync blocks.
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        gtlib.validate(run.trace)
        ev = gtlib.parsed_events(run.trace)
        blocked = {b.goid for b in gtlib.blocks(ev, "sync")} - {1}
        self.assertTrue(blocked, "no worker goroutine ever blocked with a sync reason in %s" % self.where(run))


if __name__ == "__main__":
    unittest.main()
