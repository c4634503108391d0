"""Mapped memory as AllocFree spans (docs/heap.md, "Mapped memory"), judged
from the outside: both Go parsers accept every trace, and the events read
from `go tool trace -d=parsed` and the trace's own stack table say

  * a 64 MiB anonymous mapping is a span of 16 384 pages, allocated
    (SpanAlloc, class anonymous, its site the mmap called from map_region)
    and then freed; held across a generation switch, the next generation's
    snapshot (M = GT_SNAPSHOT_M) restates it as a Span of the same id, with
    its site in that generation's stack table;
  * a partial munmap frees the span and states the pieces left; mremap frees
    the old range and allocates the new one at the mremap's site; a
    PROT_NONE reservation is no span, the pages made accessible in it by
    MAP_FIXED or mprotect are (PROT_NONE again: freed); mprotect outside a
    reservation records nothing; a file mapping is no span;
  * a thread created with a 1 MiB stack has GoroutineStackAlloc (order 21:
    2^20 has bit length 21) and a span of class stack of 256 pages with the
    same id, its site the pthread_create, freed at its end; the main thread's [stack] is a GoroutineStack
    of every snapshot;
  * a program whose allocator is jemalloc shows its arenas as spans of class
    malloc; with glibc's malloc, whose own mmap bypasses the wrappers, its
    large blocks show as class unseen in the snapshots only;
  * the program's own sbrk moves the brk heap's span (class brk, site the
    sbrk): freed and allocated again, same id, the new size each time; the
    snapshots state [heap] with that id;
  * a flight-recorder window that dropped the generation of a mapping's
    SpanAlloc states it in its first generation's snapshot, class and site
    kept; the go 1.26 format carries the same events (Go 1.27 reads it);
  * GOTRACE_MALLOC=0: no span events at all.
"""
import os
import re
import unittest

import gtlib

JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so"
PAGE = 4096
SNAPSHOT_M = 1 << 62
ANON, MALLOC, BRK, STACK, UNSEEN = range(5)

EXP = re.compile(r"^M=(-?\d+) P=-?\d+ G=(-?\d+) Experimental Time=(\d+) Name=(\w+) Args=\[(.*)\]$")
ARG = re.compile(r"(\w+)=Value\{Uint64\((\d+)\)\}")


def span_events(text):
    """[(m, g, time, name, [args])] of the AllocFree events in -d=parsed text."""
    out = []
    for line in text.splitlines():
        mt = EXP.match(line)
        if mt and (mt.group(4).startswith("Span") or mt.group(4).startswith("GoroutineStack")):
            out.append((int(mt.group(1)), int(mt.group(2)), int(mt.group(3)), mt.group(4),
                        [int(v) for _, v in ARG.findall(mt.group(5))]))
    return out


def kc_class(kc):
    return (kc >> 1) & 7


def kc_site(kc):
    return kc >> 4


# --- the stack table, read from the trace file itself ------------------------

def _uvarint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


# Arguments after the timestamp delta of each timed event (encoder/wire.c).
NARGS = {9: 2, 10: 2, 11: 0, 12: 3, 13: 2, 14: 3, 15: 1, 16: 2, 17: 0, 18: 0, 19: 2, 20: 2, 21: 3, 22: 2,
         23: 0, 24: 0, 25: 3, 26: 2, 27: 0, 28: 1, 29: 2, 30: 1, 31: 1, 32: 1, 33: 2, 34: 1, 35: 1, 36: 0,
         37: 1, 38: 1, 39: 1, 40: 4, 41: 2, 42: 3, 43: 3, 44: 4, 45: 2, 46: 2, 47: 3, 48: 4, 51: 3,
         128: 3, 129: 3, 130: 1, 131: 2, 132: 2, 133: 1, 134: 2, 135: 2, 136: 1}


