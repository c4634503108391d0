"""The live-heap snapshot (docs/heap.md, "The live-heap snapshot"): at each
generation's start the library restates every live recorded object as
HeapObject(id, type), in batches of M = GT_SNAPSHOT_M (encoder/wire.h).

test/programs/heap_keep.c allocates 3,000 objects of 96 bytes in keep_fn at
the start and keeps them until exit, while churn_fn allocates and frees
64-byte blocks for a while, so the run spans many 50 ms generations:

  * every allocation recorded (GOTRACE_MALLOC=all): the last generation of
    the trace (Go 1.27's parse, split at its Sync events) restates the
    3,000 kept objects as HeapObject events — every object the earlier
    generations' HeapObjectAlloc/HeapObjectFree leave live, with the type
    ids of that generation; every generation after the first restates
    them; both Go parsers accept the trace;
  * sampled (the default): the last generation restates exactly the live
    sampled objects;
  * a flight-recorder snapshot taken late in the run (the program raises
    the snapshot signal after a second of churn; the recorder keeps
    200 ms), whose generations start long after keep_fn ran, is reported
    by `gotrace heap` with the 3,000 objects live at the window's start,
    288,000 bytes at keep_fn, marked as allocated before the window, and
    not among the window's allocations; `gotrace heap -pprof` has their
    inuse_space at keep_fn (read back by `go tool pprof -raw`).
"""
import os
import re
import signal
import subprocess
import unittest

import gtlib

KEEP, SIZE = 3000, 96
PERIOD = "50ms"


