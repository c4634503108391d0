"""The engine without LD_PRELOAD: the unit tests' traces judged by Go.

build/unit-tests drives the engine (core/engine.h) into a memfd in each of
its engine_* tests and judges the result with the project's own reader
(test/unit/test_engine_*.c). Here the same tests run with GT_UNIT_TRACE_DIR
set, which makes each keep a copy of its trace, and both Go parsers (Go 1.23
`-d=1`, the newest Go `-d=parsed`; the newest alone for format 26) must
accept every copy: blocks and
wake-ups, joins, system calls, heap objects with their types, switches by
the period, the flusher and gt_advance, early ends, back-pressure and the
flight ring, in formats 23 and 26.
"""
import glob
import os
import subprocess
import unittest

import gtlib

UNIT_TESTS = os.path.join(gtlib.BUILD, "unit-tests")


class EngineTraces(gtlib.TracedTestCase):
    def test_every_engine_trace_is_accepted_by_both_go_parsers(self):
        self.require_tools()
        self.assertTrue(os.path.exists(UNIT_TESTS), "build/unit-tests is missing (make build/unit-tests)")
        gtlib._ensure_dirs()
        out = os.path.join(gtlib.TRACE_DIR, "engine")
        os.makedirs(out, exist_ok=True)
        for f in glob.glob(os.path.join(out, "*.trace")):
            os.unlink(f)
        env = dict(os.environ, GT_UNIT_TRACE_DIR=out)
        p = subprocess.run([UNIT_TESTS, "--jobs", "2", "--filter", "engine_*/*"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        text = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, "the engine unit tests failed:\n" + gtlib.head(text, 30))
        traces = sorted(glob.glob(os.path.join(out, "*.trace")))
        self.assertGreaterEqual(len(traces), 10, "traces kept: %s" % traces)
        for t in traces:
            with open(t, "rb") as f:
                header = f.read(16)
            if header.startswith(b"go 1.26 trace"):
                gtlib.validate_with(gtlib.GO_NEW, t)  # Go 1.23 refuses 1.26 by design
            else:
                gtlib.validate(t)


if __name__ == "__main__":
    unittest.main()