def read_trace(path):
    """({generation: {stack id: [function names, leaf first]}},
    [(generation, m, [args]) of every SpanAlloc]) from the trace file."""
    data = open(path, "rb").read()
    i = 16
    strings, stacks, allocs, snaps = {}, {}, [], []
    while i < len(data):
        t = data[i]
        i += 1
        if t == 52:           # EndOfGeneration
            continue
        if t == 49:           # experimental batch: the experiment's byte
            i += 1
        elif t != 1:
            raise AssertionError("unexpected byte %d at %d in %s" % (t, i - 1, path))
        gen, i = _uvarint(data, i)
        m, i = _uvarint(data, i)
        _, i = _uvarint(data, i)
        size, i = _uvarint(data, i)
        p, end = i, i + size
        i = end
        if t != 1 or p >= end:
            continue
        if data[p] == 4:      # strings
            p += 1
            while p < end:
                p += 1        # EvString
                sid, p = _uvarint(data, p)
                n, p = _uvarint(data, p)
                strings.setdefault(gen, {})[sid] = data[p:p + n].decode("utf-8", "replace")
                p += n
        elif data[p] == 2:    # stacks
            p += 1
            while p < end:
                p += 1        # EvStack
                sid, p = _uvarint(data, p)
                n, p = _uvarint(data, p)
                frames = []
                for _ in range(n):
                    _, p = _uvarint(data, p)
                    fn, p = _uvarint(data, p)
                    _, p = _uvarint(data, p)
                    _, p = _uvarint(data, p)
                    frames.append(fn)
                stacks.setdefault(gen, {})[sid] = frames
        elif data[p] in NARGS:  # an event batch
            while p < end:
                ty = data[p]
                _, p = _uvarint(data, p + 1)
                args = []
                for _ in range(NARGS[ty]):
                    a, p = _uvarint(data, p)
                    args.append(a)
                if ty == 129:
                    allocs.append((gen, m, args))
                elif ty == 128:
                    snaps.append((gen, m, args))
    tables = {g: {sid: [strings.get(g, {}).get(f, "?") for f in fr] for sid, fr in st.items()}
              for g, st in stacks.items()}
    read_trace.snaps = snaps   # the Span events, (generation, m, args)
    return tables, allocs


class SpansTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = gtlib.compile("spans.c")

    def run_both(self, binary, args, name, env=None, period=None):
        plain = gtlib.run_plain([binary] + args)
        traced = gtlib.run_traced([binary] + args, gtlib.trace_path(name, period), env_extra=env, period=period)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assertEqual((traced.returncode, traced.stdout), (0, plain.stdout), traced.describe())
        gtlib.validate(traced.trace)   # both Go parsers
        return traced, span_events(gtlib.parsed_text(traced.trace))

    def assert_site(self, trace, args, *frames, snapshot=False):
        """The SpanAlloc (snapshot: each Span) with these args has a site
        whose frames, in its generation's stack table, begin with `frames`."""
        tables, allocs = read_trace(trace)
        if snapshot:
            for g, _, a in read_trace.snaps:
                if a == args:
                    got = tables.get(g, {}).get(kc_site(args[2]))
                    self.assertIsNotNone(got, "site of Span %s is in no stack table (%s)" % (args, trace))
                    self.assertEqual(got[:len(frames)], list(frames), "Span %s: %s (%s)" % (args, got, trace))
            return
        gens = [g for g, _, a in allocs if a == args]
        self.assertEqual(len(gens), 1, "SpanAlloc %s: %d in the file (%s)" % (args, len(gens), trace))
        site = kc_site(args[2])
        got = tables.get(gens[0], {}).get(site)
        self.assertIsNotNone(got, "site %d is in no stack table (%s)" % (site, trace))
        self.assertEqual(got[:len(frames)], list(frames), "site %d: %s (%s)" % (site, got, trace))

    def test_64mib_mapping(self):
        traced, ev = self.run_both(self.binary, ["map"], "spans-map", period="10ms")
        t = traced.trace
        allocs = [e for e in ev if e[3] == "SpanAlloc" and e[4][1] == 16384]
        self.assertEqual(len(allocs), 1, (allocs, t))
        m, g, ts, _, (sid, npages, kc) = allocs[0]
        self.assertEqual(g, 1, t)
        self.assertNotEqual(m, SNAPSHOT_M, t)
        self.assertEqual(kc & 1, 1, "kindclass is odd: %d" % kc)
        self.assertEqual(kc_class(kc), ANON, t)
        self.assert_site(t, [sid, npages, kc], "mmap", "map_region", "do_map", "main")
        frees = [e for e in ev if e[3] == "SpanFree" and e[4][0] == sid]
        self.assertEqual(len(frees), 1, t)
        self.assertGreater(frees[0][2], ts, t)
        # Held 30 ms with a 10 ms period: a later generation's snapshot
        # restates it, same id and size, class and site kept (the site in
        # the snapshot's own generation's stack table).
        snaps = [e for e in ev if e[3] == "Span" and e[4][0] == sid]
        self.assertGreaterEqual(len(snaps), 1, "no snapshot restates the mapping (%s)" % t)
        for s in snaps:
            self.assertEqual(s[0], SNAPSHOT_M, t)
            self.assertEqual(s[4][1], 16384, t)
            self.assertEqual(kc_class(s[4][2]), ANON, t)
            self.assertTrue(ts < s[2] < frees[0][2], t)
            self.assert_site(t, s[4], "mmap", "map_region", "do_map", "main", snapshot=True)

    def test_partial_unmap_remap_and_reservations(self):
        traced, ev = self.run_both(self.binary, ["map"], "spans-map-cuts")
        t = traced.trace
        own = [e for e in ev if e[0] != SNAPSHOT_M]
        seq = [(e[3], e[4][1] if e[3] == "SpanAlloc" else None) for e in own]
        # map_trim's 16 pages: head cut (15 left), tail cut (14 left), rest freed.
        i = seq.index(("SpanAlloc", 16))
        self.assertEqual(seq[i:i + 6], [("SpanAlloc", 16), ("SpanFree", None), ("SpanAlloc", 15),
                                        ("SpanFree", None), ("SpanAlloc", 14), ("SpanFree", None)], t)
        base = own[i][4][0]
        self.assertEqual([e[4][0] for e in own[i:i + 6]], [base, base, base + 1, base + 1, base + 1, base + 1], t)
        self.assert_site(t, own[i][4], "mmap", "map_trim")
        # mremap: the 4-page span freed, the 8-page one allocated at mremap.
        self.assertEqual(seq[i + 6:i + 11], [("SpanAlloc", 4), ("SpanFree", None), ("SpanAlloc", 8),
                                             ("SpanFree", None), ("SpanAlloc", 2)], t)
        self.assert_site(t, own[i + 8][4], "mremap", "remap_grow")
        # The reservation is no span; its 2 pages committed by MAP_FIXED are,
        # and its 4 made accessible by mprotect; 2 of those made PROT_NONE
        # again are freed (the other 2 stated again); all freed with it.
        self.assert_site(t, own[i + 10][4], "mmap", "commit_pages")
        self.assertEqual(seq[i + 11:], [("SpanAlloc", 4), ("SpanFree", None), ("SpanAlloc", 2),
                                        ("SpanFree", None), ("SpanFree", None)], t)  # the file: nothing
        self.assert_site(t, own[i + 11][4], "mprotect", "protect_pages", "do_map")
        prot = own[i + 11][4][0]
        self.assertEqual([e[4][0] for e in own[i + 12:i + 16]], [prot, prot + 2, own[i + 10][4][0], prot + 2], t)

    def test_thread_stack(self):
        traced, ev = self.run_both(self.binary, ["stack"], "spans-stack")
        t = traced.trace
        st = [e for e in ev if e[3] == "GoroutineStackAlloc"]
        self.assertEqual(len(st), 1, (st, t))
        m, g, ts, _, (sid, order) = st[0]
        self.assertEqual(g, 2, t)
        self.assertEqual(order, 21, t)
        span = [e for e in ev if e[3] == "SpanAlloc" and e[4][0] == sid]
        self.assertEqual(len(span), 1, t)
        self.assertEqual(span[0][4][1], 256, t)
        self.assertEqual(kc_class(span[0][4][2]), STACK, t)
        self.assert_site(t, span[0][4], "pthread_create", "do_stack", "main")
        self.assertEqual([e[3] for e in ev if e[0] == m and e[3].endswith("Free") and e[4][0] == sid],
                         ["GoroutineStackFree", "SpanFree"], t)
        # main's [stack], in the first generation's snapshot.
        main = [e for e in ev if e[3] == "GoroutineStack"]
        self.assertGreaterEqual(len(main), 1, t)
        spans = {e[4][0]: e[4] for e in ev if e[3] == "Span"}
        self.assertIn(main[0][4][0], spans, t)
        self.assertEqual(kc_class(spans[main[0][4][0]][2]), STACK, t)

    @unittest.skipUnless(os.path.exists(JEMALLOC), "jemalloc is not installed (Debian package libjemalloc-dev)")
    def test_jemalloc_arenas(self):
        binary = gtlib.compile("spans.c", out=os.path.join(os.path.dirname(self.binary), "spans_jemalloc"),
                               extra=["-Wl,--no-as-needed", "-ljemalloc"])
        traced, ev = self.run_both(binary, ["malloc"], "spans-jemalloc")
        t = traced.trace
        arenas = [e for e in ev if e[3] == "SpanAlloc" and kc_class(e[4][2]) == MALLOC]
        self.assertGreaterEqual(len(arenas), 1, t)
        self.assertGreaterEqual(sum(e[4][1] for e in arenas) * PAGE, 64 << 20, t)
        for e in arenas[:3]:
            self.assert_site(t, e[4], "mmap")
        self.assertEqual([e for e in ev if e[3] == "SpanAlloc" and kc_class(e[4][2]) == ANON], [], t)

    def test_glibc_malloc_is_unseen(self):
        traced, ev = self.run_both(self.binary, ["malloc"], "spans-glibc", period="5ms")
        t = traced.trace
        self.assertEqual([e for e in ev if e[3] == "SpanAlloc" and kc_class(e[4][2]) == MALLOC], [], t)
        classes = {kc_class(e[4][2]) for e in ev if e[3] == "Span"}
        self.assertIn(STACK, classes, t)

    def test_brk(self):
        traced, ev = self.run_both(self.binary, ["brk"], "spans-brk")
        t = traced.trace
        own = [e for e in ev if e[0] != SNAPSHOT_M]
        brk = [e for e in own if e[3] == "SpanFree" or kc_class(e[4][2]) == BRK]
        allocs = [e for e in brk if e[3] == "SpanAlloc"]
        self.assertEqual(len(allocs), 3, (brk, t))
        base = allocs[0][4][0]
        self.assertTrue(all(e[4][0] == base for e in brk), (brk, t))
        n = [e[4][1] for e in allocs]
        self.assertEqual((n[1] - n[0], n[1] - n[2]), (16, 16), (n, t))
        for e in allocs:
            self.assert_site(t, e[4], "sbrk", "grow_brk", "do_brk")
        heap = [e for e in ev if e[3] == "Span" and kc_class(e[4][2]) == BRK]
        for e in heap:
            self.assertEqual(e[4][0], base, (heap, t))

    def test_format_26_and_flight_recorder(self):
        # The go 1.26 format (Go 1.27 reads it; Go 1.23 does not know it),
        # and a flight-recorder window whose first generation is not the
        # process's first: its snapshot states the live spans there.
        plain = gtlib.run_plain([self.binary, "map"])
        run = gtlib.run_traced([self.binary, "map"], gtlib.trace_path("spans-format26"), period="5ms",
                               env_extra={"GOTRACE_FORMAT": "26"})
        self.assertEqual((run.returncode, run.stdout), (0, plain.stdout), run.describe())
        gtlib.validate_with(gtlib.GO_NEW, run.trace, parsed_out=run.trace + ".parsed.txt")
        ev = span_events(gtlib.parsed_text(run.trace))
        self.assertEqual(len([e for e in ev if e[3] == "SpanAlloc" and e[4][1] == 16384]), 1, run.trace)
        self.assertGreaterEqual(len([e for e in ev if e[3] == "Span"]), 1, run.trace)
        traced, ev = self.run_both(self.binary, ["hold"], "spans-flight", period="5ms",
                                   env={"GOTRACE_FLIGHT": "20ms"})
        t = traced.trace
        tables, allocs = read_trace(t)
        self.assertNotIn(1, tables, "the window holds the first generation (%s)" % t)
        self.assertEqual([a for _, _, a in allocs if a[1] == 16384], [], t)  # made before the window
        first = min(e[2] for e in ev)
        snap = [e for e in ev if e[0] == SNAPSHOT_M and e[2] == first]
        self.assertTrue(snap, "the window's first events are no snapshot (%s)" % t)
        self.assertIn("GoroutineStack", {e[3] for e in ev if e[0] == SNAPSHOT_M}, t)
        held = [e for e in ev if e[3] == "Span" and e[4][1] == 16384]
        self.assertGreaterEqual(len(held), 1, t)
        self.assertEqual(kc_class(held[0][4][2]), ANON, t)
        self.assert_site(t, held[0][4], "mmap", "map_region", "do_hold", "main", snapshot=True)
        self.assertEqual(len([e for e in ev if e[3] == "SpanFree" and e[4][0] == held[0][4][0]]), 1, t)

    def test_off(self):
        traced, ev = self.run_both(self.binary, ["map"], "spans-off", env={"GOTRACE_MALLOC": "0"})
        self.assertEqual(ev, [], traced.trace)


if __name__ == "__main__":
    unittest.main()
