"""`gotrace heap`: heap profile and leak report from the heap events of real traces.

Programs with known heaps are traced (test/programs/heap_leak.c, heap_cxx.cpp),
in the default period (one generation) and a 5 ms period (many, so objects are
freed in a later generation than the one that allocated them):

  * the pprof profile of `gotrace heap -pprof`, read back by `go tool pprof
    -raw` of both Go toolchains, has exactly the figures the programs make:
    inuse_space 4800 at leak_fn, alloc_objects 5000 at churn_fn, ...;
    `go tool pprof -top` reads it too;
  * the text report names leak_fn as the top leak with 4800 bytes;
  * both Go parsers accept the traces;
  * truncated copies of a trace give one clear error line (or the report of
    the complete generations), never a crash;
  * a trace without heap events, and bad files or options, are reported.

Skipped, with the reason, while the library writes no heap events.
"""
import os
import re
import subprocess
import unittest

import gtlib

LEAK_N, LEAK_S, CHURN_M = 100, 48, 5000
CXX_LEAKS, NODE_SIZE, CXX_CHURN = 50, 16, 3000 + 1000
# -fno-builtin: the compiler may not drop a malloc/free pair it can see through
FLAGS = {"heap_leak": ["-fno-builtin"], "heap_cxx": []}


def gotrace(args, timeout=120):
    p = subprocess.run([gtlib.GOTRACE] + list(args), env=gtlib.clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ----------------------------------------------------------------------------
# go tool pprof -raw of a heap profile

_LOC = re.compile(r"^\s*(\d+): 0x[0-9a-fA-F]+ (?:M=\d+ )?(?:\[F\] )?(.*) (\S*):(-?\d+)(?::-?\d+)? s=-?\d+(?:\(.*\))?$")
_SAMPLE = re.compile(r"^\s*(-?\d+(?:\s+-?\d+)*):((?:\s+\d+)*)\s*$")


class Profile:
    """A pprof profile as `go tool pprof -raw` prints it: sample types and
    samples (values, function names leaf first)."""

    def __init__(self, text):
        self.text = text
        self.types = []
        self.samples = []
        locs = {}
        raw = []
        section = None
        for line in text.splitlines():
            s = line.strip()
            if s == "Samples:":
                section = "samples"
                continue
            if s == "Locations":
                section = "locations"
                continue
            if s == "Mappings":
                section = None
                continue
            if section == "samples":
                if not self.types and "/" in s and ":" not in s:
                    self.types = [t.split("/")[0] for t in s.split()]
                    continue
                m = _SAMPLE.match(line)
                if m:
                    raw.append(([int(v) for v in m.group(1).split()], [int(i) for i in m.group(2).split()]))
            elif section == "locations":
                m = _LOC.match(line)
                if m:
                    locs.setdefault(int(m.group(1)), []).append(m.group(2))
        for values, ids in raw:
            funcs = []
            for i in ids:
                funcs.extend(locs.get(i, ["?"]))
            self.samples.append((values, funcs))

    def value(self, kind, fn, flat=False):
        """Sum of `kind` (inuse_space, alloc_objects, ...) over the samples
        whose leaf (flat) or any frame (cum) is a function named fn (C++
        names may carry their parameters: "cxx_leak()")."""
        i = self.types.index(kind)
        total = 0
        for values, funcs in self.samples:
            names = funcs[:1] if flat else funcs
            if any(f == fn or f.startswith(fn + "(") for f in names):
                total += values[i]
        return total

    def total(self, kind):
        i = self.types.index(kind)
        return sum(v[i] for v, _ in self.samples)


def read_profile(pb, go):
    p = subprocess.run([go, "tool", "pprof", "-raw", pb], env=gtlib.go_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise AssertionError("%s: go tool pprof -raw %s failed (exit %d):\n%s"
                             % (gtlib.go_label(go), pb, p.returncode, gtlib.head(p.stderr.decode("utf-8", "replace"))))
    return Profile(p.stdout.decode("utf-8", "replace"))


def pprof_top(pb, go, index):
    p = subprocess.run([go, "tool", "pprof", "-top", "-sample_index=" + index, pb], env=gtlib.go_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def leak_section(report):
    """The rows of the report's leak list: [(bytes, objects, text of the entry)]."""
    m = re.search(r"^Live at the end \(leaks\).*?$(.*?)(?:^\S|\Z)", report, re.M | re.S)
    if not m:
        return []
    rows = []
    for line in m.group(1).splitlines():
        r = re.match(r"^\s+(\d+)\s+(\d+)\s+(\S.*)$", line)
        if r:
            rows.append([int(r.group(1)), int(r.group(2)), r.group(3)])
        elif rows and line.strip():
            rows[-1][2] += "\n" + line.strip()
    return rows


@gtlib.expand
class HeapToolTest(gtlib.TracedTestCase):

    def setUp(self):
        self.require_tools()
        if not os.path.exists(gtlib.GOTRACE):
            self.fail("%s does not exist (run `make`)" % gtlib.GOTRACE)

    # ---- traced runs, shared by the tests ----

    def traced(self, program, period):
        def run():
            binary = gtlib.compile(program, extra=FLAGS[program])
            plain = gtlib.run_plain([binary])
            # every allocation: the tests compare exact counts and bytes
            traced = gtlib.run_traced([binary], gtlib.trace_path("heap-tool-" + program, period), period=period,
                                      env_extra={"GOTRACE_MALLOC": "all"})
            self.assertEqual(traced.returncode, 0, traced.describe())
            self.assertEqual(traced.stdout, plain.stdout, traced.describe())
            gtlib.validate(traced.trace)   # both Go parsers
            return traced.trace
        trace = self.cached((program, period), run)
        if "Name=HeapObjectAlloc" not in gtlib.parsed_text(trace):
            self.skipTest("the library writes no heap events yet (no HeapObjectAlloc in "
                          "`go tool trace -d=parsed %s`)" % trace)
        return trace

    def heap(self, trace, *args):
        """`gotrace heap -pprof TRACE.heap.pb.gz ARGS TRACE`: (report, profile path)."""
        def run():
            pb = trace + ".heap.pb.gz"
            rc, out, err = gotrace(["heap", "-pprof", pb] + list(args) + [trace])
            self.assertEqual(rc, 0, "gotrace heap %s: exit %d\n%s" % (trace, rc, err))
            self.assertEqual(err, "")
            self.assertTrue(os.path.getsize(pb) > 0)
            return out, pb
        return self.cached(("heap", trace) + args, run)

    # ---- heap_leak.c ----

    def period_check_go_parsers_accept_the_traces(self, period):
        self.traced("heap_leak", period)      # validated by both Go parsers there
        self.traced("heap_cxx", period)

    def period_check_leak_report_names_leak_fn(self, period):
        trace = self.traced("heap_leak", period)
        report, _ = self.heap(trace)
        rows = leak_section(report)
        self.assertTrue(rows, "no leak list in the report of %s:\n%s" % (trace, report))
        nbytes, objects, entry = rows[0]
        self.assertEqual((nbytes, objects), (LEAK_N * LEAK_S, LEAK_N), "top leak of %s:\n%s" % (trace, report))
        self.assertIn("malloc, 48 B each", entry, report)
        self.assertRegex(entry, r"\nleak_fn\s+heap_leak\.c:\d+", report)
        self.assertRegex(report, r"live at end\s+\d+\s+\d+", report)
        self.assertRegex(report, r"peak live\s+\d+\s+\d+\s+\(.*\) at \d+\.\d+ s", report)
        m = re.search(r"^Top allocation sites by allocation count.*?\n.*?\n\s+(\d+)\s+\d+\s+malloc, 32 B each\n\s+churn_fn",
                      report, re.M)
        self.assertIsNotNone(m, report)
        self.assertEqual(int(m.group(1)), CHURN_M, report)

    def period_check_leak_profile_figures(self, period):
        trace = self.traced("heap_leak", period)
        _, pb = self.heap(trace)
        for go in (gtlib.GO_NEW, gtlib.GO_OLD):
            label = gtlib.go_label(go)
            prof = read_profile(pb, go)
            self.assertEqual(prof.types, ["alloc_objects", "alloc_space", "inuse_objects", "inuse_space"],
                             "%s %s" % (label, pb))
            expect = [
                ("inuse_space", "leak_fn", LEAK_N * LEAK_S),
                ("inuse_objects", "leak_fn", LEAK_N),
                ("alloc_objects", "churn_fn", CHURN_M),
                ("alloc_space", "churn_fn", CHURN_M * 32),
                ("inuse_space", "churn_fn", 0),
                ("alloc_objects", "realloc_fn", 3),      # malloc, then two moves or resizes
                ("alloc_space", "realloc_fn", 16 + 64 + 4096),
                ("inuse_space", "realloc_fn", 0),
                ("alloc_space", "calloc_fn", 240),
                ("alloc_space", "memalign_fn", 200),
                ("inuse_objects", "memalign_fn", 0),
            ]
            for kind, fn, want in expect:
                self.assertEqual(prof.value(kind, fn), want, "%s: %s at %s in %s" % (label, kind, fn, pb))
            # The allocation function is left out: the flat cost is the caller's.
            self.assertEqual(prof.value("inuse_space", "leak_fn", flat=True), LEAK_N * LEAK_S, pb)
            self.assertEqual(prof.value("alloc_objects", "malloc", flat=True), 0, pb)
            rc, out, err = pprof_top(pb, go, "inuse_space")
            self.assertEqual(rc, 0, "%s: go tool pprof -top %s:\n%s" % (label, pb, err))
            self.assertRegex(out, r"Type: inuse_space", out)
            # leak_fn first (4800 B print as 4.69kB)
            self.assertRegex(out, r"flat%.*\n\s*4\.69kB\s+\S+\s+\S+\s+4\.69kB\s+\S+\s+leak_fn\n", out)

    # ---- heap_cxx.cpp ----

    def period_check_cxx_new_delete(self, period):
        trace = self.traced("heap_cxx", period)
        report, pb = self.heap(trace)
        for go in (gtlib.GO_NEW, gtlib.GO_OLD):
            prof = read_profile(pb, go)
            label = gtlib.go_label(go)
            self.assertEqual(prof.value("inuse_space", "cxx_leak"), CXX_LEAKS * NODE_SIZE, "%s %s" % (label, pb))
            self.assertEqual(prof.value("inuse_objects", "cxx_leak"), CXX_LEAKS, "%s %s" % (label, pb))
            self.assertEqual(prof.value("alloc_objects", "cxx_churn"), CXX_CHURN, "%s %s" % (label, pb))
            self.assertEqual(prof.value("inuse_objects", "cxx_churn"), 0, "%s %s" % (label, pb))
            self.assertGreater(prof.value("alloc_objects", "containers"), 1000, "%s %s" % (label, pb))
            self.assertEqual(prof.value("inuse_objects", "containers"), 0, "%s %s" % (label, pb))
            # operator new and malloc are never the leaf
            for fn in ("operator new", "malloc"):
                self.assertEqual(prof.value("alloc_objects", fn, flat=True), 0, "%s: %s in %s" % (label, fn, pb))
        rows = leak_section(report)
        cxx = [r for r in rows if "cxx_leak" in r[2]]
        self.assertEqual(len(cxx), 1, report)
        self.assertEqual(cxx[0][:2], [CXX_LEAKS * NODE_SIZE, CXX_LEAKS], report)
        self.assertIn("operator new", cxx[0][2], report)

    # ---- damaged traces, no heap events, errors ----

    def test_truncated_traces(self):
        trace = self.traced("heap_leak", gtlib.STRESS_PERIOD)
        data = open(trace, "rb").read()
        self.assertGreater(len(data), 1000)
        for frac in (0.2, 0.5, 0.75, 0.9):
            for cut in (int(len(data) * frac), len(data) - 1):
                with self.subTest(cut=cut):
                    part = "%s.cut%d" % (trace, cut)
                    with open(part, "wb") as f:
                        f.write(data[:cut])
                    pb = part + ".pb.gz"
                    if os.path.exists(pb):
                        os.unlink(pb)
                    rc, out, err = gotrace(["heap", "-pprof", pb, part])
                    self.assertIn(rc, (0, 1, 2), "gotrace heap %s: exit %d (a crash?)\n%s" % (part, rc, err))
                    lines = err.splitlines()
                    if rc == 2:  # cut inside the first generation: nothing to report
                        self.assertEqual(len(lines), 1, "%s: want one error line:\n%s" % (part, err))
                        self.assertRegex(lines[0], r"^gotrace heap: .*: holds no complete generation: .*offset \d+", part)
                        self.assertEqual(out, "", part)
                        self.assertFalse(os.path.exists(pb), part)
                    elif rc == 1:
                        self.assertEqual(len(lines), 1, "%s: want one error line:\n%s" % (part, err))
                        self.assertRegex(lines[0], r"^gotrace heap: .*: .*offset \d+", part)
                    else:
                        self.assertEqual(err, "", part)
                    if out:
                        self.assertRegex(out, r"gotrace heap: .*\n  \d+ generations? \(", part)
                    if rc == 1 and out:
                        self.assertIn("complete generations only", out, part)
                    if os.path.exists(pb):
                        read_profile(pb, gtlib.GO_NEW)
                    gtlib.discard(part)

    def test_trace_without_heap_events(self):
        binary = gtlib.compile("heap_leak", extra=FLAGS["heap_leak"])
        traced = gtlib.run_traced([binary], gtlib.trace_path("heap-tool-malloc-off"),
                                  env_extra={"GOTRACE_MALLOC": "0"})
        self.assertEqual(traced.returncode, 0, traced.describe())
        pb = traced.trace + ".pb.gz"
        rc, out, err = gotrace(["heap", "-pprof", pb, traced.trace])
        self.assertEqual((rc, err), (0, ""), out)
        self.assertIn("No heap events in this trace", out)
        for go in (gtlib.GO_NEW, gtlib.GO_OLD):
            prof = read_profile(pb, go)
            self.assertEqual(prof.samples, [], gtlib.go_label(go))
            self.assertEqual(prof.types, ["alloc_objects", "alloc_space", "inuse_objects", "inuse_space"])

    def test_bad_files_and_options(self):
        work = os.path.dirname(gtlib.trace_path("x"))
        not_trace = os.path.join(work, "heap-tool-not-a-trace.txt")
        with open(not_trace, "w") as f:
            f.write("hello, this is not a trace\n")
        cases = [
            (["heap", os.path.join(work, "no-such.trace")], 1, r"^gotrace heap: cannot open .*no-such\.trace: No such file"),
            (["heap", not_trace], 2, r"^gotrace heap: .*not-a-trace\.txt: bad file format: not a Go execution trace\? \(16-byte header at offset 0\)$"),
            (["heap"], 2, r"missing TRACE"),
            (["heap", "-top", "x", not_trace], 2, r"-top wants a number"),
            (["heap", "-frobnicate", not_trace], 2, r"bad option"),
            (["heap", "a", "b"], 2, r"one trace file"),
        ]
        for args, want_rc, pattern in cases:
            with self.subTest(args=args):
                rc, out, err = gotrace(args)
                self.assertEqual(rc, want_rc, "%s: %s" % (args, err))
                self.assertRegex(err.splitlines()[0] if err else "", pattern, err)
                self.assertEqual(out, "")

    def test_help(self):
        rc, out, err = gotrace(["help", "heap"])
        self.assertEqual(rc, 0, err)
        self.assertIn("usage: gotrace heap [-pprof OUT.pb.gz] [-top N] TRACE", out)
        rc, out, err = gotrace(["heap", "-h"])
        self.assertEqual(rc, 0, err)
        self.assertIn("-pprof FILE", out)
        rc, out, err = gotrace(["help"])
        self.assertRegex(out, r"\n  heap ")


if __name__ == "__main__":
    unittest.main()
