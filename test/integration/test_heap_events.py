"""Heap events from the malloc family (docs/heap.md), judged from the outside:

  * a program calling every allocation function prints and exits exactly as
    untraced, in both period modes, and both Go parsers accept its trace,
    which holds HeapObjectAlloc/Free events and the HeapAlloc metric;
  * GOTRACE_MALLOC=0 turns heap events off;
  * a program whose allocator is jemalloc (a shared library it links) is traced
    the same way: its allocations are recorded and nothing breaks.
"""
import os
import unittest

import gtlib

JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so"


def count(text, word):
    return sum(1 for line in text.splitlines() if word in line)


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
                traced, text = self.run_both(binary, ["churn"], "heap_zoo", period)
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
        traced, text = self.run_both(binary, ["churn"], "heap_zoo-jemalloc")
        self.assertGreaterEqual(count(text, "Name=HeapObjectAlloc"), 10000, traced.trace)


if __name__ == "__main__":
    unittest.main()
