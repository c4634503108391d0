"""The annotation API (include/gotrace.h), shown working in go tool trace:
examples/annotated.c runs the same untraced (the calls are no-ops), and
traced its tasks, regions, logs and labels are in the trace and on the
"User-defined tasks" / "User-defined regions" pages of the web UI."""
import os
import unittest

import gtlib

EXAMPLE = os.path.join(gtlib.ROOT, "examples", "annotated.c")


def fetch(trace, path):
    for _ in range(3):
        body = gtlib._serve_and_fetch(gtlib.GO_NEW, trace, path, 90)
        if body is not None:
            return body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    raise AssertionError("go tool trace -http %s: no free port" % trace)


class AnnotateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = gtlib.compile(EXAMPLE)
        cls.plain = gtlib.run_plain([cls.binary])
        cls.traced = gtlib.run_traced([cls.binary], gtlib.trace_path("annotated"))

    def test_runs_the_same_untraced_and_traced(self):
        self.assertEqual(self.plain.returncode, 0)
        self.assertEqual(self.plain.stdout, "served 60 requests\n")
        self.assertEqual(self.traced.stdout, self.plain.stdout, self.traced.describe())
        self.assertEqual(self.traced.returncode, 0)

    def test_events_in_the_trace(self):
        gtlib.validate(self.traced.trace)
        text = gtlib.parsed_text(self.traced.trace)
        count = lambda kind: sum(1 for l in text.splitlines() if (" %s " % kind) in l)
        self.assertEqual(count("TaskBegin"), 60)
        self.assertEqual(count("TaskEnd"), 60)
        self.assertEqual(count("RegionBegin"), 180)
        self.assertEqual(count("RegionEnd"), 180)
        # The library's own logs (gotrace.process, gotrace.holder before a
        # contended lock's wait) are not the program's.
        logs = [l for l in text.splitlines() if " Log " in l and 'Category="gotrace.' not in l]
        self.assertEqual(len(logs), 60)
        self.assertIn('Label="worker-0"', text)

    def test_user_tasks_page(self):
        body = fetch(self.traced.trace, "/usertasks")
        self.assertIn("request", body)
        self.assertIn("60", body)

    def test_user_regions_page(self):
        body = fetch(self.traced.trace, "/userregions")
        for name in ("parse", "handle", "reply"):
            self.assertIn(name, body)


if __name__ == "__main__":
    unittest.main()
