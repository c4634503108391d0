"""GOTRACE_FORMAT=26: the `go 1.26 trace` flavour (format doc 1.2, 2.7, 3.3, 3.4).

Three sample programs (mutex_wait, workers, heap_leak) are traced with
GOTRACE_FORMAT=26 in both period modes (pdefault, p5ms), and for each:

  * the traced run prints and exits exactly as the untraced one, the file
    starts with the `go 1.26 trace` header and ends with an EndOfGeneration
    byte, and the newest Go (`go tool trace -d=parsed`) accepts it;
  * every Sync event carries a clock snapshot (-d=parsed prints
    `Trace=… Mono=… Wall=<RFC 3339>`): one per generation, wall time within a
    minute of the test's own clock, monotonic time inside the run;
  * Go 1.23 rejects it with "unknown or unsupported trace version go 1.26",
    the documented behaviour (README, Troubleshooting);
  * Go 1.27's raw reader works on it: `-d=wire` and `-d=footprint` list every
    EndOfGeneration and the heap (experimental) events, and agree with
    -d=parsed on their number;
  * a copy cut just before the last EndOfGeneration byte is reported as an
    incomplete generation, and the generations before it still parse, event
    for event the same as in the whole file;

plus, per program: mutex_wait's sync profile has ~200 ms at waiter_main,
workers' eight worker_main goroutines keep their labels, and `gotrace heap`
reads heap_leak's format-26 trace (4800 bytes leaked by leak_fn).

A bad value (GOTRACE_FORMAT=25) gives exactly one `gotrace:` line on stderr
and a default (go 1.23) trace that both Go parsers accept.
"""
import calendar
import os
import re
import subprocess
import time
import unittest

import gtlib
from gtlib import GO_NEW, GO_OLD, go_label

FORMAT_26 = {"GOTRACE_FORMAT": "26"}
HEADER_26 = b"go 1.26 trace\x00\x00\x00"
HEADER_23 = b"go 1.23 trace\x00\x00\x00"
EV_END_OF_GENERATION = 52       # the top-level byte after each generation (encoder/wire.h)
UNSUPPORTED_26 = "unknown or unsupported trace version go 1.26"
INCOMPLETE = "incomplete generation found; trace likely truncated"

# Go's time.Time.Format(time.RFC3339Nano): 2026-11-22T07:36:37.692423382Z or
# ...+01:00 when the tool's local zone is not UTC.
_WALL = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$")
# A -d=footprint row: name (may contain spaces or be empty), bytes, %, count, %.
_FOOTPRINT_ROW = re.compile(r"^(.*?)\s+(\d+)\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s*$")


def wall_seconds(text):
    """Unix seconds (float) of an RFC 3339 time as Go prints it, or None."""
    m = _WALL.match(text or "")
    if not m:
        return None
    y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
    secs = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    if m.group(7):
        secs += int(m.group(7).ljust(9, "0")) / 1e9
    zone = m.group(8)
    if zone != "Z":
        off = int(zone[1:3]) * 3600 + int(zone[4:6]) * 60
        secs -= off if zone[0] == "+" else -off
    return secs


def go_tool_text(go, args, out_path, timeout=120):
    """Run `go tool ARGS` with the tests' Go environment; stdout goes to
    out_path (kept beside the trace).  Returns (exit status, stdout, stderr)."""
    with open(out_path, "wb") as f:
        p = subprocess.run([go, "tool"] + list(args), env=gtlib.go_env(), stdout=f,
                           stderr=subprocess.PIPE, timeout=timeout)
    with open(out_path, encoding="utf-8", errors="replace") as f:
        out = f.read()
    return p.returncode, out, p.stderr.decode("utf-8", "replace")


def line_count(text, first_word):
    """Lines of text whose first word is first_word."""
    return sum(1 for l in text.splitlines() if l.split(" ", 1)[0] == first_word)


def footprint_counts(text):
    """{event name: count} from `go tool trace -d=footprint`."""
    out = {}
    for line in text.splitlines():
        m = _FOOTPRINT_ROW.match(line)
        if m and m.group(1).strip():
            out[m.group(1).strip()] = int(m.group(3))
    return out


