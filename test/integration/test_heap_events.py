"""Heap events from the malloc family (docs/heap.md), judged from the outside:

  * a program calling every allocation function prints and exits exactly as
    untraced, in both period modes, and both Go parsers accept its trace,
    which holds HeapObjectAlloc/Free events and the HeapAlloc metric;
  * GOTRACE_MALLOC=0 turns heap events off;
  * a program whose allocator is jemalloc (a shared library it links) is traced
    the same way: its allocations are recorded and nothing breaks;
  * sampled recording (the default, GOTRACE_MALLOC=sample: one allocation per
    2 KiB on average, by bytes): both parsers accept the trace; the number of
    recorded allocations is what a Poisson process over the bytes gives
    (sum of 1 - exp(-size/M) over the allocations); only frees of recorded
    objects are recorded, on whatever thread they happen; a deterministic
    program records the same allocations and frees run after run; every
    generation names the mean (`gotrace.heap sample_bytes=2048`); a forked
    child's trace has no free of an object allocated in the parent.
"""
import math
import os
import re
import unittest

import gtlib

JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so"


def count(text, word):
    return sum(1 for line in text.splitlines() if word in line)


HEAP_EVENT = re.compile(r" Name=HeapObject(Alloc|Free) Args=\[id=Value\{Uint64\((\d+)\)\}"
                        r"(?:, type=Value\{Uint64\((\d+)\)\})?")


def heap_events(text):
    """[(G, "Alloc" or "Free", object id, type id or None)] in the order of
    `go tool trace -d=parsed` (time order)."""
    out = []
    for line in text.splitlines():
        m = HEAP_EVENT.search(line)
        if m:
            g = re.search(r" G=(-?\d+) ", line)
            out.append((int(g.group(1)) if g else -1, m.group(1), int(m.group(2)),
                        int(m.group(3)) if m.group(3) else None))
    return out


def expected_samples(allocations, mean=2048):
    """Mean number of recorded allocations: sum of p(size) = 1 - exp(-size/M)."""
    return sum(n * (1 - math.exp(-size / mean)) for size, n in allocations)


class HeapEventsTest(unittest.TestCase):
    def run_both(self, binary, args, name, period=None, env=None, extra_check=None):
        plain = gtlib.run_plain([binary] + args)
        traced = gtlib.run_traced([binary] + args, gtlib.trace_path(name, period), env_extra=env,
                                  period=period)
        self.assertEqual(traced.returncode, plain.returncode, traced.describe())
        self.assertEqual(traced.stdout, plain.stdout, traced.describe())
        gtlib.validate(traced.trace)
        return traced, gtlib.parsed_text(traced.trace)

    def test_every_allocation_function(self):
        binary = gtlib.compile("heap_zoo", extra=["-fno-builtin"])
        for period in (None, "5ms"):
            with self.subTest(period=period):
                traced, text = self.run_both(binary, ["churn"], "heap_zoo", period, env={"GOTRACE_MALLOC": "all"})
                self.assertGreaterEqual(count(text, "Name=HeapObjectAlloc"), 10000 + 8, traced.trace)
                self.assertGreaterEqual(count(text, "Name=HeapObjectFree"), 10000 + 8, traced.trace)
                self.assertGreaterEqual(count(text, "/memory/classes/heap/objects:bytes"), 1, traced.trace)

    def test_malloc_events_off(self):
        binary = gtlib.compile("heap_zoo", extra=["-fno-builtin"])
        traced, text = self.run_both(binary, ["churn"], "heap_zoo-off", env={"GOTRACE_MALLOC": "0"})
        self.assertEqual(count(text, "Name=HeapObject"), 0, traced.trace)

    @unittest.skipUnless(os.path.exists(JEMALLOC), "jemalloc is not installed (Debian package libjemalloc-dev)")
    def test_program_using_jemalloc(self):
        binary = gtlib.compile("heap_zoo", out=os.path.join(os.path.dirname(gtlib.compile("heap_zoo", extra=["-fno-builtin"])), "heap_zoo_jemalloc"),
                               extra=["-fno-builtin", "-ljemalloc"])
        traced, text = self.run_both(binary, ["churn"], "heap_zoo-jemalloc", env={"GOTRACE_MALLOC": "all"})
        self.assertGreaterEqual(count(text, "Name=HeapObjectAlloc"), 10000, traced.trace)



# heap_sample.c's allocations: (requested size, count)
SITES = [(24, 100000), (4096, 2000), (1 << 20, 20), (16000, 1)]
THREADS = [(40, 200000)]


class SampledHeapTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = gtlib.compile("heap_sample.c")

    def run_both(self, args, name, env=None, period=None):
        plain = gtlib.run_plain([self.binary] + args)
        traced = gtlib.run_traced([self.binary] + args, gtlib.trace_path(name, period), env_extra=env,
                                  period=period)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assertEqual((traced.returncode, traced.stdout), (0, plain.stdout), traced.describe())
        gtlib.validate(traced.trace)   # both Go parsers
        return traced, gtlib.parsed_text(traced.trace)

    def assert_frees_of_recorded_objects(self, events, trace):
        live = set()
        for g, kind, oid, _ in events:
            if kind == "Alloc":
                live.add(oid)
            else:
                self.assertIn(oid, live, "a free of object %d, never recorded as allocated (%s)" % (oid, trace))
                live.remove(oid)
        return live

    def assert_about(self, got, want, what, trace, sd=4):
        # a sum of Bernoulli trials: within 4 standard deviations (+ a few
        # allocations of the C library: stdout's buffer)
        self.assertLess(abs(got - want), sd * math.sqrt(want) + 5,
                        "%s: %d recorded, %.0f expected (%s)" % (what, got, want, trace))

    def test_sampled_by_default_and_valid(self):
        traced, text = self.run_both(["sites"], "heap-sample-sites")
        events = heap_events(text)
        allocs = sum(1 for e in events if e[1] == "Alloc")
        self.assert_about(allocs, expected_samples(SITES), "allocations", traced.trace)
        live = self.assert_frees_of_recorded_objects(events, traced.trace)
        # site C's 20 MiB are never freed, each certainly sampled
        self.assertGreaterEqual(len(live), 20, traced.trace)
        self.assertLessEqual(len(live), 22, traced.trace)
        # The mean is named in the trace.
        with open(traced.trace, "rb") as f:
            self.assertIn(b"gotrace.heap sample_bytes=2048", f.read())

    def test_every_allocation_and_a_larger_mean(self):
        traced, text = self.run_both(["sites"], "heap-sample-all", env={"GOTRACE_MALLOC": "all"})
        events = heap_events(text)
        total = sum(n for _, n in SITES)
        self.assertGreaterEqual(sum(1 for e in events if e[1] == "Alloc"), total, traced.trace)
        self.assertGreaterEqual(sum(1 for e in events if e[1] == "Free"), total - 20, traced.trace)
        with open(traced.trace, "rb") as f:
            self.assertNotIn(b"gotrace.heap sample_bytes", f.read(), "every allocation: no mean named")
        traced, text = self.run_both(["sites"], "heap-sample-64k", env={"GOTRACE_MALLOC": "64KB"})
        events = heap_events(text)
        self.assert_about(sum(1 for e in events if e[1] == "Alloc"), expected_samples(SITES, 65536),
                          "allocations with a 64 KiB mean", traced.trace)
        self.assert_frees_of_recorded_objects(events, traced.trace)
        with open(traced.trace, "rb") as f:
            self.assertIn(b"gotrace.heap sample_bytes=65536", f.read())

    def test_same_samples_run_after_run(self):
        signatures = []
        for run in range(2):
            traced, text = self.run_both(["sites"], "heap-sample-det%d" % run)
            # addresses differ between runs (ASLR): an object is named by
            # the index of its allocation
            index, sig = {}, []
            for g, kind, oid, ty in heap_events(text):
                if kind == "Alloc":
                    index[oid] = len(index)
                    sig.append(("A", g, ty))
                else:
                    sig.append(("F", g, index[oid]))
            signatures.append(sig)
        self.assertGreater(len(signatures[0]), 1000)
        self.assertEqual(signatures[0], signatures[1], "two runs of a deterministic program sampled differently")

    def test_frees_on_another_thread(self):
        traced, text = self.run_both(["threads"], "heap-sample-threads")
        events = heap_events(text)
        allocs = [e for e in events if e[1] == "Alloc"]
        frees = [e for e in events if e[1] == "Free"]
        self.assert_about(len(allocs), expected_samples(THREADS), "allocations", traced.trace)
        self.assert_frees_of_recorded_objects(events, traced.trace)
        # every one of the producer's samples is freed by the consumer
        by = {e[2]: e[0] for e in allocs}
        crossed = sum(1 for g, _, oid, _ in frees if by.get(oid) not in (None, g))
        self.assertGreaterEqual(crossed, len(allocs) - 3, traced.trace)

    def test_generations_name_the_mean(self):
        traced, text = self.run_both(["threads"], "heap-sample-gens", period="5ms")
        # as many as the process identity, which every generation has
        with open(traced.trace, "rb") as f:
            data = f.read()
        gens = data.count(b"gotrace.process pid=")
        self.assertGreaterEqual(gens, 2, traced.trace)
        self.assertEqual(data.count(b"gotrace.heap sample_bytes=2048"), gens, traced.trace)

    def test_forked_child_frees_parents_objects_silently(self):
        traced, text = self.run_both(["fork"], "heap-sample-fork")
        self.assert_frees_of_recorded_objects(heap_events(text), traced.trace)
        children = [f for f in os.listdir(os.path.dirname(traced.trace))
                    if f.startswith(os.path.basename(traced.trace) + ".") and f[len(os.path.basename(traced.trace)) + 1:].isdigit()]
        self.assertEqual(len(children), 1, children)
        child = os.path.join(os.path.dirname(traced.trace), children[0])
        gtlib.validate(child)
        events = heap_events(gtlib.parsed_text(child))
        # the child's own 100 000 x 24 B, freed; none of the parent's blocks
        self.assert_about(sum(1 for e in events if e[1] == "Alloc"), expected_samples([(24, 100000)]),
                          "the child's allocations", child)
        self.assert_frees_of_recorded_objects(events, child)
        gtlib.discard(child)


if __name__ == "__main__":
    unittest.main()
