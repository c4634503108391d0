"""Thread names set with prctl(PR_SET_NAME) are labels, as
pthread_setname_np's are (issue 15, item 4).

test/programs/names_prctl.c: four prctl_worker threads name themselves
"prctl-<i>" with prctl, long_namer sets a 23-byte name the kernel cuts to
"a-very-long-thr", main names itself with pthread_setname_np ("names-main"),
and two prctl calls that must stay untouched (a bad name pointer: -1
EFAULT; PR_GET_DUMPABLE). In the default period and a 5 ms one:

  * the traced run prints what the untraced one prints (same returns,
    errno, names read back) and both Go parsers accept the trace;
  * the newest Go's parser (`go tool trace -d=parsed`) shows each thread's
    name as one Label on its own goroutine, and main's once (glibc's
    pthread_setname_np names through its own prctl: never twice);
  * `gotrace stat -json` shows the same label on each thread.
"""
import json
import subprocess
import unittest

import gtlib

WORKERS = {"prctl-%d" % i for i in range(4)}


@gtlib.expand
class PrctlNamesTest(gtlib.TracedTestCase):

    def run_pair(self, period):
        def go():
            self.require_tools()
            binary = gtlib.compile("names_prctl.c")
            plain = gtlib.run_plain([binary], timeout=20)
            self.assertEqual(plain.returncode, 0, plain.describe())
            traced = gtlib.run_traced([binary], gtlib.trace_path("names_prctl", period),
                                      period=period, timeout=20)
            return plain, traced
        return self.cached(("run", period), go)

    def checked(self, period):
        def go():
            plain, traced = self.run_pair(period)
            self.assertEqual((traced.returncode, traced.stdout), (plain.returncode, plain.stdout),
                             "traced run differs from the untraced one:\n%s" % traced.describe())
            gtlib.validate(traced.trace)
            return traced
        return self.cached(("checked", period), go)

    def starts(self, events):
        return {g: ev.tstack[-1] if ev.tstack else None
                for g, ev in gtlib.goroutine_creations(events).items()}

    def period_check_traced_output_matches_untraced(self, period):
        plain, traced = self.run_pair(period)
        self.assertIn("bad name: -1 Bad address", plain.stdout)
        self.assertIn("thread 4 named: yes", plain.stdout)
        self.checked(period)

    def period_check_prctl_names_are_labels_in_go_parser(self, period):
        run = self.checked(period)
        ev = gtlib.parsed_events(run.trace)
        labels = gtlib.labels(ev)
        starts = self.starts(ev)
        where = "trace %s; labels %s; start functions %s" % (run.trace, labels, starts)
        by_name = {}
        for g, ls in labels.items():
            for name in ls:
                by_name.setdefault(name, []).append(g)
        for name in WORKERS | {"a-very-long-thr", "names-main"}:
            self.assertEqual(len(by_name.get(name, [])), 1, "want one Label=%r: %s" % (name, where))
        self.assertEqual(by_name["names-main"], [1], where)
        self.assertEqual(starts.get(by_name["a-very-long-thr"][0]), "long_namer", where)
        workers = {by_name[n][0] for n in WORKERS}
        self.assertEqual(len(workers), 4, where)
        self.assertTrue(all(starts.get(g) == "prctl_worker" for g in workers), where)
        self.assertTrue(all(len(ls) == 1 for ls in labels.values()), "one label per thread: %s" % where)

    def period_check_prctl_names_are_labels_in_gotrace_stat(self, period):
        run = self.checked(period)
        threads = gtlib.stat_json(run.trace)["threads"]["list"]
        got = sorted((t["function"], t["label"]) for t in threads)
        want = sorted([("main", "names-main"), ("long_namer", "a-very-long-thr")]
                      + [("prctl_worker", n) for n in WORKERS])
        self.assertEqual(got, want, "gotrace stat -json %s" % run.trace)


if __name__ == "__main__":
    unittest.main()