class _Format26Checks:
    """Checks for one sample program traced with GOTRACE_FORMAT=26.
    Subclasses set PROGRAM (and EXTRA compiler flags)."""

    PROGRAM = None
    EXTRA = ()
    TIMEOUT = 30

    # -- runs (cached per class) ----------------------------------------------

    def binary(self):
        return self.cached(("bin",), lambda: gtlib.compile(self.PROGRAM, extra=list(self.EXTRA)))

    def name(self):
        return "f26-" + os.path.splitext(self.PROGRAM)[0]

    def plain(self):
        def go():
            r = gtlib.run_plain([self.binary()], timeout=self.TIMEOUT)
            if r.returncode != 0:
                raise AssertionError("the untraced program itself fails:\n%s" % r.describe())
            return r
        return self.cached(("plain",), go)

    def traced(self, period):
        def go():
            self.require_tools()
            wall0, mono0 = time.time(), time.monotonic()
            run = gtlib.run_traced([self.binary()], gtlib.trace_path(self.name(), period),
                                   env_extra=dict(FORMAT_26, **self.ENV), period=period, timeout=self.TIMEOUT)
            run.window = (wall0, time.time(), mono0, time.monotonic())
            return run
        return self.cached(("traced", period), go)

    def checked(self, period):
        """The traced run after the basic checks: same behaviour as untraced,
        format-26 header and last byte, accepted by the newest Go."""
        def go():
            plain, run = self.plain(), self.traced(period)
            if run.returncode != plain.returncode or run.stdout != plain.stdout:
                raise AssertionError("traced run differs from the untraced one\nuntraced: status %s, stdout:\n%s\n"
                                     "traced:\n%s\nstdout:\n%s"
                                     % (plain.returncode, gtlib.head(plain.stdout), run.describe(),
                                        gtlib.head(run.stdout)))
            with open(run.trace, "rb") as f:
                data = f.read()
            if data[:16] != HEADER_26:
                raise AssertionError("GOTRACE_FORMAT=26 should write the header %r, got %r; %s"
                                     % (HEADER_26, data[:16], self.where(run)))
            if data[-1:] != bytes([EV_END_OF_GENERATION]):
                raise AssertionError("a format-26 trace should end with the EndOfGeneration byte %d, "
                                     "last byte is %r; %s" % (EV_END_OF_GENERATION, data[-1:], self.where(run)))
            gtlib.validate_with(GO_NEW, run.trace, parsed_out=run.trace + ".parsed.txt")
            return run
        return self.cached(("checked", period), go)

    def events(self, period):
        run = self.checked(period)
        return self.cached(("events", period), lambda: gtlib.parsed_events(run.trace))

    def snapshots(self, period):
        """The Sync events carrying a clock snapshot, one per generation.
        Go's reader ends every trace with a Sync of its own that has no
        snapshot (internal/trace/reader.go); any other Sync must have one."""
        run = self.checked(period)
        syncs = [e for e in self.events(period) if e.kind == "Sync"]
        self.assertTrue(syncs, "no Sync events in -d=parsed of %s" % self.where(run))
        bare = [e for e in syncs[:-1] if "Wall" not in e.fields]
        self.assertEqual(bare, [], "Sync events without a clock snapshot (Trace=/Mono=/Wall=) in %s"
                         % self.where(run))
        snaps = [e for e in syncs if "Wall" in e.fields]
        self.assertTrue(snaps, "no Sync event with a clock snapshot in %s: %s" % (self.where(run), syncs))
        return snaps

    def wire(self, period):
        run = self.checked(period)

        def go():
            rc, out, err = go_tool_text(GO_NEW, ["trace", "-d=wire", run.trace], run.trace + ".wire.txt")
            if rc != 0:
                raise AssertionError("%s: go tool trace -d=wire failed (exit %d) on %s:\n%s"
                                     % (go_label(GO_NEW), rc, self.where(run), gtlib.head(err)))
            return out
        return self.cached(("wire", period), go)

    def where(self, run):
        return "trace %s (period %s, GOTRACE_FORMAT=26)" % (run.trace, run.period or "default")

    # -- checks ---------------------------------------------------------------------

    def period_check_accepted_by_newest_go(self, period):
        self.checked(period)

    def period_check_sync_events_carry_a_clock_snapshot(self, period):
        run = self.checked(period)
        snaps = self.snapshots(period)
        wall0, wall1, mono0, mono1 = run.window
        last_mono = None
        for e in snaps:
            wall = wall_seconds(e.fields.get("Wall"))
            self.assertIsNotNone(wall, "unreadable Wall= in %r (%s)" % (e, self.where(run)))
            self.assertTrue(wall0 - 60 <= wall <= wall1 + 60,
                            "Sync wall clock %s is not within a minute of the run (%.3f..%.3f, now %s); %r; %s"
                            % (e.fields["Wall"], wall0, wall1, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               e, self.where(run)))
            # CLOCK_MONOTONIC, the clock of Python's time.monotonic() on Linux.
            mono = int(e.fields.get("Mono", "-1")) / 1e9
            self.assertTrue(mono0 - 1 <= mono <= mono1 + 1,
                            "Sync Mono=%.3fs is outside the run (monotonic %.3f..%.3f s); %r; %s"
                            % (mono, mono0, mono1, e, self.where(run)))
            self.assertTrue(last_mono is None or mono > last_mono,
                            "clock snapshots should follow each other in time: %s" % snaps)
            last_mono = mono
        if gtlib.effective_period(period) == gtlib.STRESS_PERIOD and self.MIN_GENERATIONS_5MS:
            self.assertGreaterEqual(len(snaps), self.MIN_GENERATIONS_5MS,
                                    "a %s run with a 5 ms period should have several generations; %s"
                                    % (self.PROGRAM, self.where(run)))

    MIN_GENERATIONS_5MS = 0

    def period_check_go123_rejects_it_as_unsupported(self, period):
        run = self.checked(period)
        with self.assertRaises(gtlib.TraceRejected) as cm:
            gtlib.validate_with(GO_OLD, run.trace)
        self.assertIn(UNSUPPORTED_26, str(cm.exception),
                      "%s should reject a format-26 trace with %r (README, Troubleshooting)"
                      % (go_label(GO_OLD), UNSUPPORTED_26))

    def period_check_wire_dump_lists_every_generation_end(self, period):
        run = self.checked(period)
        out = self.wire(period)
        gens = len(self.snapshots(period))
        for word in ("EndOfGeneration", "ClockSnapshot", "Sync", "Frequency"):
            self.assertEqual(line_count(out, word), gens,
                             "%s: -d=wire should list one %s per generation (%d); %s (dump: %s.wire.txt)"
                             % (go_label(GO_NEW), word, gens, self.where(run), run.trace))
        lines = [l for l in out.splitlines() if l.strip()]
        self.assertEqual(lines[-1:], ["EndOfGeneration"],
                         "-d=wire should end with EndOfGeneration; %s" % self.where(run))

    def period_check_wire_and_footprint_count_the_heap_events(self, period):
        """-d=wire and -d=footprint read the experimental (heap) events of a
        1.26 file, and count as many as the validating reader."""
        run = self.checked(period)
        out = self.wire(period)
        parsed = gtlib.parsed_text(run.trace)
        rc, fp, err = go_tool_text(GO_NEW, ["trace", "-d=footprint", run.trace], run.trace + ".footprint.txt")
        self.assertEqual(rc, 0, "%s: go tool trace -d=footprint failed on %s:\n%s"
                         % (go_label(GO_NEW), self.where(run), gtlib.head(err)))
        counts = footprint_counts(fp)
        self.assertEqual(counts.get("EndOfGeneration"), len(self.snapshots(period)),
                         "-d=footprint EndOfGeneration count; %s:\n%s" % (self.where(run), gtlib.head(fp, 25)))
        for name in ("HeapObjectAlloc", "HeapObjectFree"):
            n_parsed = sum(1 for l in parsed.splitlines() if "Name=%s " % name in l)
            n_wire = line_count(out, name)
            self.assertEqual(n_wire, n_parsed, "%s events: -d=wire has %d, -d=parsed %d; %s"
                             % (name, n_wire, n_parsed, self.where(run)))
            self.assertEqual(counts.get(name), n_parsed, "%s events: -d=footprint has %s, -d=parsed %d; %s"
                             % (name, counts.get(name), n_parsed, self.where(run)))
            self.assertGreaterEqual(n_parsed, self.MIN_HEAP_EVENTS.get(name, 0),
                                    "too few %s events; %s" % (name, self.where(run)))

    MIN_HEAP_EVENTS = {}
    ENV = {}   # more tracer variables for the traced run

    def period_check_truncated_copy_reports_incomplete_generation(self, period):
        """Cut just before the last EndOfGeneration byte: Go 1.27 says the
        last generation is incomplete; the ones before parse as in the whole
        file (format doc 3.4)."""
        run = self.checked(period)
        with open(run.trace, "rb") as f:
            data = f.read()
        cut = run.trace + ".cut"
        with open(cut, "wb") as f:
            f.write(data[:-1])      # checked(): the last byte is EndOfGeneration
        rc, out, err = go_tool_text(GO_NEW, ["trace", "-d=parsed", cut], cut + ".parsed.txt")
        self.assertNotEqual(rc, 0, "%s -d=parsed accepted the truncated copy %s" % (go_label(GO_NEW), cut))
        self.assertIn(INCOMPLETE, err, "%s on the truncated copy %s:\n%s" % (go_label(GO_NEW), cut, gtlib.head(err)))
        gens = len(self.snapshots(period))
        events = gtlib.parse_events(out)
        kept = [e for e in events if e.kind == "Sync" and "Wall" in e.fields]
        self.assertEqual(len(kept), gens - 1,
                         "the truncated copy %s should still yield its %d complete generation(s)" % (cut, gens - 1))
        # Everything before the reader's closing Sync is the whole file's text.
        whole = gtlib.parsed_text(run.trace).splitlines()
        lines = out.splitlines()
        self.assertTrue(lines and lines[-1].startswith("M=-1 P=-1 G=-1 Sync "),
                        "the truncated copy's -d=parsed should end with the reader's Sync: %s"
                        % gtlib.head("\n".join(lines[-5:])))
        prefix = lines[:-1]
        self.assertEqual(prefix, whole[:len(prefix)],
                         "the complete generations of %s parse differently from the same generations of %s"
                         % (cut, run.trace))
        if gens > 1:
            self.assertTrue(any(e.kind != "Sync" for e in events),
                            "no events from the complete generations of %s" % cut)
        gtlib.discard(cut)


