"""The heap figures agree (issue 15 item 6; docs/heap.md "The heap peak"):
`gotrace stat`'s heap peak, `gotrace heap`'s peak and the largest HeapAlloc
metric the viewer's Heap counter draws are one number, also for a program
whose whole life is shorter than the metric's 10 ms period."""
import re
import subprocess
import unittest

import gtlib

METRIC = re.compile(r'Metric Time=\d+ Name="/memory/classes/heap/objects:bytes" Value=Value\{Uint64\((\d+)\)\}')
PEAK_LIVE = re.compile(r"^\s*peak live\s+\d+\s+(\d+)\s", re.M)


def heap_peak(trace):
    p = subprocess.run([gtlib.GOTRACE, "heap", trace], env=gtlib.clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("gotrace heap %s: exit %d\n%s" % (trace, p.returncode, p.stderr))
    m = PEAK_LIVE.search(p.stdout)
    if not m:
        raise AssertionError("no peak line in gotrace heap's report:\n%s" % p.stdout)
    return int(m.group(1))


class HeapPeakTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prog = gtlib.compile("heap_peak")

    def figures(self, mode, malloc=None):
        trace = gtlib.trace_path("heap_peak_%s_%s" % (mode, malloc or "default"))
        env = {"GOTRACE_MALLOC": malloc} if malloc else None
        r = gtlib.run_traced([self.prog, mode], trace, env_extra=env)
        self.assertEqual(r.returncode, 0, r.describe())
        self.assertEqual(r.stdout, gtlib.run_plain([self.prog, mode]).stdout)
        gtlib.validate(trace)
        heap = gtlib.stat_json(trace)["heap"]
        metrics = [int(v) for v in METRIC.findall(gtlib.parsed_text(trace))]
        self.assertTrue(metrics, "no HeapAlloc metric in the parsed trace")
        return heap, heap_peak(trace), max(metrics), r

    def check_agree(self, mode, low, high):
        heap, hp, metric_max, r = self.figures(mode)
        self.assertEqual(heap["source"], "events", heap)
        self.assertEqual(heap["peak_bytes"], hp, "gotrace stat and gotrace heap: one peak\n" + r.describe())
        self.assertEqual(metric_max, hp, "the viewer's Heap counter peaks at the same figure")
        self.assertEqual(heap["metric_peak_bytes"], metric_max)
        # a sampled estimate of the program's true peak
        self.assertTrue(low <= hp <= high, "peak %d, expected %d..%d" % (hp, low, high))

    def test_two_millisecond_program(self):
        # 216 objects of 256 B live at once (54 KiB), in about 2 ms
        self.check_agree("short", 30 * 1024, 90 * 1024)

    def test_longer_program_with_waves(self):
        # the largest wave: 1 MiB live (plus the pointer array and a 1000 B leak)
        self.check_agree("long", 800 * 1024, 1400 * 1024)

    def test_every_allocation_recorded(self):
        """With GOTRACE_MALLOC=all stat and heap count requested bytes exactly;
        the metric counts what the allocator holds for the same objects
        (malloc_usable_size), so the counter peaks at least as high, by the
        allocator's rounding (at most 16 B per object here, plus its header)."""
        heap, hp, metric_max, r = self.figures("short", malloc="all")
        self.assertEqual(heap["peak_bytes"], hp)
        true_peak = 216 * 256 + 216 * 8  # the objects and the pointer array
        self.assertEqual(hp, true_peak, r.describe())
        self.assertGreaterEqual(metric_max, hp)
        self.assertLessEqual(metric_max, hp + 217 * 24)


if __name__ == "__main__":
    unittest.main()
