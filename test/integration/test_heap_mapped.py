"""`gotrace heap` and `gotrace stat`: mapped memory from span and thread
stack events (docs/heap.md, "Mapped memory in gotrace heap").

A synthetic trace (test/programs/mapped_trace.c, written with the encoder
as encoder/wire.h specifies spans, classes, sites and the snapshot M), in
format 23 and 26, is accepted by the Go parsers (both for 23, the newest
for 26) and run end to end through the commands:

  * `gotrace heap` prints the mapped memory by class at the start, peak and
    end, the total's peak (81272832 B) and the mapping sites, the mapping
    call named before the site;
  * `gotrace heap -mapped-pprof` writes a profile that `go tool pprof -raw`
    of both Go toolchains reads back with exactly the trace's figures
    (inuse_space 8 MiB at "(thread stack)", 4 MiB at arena_map;
    mapped_space 64 MiB at make_pool), and `go tool pprof -top` reads;
  * `gotrace stat` and `gotrace stat -json` give the totals;
  * the same trace without its span and stack events gets no word of
    mapped memory from either command.

A program that maps memory (test/programs/mapped_anon.c: 64 MiB mapped and
unmapped at make_pool, 4 MiB kept at keep_map, a thread with a 1 MiB stack)
is traced by the library: skipped, with the reason, while the library
writes no SpanAlloc; else its 64 MiB mapping is the anonymous class's peak
at make_pool, and its 4 MiB one is live at the end at keep_map.
"""
import os
import re
import subprocess
import unittest

import gtlib

PEAK = 81272832                      # 64 + 4 + 1 + 8 MiB + 264 KiB + 256 KiB
END = 4 * 2**20 + 8 * 2**20 + 264 * 1024 + 256 * 1024