@gtlib.expand
class MutexWait26Test(_Format26Checks, gtlib.TracedTestCase):
    """main holds a mutex for 200 ms while waiter_main waits for it."""
    PROGRAM = "mutex_wait.c"
    WAIT = (0.15, 0.35)
    MIN_GENERATIONS_5MS = 5     # 200 ms of run time

    def period_check_sync_profile_at_waiter_main(self, period):
        run = self.checked(period)
        prof = gtlib.pprof_top(run.trace, "sync", GO_NEW)
        cum = prof.get("waiter_main", (0, 0))[1]
        self.assertTrue(self.WAIT[0] <= cum <= self.WAIT[1],
                        "%s -pprof=sync: cum at waiter_main = %.3fs, want %.2f-%.2fs; %s; profile:\n%s"
                        % (go_label(GO_NEW), cum, self.WAIT[0], self.WAIT[1], self.where(run),
                           gtlib.format_profile(prof)))


@gtlib.expand
class Workers26Test(_Format26Checks, gtlib.TracedTestCase):
    """8 threads with start routine worker_main, named worker-<i>."""
    PROGRAM = "workers.c"

    def period_check_workers_created_and_labelled(self, period):
        run = self.checked(period)
        ev = self.events(period)
        created = gtlib.goroutine_creations(ev)
        workers = sorted(g for g, e in created.items() if e.tstack and e.tstack[-1] == "worker_main")
        self.assertEqual(len(workers), 8, "GoCreate with new stack [worker_main] in %s: %s"
                         % (self.where(run), list(created.values())))
        labels = gtlib.labels(ev)
        names = sorted(l for g in workers for l in labels.get(g, []) if l)
        self.assertEqual(sorted(set(names)), ["worker-%d" % i for i in range(8)],
                         "labels of the worker goroutines in %s: %s" % (self.where(run), labels))


