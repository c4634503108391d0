#!/usr/bin/env python3
"""Run every integration test (test/integration/test_*.py) and print a summary.

Each test traces real programs with build/libgotrace.so and judges the trace
with the Go 1.23 and newest Go parsers. Usage:

    python3 test/integration/run.py [-k PATTERN] [-v]

The last line is "N passed, N failed[, N skipped]"; the exit status is 0 only
when nothing failed.
"""
import argparse
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", action="append", default=[], help="only tests whose name contains this")
    ap.add_argument("-v", action="store_true", help="verbose")
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    loader = unittest.TestLoader()
    if args.k:
        loader.testNamePatterns = ["*%s*" % k for k in args.k]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    runner = unittest.TextTestRunner(verbosity=2 if args.v else 1, stream=sys.stdout)
    res = runner.run(suite)
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    passed = res.testsRun - failed - skipped
    line = "%d passed, %d failed" % (passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print("integration: " + line)
    sys.exit(1 if failed or res.testsRun == 0 else 0)


if __name__ == "__main__":
    main()