def gotrace(args, timeout=120):
    p = subprocess.run([gtlib.GOTRACE] + list(args), env=gtlib.clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def build_writer():
    """Compile test/programs/mapped_trace.c with the encoder sources."""
    root = gtlib.ROOT
    out = os.path.join(gtlib.BIN_DIR, "mapped_trace")
    srcs = sorted(os.path.join(root, "encoder", f) for f in os.listdir(os.path.join(root, "encoder"))
                  if f.endswith(".c"))
    cmd = ([gtlib.CC] + gtlib.CFLAGS + ["-std=gnu11", "-D_GNU_SOURCE", "-I", root, "-Wno-unused-parameter",
                                         "-Wno-missing-field-initializers", "-o", out,
                                         gtlib.program_source("mapped_trace")] + srcs)
    os.makedirs(gtlib.BIN_DIR, exist_ok=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=gtlib.clean_env())
    if p.returncode != 0 or p.stdout.strip():
        raise AssertionError("compiling the trace writer failed or warned:\n$ %s\n%s"
                             % (" ".join(cmd), p.stdout.decode("utf-8", "replace")))
    return out


_LOC = re.compile(r"^\s*(\d+): 0x[0-9a-fA-F]+ (?:M=\d+ )?(?:\[F\] )?(.*?) (\S*):(-?\d+)(?::-?\d+)? s=-?\d+")
_SAMPLE = re.compile(r"^\s*(-?\d+(?:\s+-?\d+)*):((?:\s+\d+)*)\s*$")


def pprof_raw(go, profile):
    """{leaf function: {sample type: value}} of `go tool pprof -raw`, and the
    labels of each leaf's sample ({leaf: text of its label lines})."""
    p = subprocess.run([go, "tool", "pprof", "-raw", profile], env=gtlib.go_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise AssertionError("%s: go tool pprof -raw %s failed:\n%s"
                             % (gtlib.go_label(go), profile, p.stderr.decode("utf-8", "replace")))
    text = p.stdout.decode("utf-8", "replace")
    types, raw, locs, section = [], [], {}, None
    for line in text.splitlines():
        s = line.strip()
        if s in ("Samples:", "Locations", "Mappings"):
            section = s
            continue
        if section == "Samples:":
            if not types and "/" in s and ":" not in s:
                types = [t.split("/")[0] for t in s.split()]
                continue
            m = _SAMPLE.match(line)
            if m:
                raw.append(([int(v) for v in m.group(1).split()], [int(i) for i in m.group(2).split()], []))
            elif raw and s:
                raw[-1][2].append(s)
        elif section == "Locations":
            m = _LOC.match(line)
            if m:
                locs.setdefault(int(m.group(1)), m.group(2))
    out, labels = {}, {}
    for values, ids, lab in raw:
        leaf = locs.get(ids[0], "?")
        row = out.setdefault(leaf, {t: 0 for t in types})
        for t, v in zip(types, values):
            row[t] += v
        labels[leaf] = labels.get(leaf, "") + " ".join(lab)
    return out, labels, text


class SyntheticMappedTraceTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(gtlib.GOTRACE):
            raise AssertionError("%s does not exist (run `make`)" % gtlib.GOTRACE)
        problem = gtlib.go_problem()
        if problem:
            raise AssertionError(problem)
        writer = cls.writer = build_writer()
        cls.traces = {}
        for fmt in (23, 26):
            path = gtlib.trace_path("heap-mapped-synthetic-%d" % fmt)
            p = subprocess.run([writer, path, str(fmt)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode != 0:
                raise AssertionError("mapped_trace failed: %s" % p.stderr.decode("utf-8", "replace"))
            cls.traces[fmt] = path

    def test_go_parsers_accept_it(self):
        gtlib.validate(self.traces[23])                 # Go 1.23 and the newest
        gtlib.validate_with(gtlib.GO_NEW, self.traces[26], parsed_out=self.traces[26] + ".parsed.txt")
        for fmt in (23, 26):
            text = gtlib.parsed_text(self.traces[fmt])
            for name in ("Span", "SpanAlloc", "SpanFree", "GoroutineStack", "GoroutineStackAlloc",
                         "GoroutineStackFree"):
                self.assertIn("Name=%s Args" % name, text, "format %d" % fmt)

    def test_heap_report(self):
        for fmt in (23, 26):
            rc, out, err = gotrace(["heap", self.traces[fmt]])
            self.assertEqual(rc, 0, err)
            sec = out.split("\nMapped memory (mmap, mremap, brk, thread stacks; pages of 4096 B)\n", 1)
            self.assertEqual(len(sec), 2, out)
            sec = sec[1]
            self.assertIn("5 span events, 2 generations restating the mappings (9 Span events), "
                          "5 thread stack events", sec)
            rows = {m.group(1): m.group(2).split() for m in
                    re.finditer(r"^  (anonymous|malloc arena|brk heap|thread stack|unattributed|total) +(.*)$",
                                sec, re.M)}
            # at start, peak, peak at, at end, spans (sizes as "64.0 MiB": two fields each)
            self.assertEqual(rows["anonymous"], ["0", "B", "64.0", "MiB", "0.000010", "0", "B", "0"], sec)
            self.assertEqual(rows["malloc arena"][5:], ["4.0", "MiB", "1"], sec)
            self.assertEqual(rows["brk heap"][:4], ["132.0", "KiB", "264.0", "KiB"], sec)
            self.assertEqual(rows["thread stack"][:4], ["8.0", "MiB", "9.0", "MiB"], sec)
            self.assertEqual(rows["total"], ["8.4", "MiB", "77.5", "MiB", "0.001000", "12.5", "MiB", "4"], sec)
            self.assertIn("at the total's peak (%d B), by class: anonymous 64.0 MiB" % PEAK, sec)
            self.assertIn("thread stacks: 1 at the end, at most 2 at once", sec)
            self.assertRegex(sec, r"\n +4194304 +1  malloc arena  mmap: arena_map \u2190 main  \(app\.c:20\)\n")
            self.assertRegex(sec, r"\n +67108864 +1  anonymous     mmap: make_pool \u2190 main  \(app\.c:12\)\n")
            self.assertRegex(sec, r"\n +1048576 +1  thread stack  pthread_create: spawn \u2190 main  \(app\.c:30\)\n")

    def test_mapped_profile(self):
        for fmt in (23, 26):
            pb = self.traces[fmt] + ".mapped.pb.gz"
            rc, out, err = gotrace(["heap", "-mapped-pprof", pb, self.traces[fmt]])
            self.assertEqual(rc, 0, err)
            for go in (gtlib.GO_OLD, gtlib.GO_NEW):
                prof, labels, text = pprof_raw(go, pb)
                self.assertEqual(prof["(thread stack)"]["inuse_space"], 8 * 2**20, text)
                self.assertEqual(prof["arena_map"]["inuse_space"], 4 * 2**20, text)
                self.assertEqual(prof["(brk heap)"]["inuse_space"], 264 * 1024, text)
                self.assertEqual(prof["(brk heap)"]["mapped_space"], 132 * 1024, text)   # its growth
                self.assertEqual(prof["(unattributed)"]["inuse_space"], 256 * 1024, text)
                self.assertEqual(prof["make_pool"]["mapped_space"], 64 * 2**20, text)
                self.assertEqual(prof["make_pool"]["mapped_spans"], 1, text)
                self.assertEqual(prof["make_pool"]["inuse_space"], 0, text)
                self.assertEqual(prof["spawn"]["mapped_space"], 2**20, text)
                self.assertEqual(sum(r["inuse_space"] for r in prof.values()), END, text)
                self.assertIn("class:[anonymous]", labels["make_pool"], text)
                self.assertIn("mapper:[mmap]", labels["make_pool"], text)
                self.assertIn("mapper:[pthread_create]", labels["spawn"], text)
                p = subprocess.run([go, "tool", "pprof", "-top", pb], env=gtlib.go_env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=120)
                top = p.stdout.decode("utf-8", "replace")
                self.assertEqual(p.returncode, 0, top)
                self.assertIn("Type: inuse_space", top)
                self.assertRegex(top, r"8192kB .*\(thread stack\)")

    def test_stat_totals(self):
        for fmt in (23, 26):
            rc, out, err = gotrace(["stat", self.traces[fmt]])
            self.assertEqual(rc, 0, err)
            self.assertIn("  mapped memory peak 77.5 MiB at 1.0ms, 12.5 MiB at the end; 5 span events, "
                          "1 thread stacks at the end\n", out)
            self.assertIn("at the end by class (see `gotrace heap`): malloc arena 4.0 MiB", out)
            s = gtlib.stat_json(self.traces[fmt])
            m = s["mapped"]
            self.assertEqual(m["peak_bytes"], PEAK)
            self.assertEqual(m["end_bytes"], END)
            self.assertEqual(m["start_bytes"], 8 * 2**20 + 132 * 1024 + 256 * 1024)
            self.assertEqual(m["classes"]["thread stack"], {"peak_bytes": 9 * 2**20, "end_bytes": 8 * 2**20,
                                                            "end_spans": 1})
            self.assertEqual(m["thread_stacks"], {"end": 1, "peak": 2})
            self.assertTrue(m["complete"])

    def test_help_and_bad_profile_path(self):
        rc, out, err = gotrace(["heap", "-h"])
        self.assertEqual(rc, 0, err)
        self.assertIn("usage: gotrace heap [-pprof OUT.pb.gz] [-mapped-pprof OUT.pb.gz] [-top N] TRACE", out)
        self.assertIn("-mapped-pprof FILE", out)
        rc, out, err = gotrace(["heap", "-mapped-pprof", "/nonexistent/dir/m.pb.gz", self.traces[23]])
        self.assertEqual(rc, 1, out + err)
        self.assertIn("Mapped memory", out)
        self.assertIn("/nonexistent/dir/m.pb.gz", err)
        rc, out, err = gotrace(["heap", "-mapped-pprof"])
        self.assertEqual(rc, 2, out + err)

    def test_trace_without_span_events_says_nothing_of_them(self):
        path = gtlib.trace_path("heap-mapped-synthetic-nospans")
        p = subprocess.run([self.writer, path, "23", "nospans"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr)
        gtlib.validate(path)
        self.assertNotIn("Name=SpanAlloc", gtlib.parsed_text(path))
        rc, out, err = gotrace(["heap", path])
        self.assertEqual(rc, 0, err)
        body = out.split("\n", 1)[1]          # after the heading naming the file
        self.assertIn("live at end", body)
        self.assertNotIn("apped", body)
        rc, out, err = gotrace(["stat", path])
        self.assertEqual(rc, 0, err)
        self.assertNotIn("apped", out.split("\n", 1)[1])
        self.assertNotIn("mapped", gtlib.stat_json(path))

    def test_truncated_copy_reports_its_complete_generations(self):
        with open(self.traces[26], "rb") as f:
            data = f.read()
        cut = self.traces[26] + ".cut"
        with open(cut, "wb") as f:
            f.write(data[:-3])          # inside generation 3's last batch
        rc, out, err = gotrace(["heap", cut])
        self.assertEqual(rc, 1, out + err)
        self.assertIn("Mapped memory", out)
        # generation 3 (the thread's stack freed) did not end: still 2 stacks
        self.assertIn("thread stacks: 2 at the end, at most 2 at once", out)


class LibraryMappedTest(gtlib.TracedTestCase):
    """What the library writes for a program that maps memory."""

    def setUp(self):
        self.require_tools()

    def test_anonymous_mapping_and_thread_stack(self):
        binary = gtlib.compile("mapped_anon")
        traced = gtlib.run_traced([binary], gtlib.trace_path("heap-mapped-anon"))
        self.assertEqual(traced.returncode, 0, traced.describe())
        gtlib.validate(traced.trace)
        if "Name=SpanAlloc" not in gtlib.parsed_text(traced.trace):
            self.skipTest("the library writes no span events yet (no SpanAlloc in "
                          "`go tool trace -d=parsed %s`)" % traced.trace)
        pb = traced.trace + ".mapped.pb.gz"
        rc, out, err = gotrace(["heap", "-top", "0", "-mapped-pprof", pb, traced.trace])
        self.assertEqual(rc, 0, err)
        self.assertIn("\nMapped memory (", out)
        prof, labels, text = pprof_raw(gtlib.GO_NEW, pb)
        self.assertIn("make_pool", prof, out + text)
        self.assertEqual(prof["make_pool"]["mapped_space"], 64 * 2**20, out + text)
        self.assertEqual(prof["make_pool"]["inuse_space"], 0, out + text)
        self.assertIn("keep_map", prof, out + text)
        self.assertEqual(prof["keep_map"]["inuse_space"], 4 * 2**20, out + text)
        self.assertIn("class:[anonymous]", labels["make_pool"], text)
        s = gtlib.stat_json(traced.trace)
        self.assertGreaterEqual(s["mapped"]["classes"]["anonymous"]["peak_bytes"], 64 * 2**20, out)
        self.assertIsNotNone(s["mapped"]["thread_stacks"], out)
        gtlib.discard(traced.trace)


if __name__ == "__main__":
    unittest.main()