@gtlib.expand
class HeapLeak26Test(_Format26Checks, gtlib.TracedTestCase):
    """100 leaked 48-byte objects from leak_fn, 5000 malloc/free pairs and more."""
    PROGRAM = "heap_leak.c"
    EXTRA = ("-fno-builtin",)
    MIN_GENERATIONS_5MS = 2     # a 15 ms pause half-way through the churn
    MIN_HEAP_EVENTS = {"HeapObjectAlloc": 5100, "HeapObjectFree": 5000}
    ENV = {"GOTRACE_MALLOC": "all"}   # the counts above are of every allocation

    def period_check_gotrace_heap_reads_it(self, period):
        run = self.checked(period)
        p = subprocess.run([gtlib.GOTRACE, "heap", run.trace], env=gtlib.clean_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, "gotrace heap %s: exit %d\n%s" % (run.trace, p.returncode, gtlib.head(err)))
        gens = len(self.snapshots(period))
        self.assertRegex(out, r"\b%d generations?\b" % gens, "gotrace heap should read all %d generations" % gens)
        self.assertRegex(out, r"(?m)^\s+4800\s+100\s+malloc, 48 B each\n\s+leak_fn\b",
                         "gotrace heap should report leak_fn's 100 x 48 B; output:\n%s" % gtlib.head(out, 25))


@gtlib.expand
class BadFormatTest(gtlib.TracedTestCase):
    """GOTRACE_FORMAT=25 is not a format the library writes."""

    def period_check_bad_format_warns_once_and_writes_go123(self, period):
        self.require_tools()
        binary = gtlib.compile("mutex_wait.c")
        run = gtlib.run_traced([binary], gtlib.trace_path("f26-bad-format", period),
                               env_extra={"GOTRACE_FORMAT": "25"}, period=period, timeout=30)
        self.assertEqual(run.returncode, 0, run.describe())
        lines = run.stderr.splitlines()
        warnings = [l for l in lines if l.startswith("gotrace:")]
        self.assertEqual(len(warnings), 1, "want exactly one gotrace: line on stderr:\n%s" % run.describe())
        self.assertEqual(lines, warnings, "stderr should hold only the warning:\n%s" % run.describe())
        self.assertIn("GOTRACE_FORMAT", warnings[0])
        self.assertIn('"25"', warnings[0])
        with open(run.trace, "rb") as f:
            self.assertEqual(f.read(16), HEADER_23, "a bad GOTRACE_FORMAT should give the default format; %s"
                             % run.describe())
        gtlib.validate(run.trace)


if __name__ == "__main__":
    unittest.main()