def gotrace(args, timeout=120):
    p = subprocess.run([gtlib.GOTRACE] + list(args), env=gtlib.clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


_ARG = re.compile(r"(\w+)=Value\{Uint64\((\d+)\)\}")


def generations(trace):
    """The heap events of each generation of Go 1.27's parse, in order:
    a list of lists of (name, {arg: value})."""
    gens = []
    for line in gtlib.parsed_text(trace).splitlines():
        if " Sync " in line and line.startswith("M="):
            gens.append([])
            continue
        m = re.search(r" Name=(HeapObject\w*) Args=\[(.*)\]", line)
        if m and gens:
            gens[-1].append((m.group(1), dict((k, int(v)) for k, v in _ARG.findall(m.group(2)))))
    # The reader ends the trace with one more Sync (internal/trace/reader.go).
    return gens[:-1]


class HeapSnapshotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.problem = gtlib.library_problem()
        if not cls.problem:
            cls.program = gtlib.compile("heap_keep.c", extra=["-fno-builtin"])

    def setUp(self):
        if self.problem:
            self.fail(self.problem)

    def run_keep(self, name, malloc, args=("600",), extra=None):
        trace = gtlib.trace_path(name)
        env = {"GOTRACE_MALLOC": malloc}
        env.update(extra or {})
        run = gtlib.run_traced([self.program] + list(args), trace, env_extra=env, period=PERIOD)
        self.assertEqual(run.returncode, 0, run.describe())
        plain = gtlib.run_plain([self.program] + list(args))
        self.assertEqual(run.stdout, plain.stdout, run.describe())
        return run

    def check_last_restates_live(self, trace):
        """Replays the HeapObjectAlloc/Free of every generation but the
        last; the last one's HeapObject ids must be those live then — but
        for objects freed, or allocated, in the last generation between its
        switch and the snapshot's copy (docs/heap.md: either way is right).
        Returns (ids restated that were live, the generations)."""
        gtlib.validate(trace)
        gens = generations(trace)
        self.assertGreaterEqual(len(gens), 4, "want a multi-generation trace")
        live = set()
        for g in gens[:-1]:
            for name, a in g:
                if name == "HeapObjectAlloc":
                    live.add(a["id"])
                elif name == "HeapObjectFree":
                    live.discard(a["id"])
        restated = [a["id"] for name, a in gens[-1] if name == "HeapObject"]
        self.assertEqual(len(restated), len(set(restated)), "an object restated twice")
        freed = set(a["id"] for name, a in gens[-1] if name == "HeapObjectFree")
        allocated = set(a["id"] for name, a in gens[-1] if name == "HeapObjectAlloc")
        missing = live - set(restated) - freed
        self.assertEqual(missing, set(), "live objects not restated by the last generation's snapshot")
        extra = set(restated) - live - allocated
        self.assertEqual(extra, set(), "objects restated that were not live")
        return live & set(restated), gens

    def test_kept_objects_are_restated_in_the_last_generation(self):
        run = self.run_keep("heap-snapshot-all", "all")
        live, gens = self.check_last_restates_live(run.trace)
        # The kept objects and, at most, a few of the C library's (stdio's
        # buffer).
        self.assertGreaterEqual(len(live), KEEP)
        self.assertLessEqual(len(live), KEEP + 8)
        # Every generation after the first restates them all.
        for i, g in enumerate(gens[1:], 2):
            n = sum(1 for name, _ in g if name == "HeapObject")
            self.assertGreaterEqual(n, KEEP, "generation %d of %d restates %d objects" % (i, len(gens), n))
        # The snapshot's batches are on M = GT_SNAPSHOT_M (2^62).
        text = gtlib.parsed_text(run.trace)
        ms = set(re.findall(r"^M=(-?\d+) .* Name=HeapObject Args", text, re.M))
        self.assertEqual(ms, {str(1 << 62)})
        # `gotrace heap` on the whole trace: keep_fn allocated them inside
        # the window; nothing is from before it.
        rc, out, err = gotrace(["heap", run.trace])
        self.assertEqual(rc, 0, err)
        self.assertNotIn("live at start", out)
        self.assertIn("keep_fn", out)

    def test_sampled_snapshot_restates_the_live_samples(self):
        run = self.run_keep("heap-snapshot-sampled", "sample")
        live, _ = self.check_last_restates_live(run.trace)
        # p(96 B) at a 2 KiB mean: 4.6 %, ~137 of the 3,000 kept objects.
        self.assertGreaterEqual(len(live), 50)
        self.assertLess(len(live), KEEP / 4)
        self.assertIn("gotrace.heap sample_bytes=2048", open(run.trace, "rb").read().decode("latin-1"))

    def flight_snapshot(self, name, malloc):
        extra = {"GOTRACE_FLIGHT": "200ms", "GOTRACE_FLIGHT_SIGNAL": "USR2"}
        run = self.run_keep(name, malloc, args=("1000", str(int(signal.SIGUSR2))), extra=extra)
        snap = run.trace + ".snap1"
        self.assertTrue(os.path.exists(snap), run.describe())
        gtlib.validate(snap)
        return snap

    def test_flight_snapshot_reports_objects_from_before_the_window(self):
        snap = self.flight_snapshot("heap-snapshot-flight", "all")
        gens = generations(snap)
        allocated = set(a["id"] for g in gens for name, a in g if name == "HeapObjectAlloc")
        first = set(a["id"] for name, a in gens[0] if name == "HeapObject")
        self.assertGreaterEqual(len(first - allocated), KEEP, "the window's first snapshot lacks the kept objects")

        rc, out, err = gotrace(["heap", snap])
        self.assertEqual(rc, 0, err)
        m = re.search(r"^\s*live at start\s+(\d+)\s+(\d+)", out, re.M)
        self.assertIsNotNone(m, out)
        self.assertGreaterEqual(int(m.group(1)), KEEP, out)
        self.assertGreaterEqual(int(m.group(2)), KEEP * SIZE, out)
        leaks = out.split("Live at the end")[1].split("Top allocation sites")[0]
        m = re.search(r"^\s+(\d+)\s+(\d+)\s+malloc, 96 B each\n(.*)\n\s+keep_fn\s", leaks, re.M)
        self.assertIsNotNone(m, out)
        self.assertEqual((int(m.group(1)), int(m.group(2))), (KEEP * SIZE, KEEP), out)
        self.assertIn("%d of them, %d bytes, allocated before the window" % (KEEP, KEEP * SIZE), m.group(3))
        # Not allocated in the window.
        allocs = out.split("Top allocation sites by bytes allocated")[1]
        self.assertNotIn("keep_fn", allocs, out)

        prof = gtlib.trace_path("heap-snapshot-flight") + ".pb.gz"
        rc, out, err = gotrace(["heap", "-pprof", prof, snap])
        self.assertEqual(rc, 0, err)
        go = gtlib.GO_NEW
        p = subprocess.run([go, "tool", "pprof", "-raw", prof], env=gtlib.go_env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        raw = p.stdout.decode("utf-8", "replace")
        self.assertIn("keep_fn", raw)
        self.assertRegex(raw, r"inuse_space")

    def test_sampled_flight_snapshot_estimates_the_kept_bytes(self):
        snap = self.flight_snapshot("heap-snapshot-flight-sampled", "sample")
        rc, out, err = gotrace(["heap", snap])
        self.assertEqual(rc, 0, err)
        leaks = out.split("Live at the end")[1].split("Top allocation sites")[0]
        m = re.search(r"^\s+(\d+)\s+(\d+)\s+(\S+)\s+malloc, 96 B each\n(.*)\n\s+keep_fn\s", leaks, re.M)
        self.assertIsNotNone(m, out)
        # ~137 samples: a relative standard error of ~8.5 %; 4 s.e.
        est = int(m.group(1))
        self.assertLess(abs(est - KEEP * SIZE) / (KEEP * SIZE), 0.34, out)
        self.assertIn("allocated before the window", m.group(4))


if __name__ == "__main__":
    unittest.main()
