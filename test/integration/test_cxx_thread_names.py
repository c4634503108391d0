"""std::thread threads are named by their callable (issue 15, item 4).

libstdc++ starts every std::thread in execute_native_thread_routine, a
local function Debian's libstdc++ is stripped of ("libstdc++.so.6.0.30+0x…"
for all of them). test/programs/cxx_thread_names.cpp starts two threads
with a function object (Sorter), one with a plain function (indexer) and
one with a lambda, each waiting 20 ms for a mutex. Traced in the default
period and a 5 ms one:

  * `gotrace stat -json` lists them by start function
    `std::thread<Sorter>` (2), `std::thread<void (*)(int), int>` and
    `std::thread<main::{lambda()#1}>`;
  * the newest Go parser's goroutine creations start at the same names;
  * no stack of theirs ends in an unnamed libstdc++ frame (they end at the
    callable's frame, as a goroutine's stack ends at its function).
"""
import re
import unittest

import gtlib


@gtlib.expand
class CxxThreadNamesTest(gtlib.TracedTestCase):

    WANT = {"std::thread<Sorter>": 2, "std::thread<void (*)(int), int>": 1,
            "std::thread<main::{lambda()#1}>": 1, "main": 1}

    def run_once(self, period):
        def go():
            self.require_tools()
            binary = gtlib.compile("cxx_thread_names.cpp")
            run = gtlib.run_traced([binary], gtlib.trace_path("cxx_thread_names", period),
                                   period=period, timeout=30)
            self.assertEqual((run.returncode, run.stdout), (0, "done\n"), run.describe())
            gtlib.validate(run.trace)
            return run
        return self.cached(("run", period), go)

    def period_check_stat_groups_threads_by_callable(self, period):
        run = self.run_once(period)
        got = {}
        for t in gtlib.stat_json(run.trace)["threads"]["list"]:
            got[t["function"]] = got.get(t["function"], 0) + 1
        self.assertEqual(got, self.WANT, "gotrace stat -json %s" % run.trace)

    def period_check_go_parser_start_frames_name_the_callable(self, period):
        run = self.run_once(period)
        ev = gtlib.parsed_events(run.trace)
        starts = {}
        for g, e in gtlib.goroutine_creations(ev).items():
            name = e.tstack[-1] if e.tstack else None
            starts[name] = starts.get(name, 0) + 1
        want = dict(self.WANT)
        del want["main"]
        self.assertEqual(starts, want, "trace %s" % run.trace)
        unnamed = [e for e in ev if e.g > 1 and e.stack and re.search(r"libstdc\+\+.*\+0x", e.stack[-1])]
        self.assertEqual(unnamed, [], "trace %s" % run.trace)


if __name__ == "__main__":
    unittest.main()
