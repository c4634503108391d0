"""`gotrace stat`: where the threads' time went, from traces of real programs.

test/programs/mutex_wait.c (a waiter blocked about 200 ms on a mutex in
waiter_main) and test/programs/workers.c (8 threads with start routine
worker_main passing a token under a mutex and a condvar) are traced in the
default period (one generation) and a 5 ms period (many, so waits span
generations and every thread is re-stated at each generation start):

  * the text summary shows waiter_main with 0.15-0.35 s of sync.mutex
    blocking, the site pthread_mutex_lock <- waiter_main among the top wait
    sites, and the group worker_main with 8 threads;
  * `-json` parses with Python's json and holds the same figures;
  * every goroutine's blocked time per reason equals what the newest Go's
    parser (`go tool trace -d=parsed`) makes of the same trace;
  * truncated copies give one error line (exit 1) after the summary of the
    complete generations, never a crash; bad files and options are reported.
"""
import json
import os
import re
import subprocess
import unittest

import gtlib

UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
ARROW = " \u2190 "


def gotrace(args, stdin=None, timeout=120):
    p = subprocess.run([gtlib.GOTRACE] + list(args), env=gtlib.clean_env(), input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


class Shown(float):
    """A duration as the text summary printed it, in seconds; .tol is half
    its last printed digit ("1.2ms": 0.00005 s)."""
    tol = 0.0


def seconds(text):
    """A duration as the text summary prints it ("200.1ms", "0") in seconds."""
    if text == "0":
        return Shown(0.0)
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(ns|us|ms|s)", text)
    if not m:
        raise AssertionError("not a duration: %r" % text)
    unit = UNITS[m.group(3)]
    v = Shown(float(m.group(1) + "." + (m.group(2) or "0")) * unit)
    v.tol = 0.5 * 10 ** -len(m.group(2) or "") * unit * 1.0001
    return v


def section(report, title):
    """The lines of the report's section whose title starts with `title`
    (the header row first)."""
    lines = report.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(title):
            out = []
            for row in lines[i + 1:]:
                if not row.startswith("  "):
                    break
                out.append(row)
            return out
    raise AssertionError("no section %r in:\n%s" % (title, report))


def reasons(text):
    """{"sync.mutex": seconds} from "sync.mutex 200.1ms, sync.join 14.4us"."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, dur = part.rsplit(" ", 1)
        out[name] = seconds(dur)
    return out


def thread_rows(report):
    """The Threads table: [{"g", "function", "label", "lifetime", ..., "blocked_by"}]."""
    rows = section(report, "Threads (")
    header = rows[0]
    has_label = " label " in header
    out = []
    for row in rows[1:]:
        cells = row.split()
        g, function = int(cells[0]), cells[1]
        rest = cells[2:]
        label = None
        # the six duration columns follow the optional label
        if has_label and len(rest) > 6 and not re.fullmatch(r"0|\d+(?:\.\d+)?(?:ns|us|ms|s)", rest[0]):
            label, rest = rest[0], rest[1:]
        names = ["lifetime", "running", "runnable", "syscall", "sleep", "blocked"]
        entry = {"g": g, "function": function, "label": label}
        entry.update({n: seconds(v) for n, v in zip(names, rest[:6])})
        entry["blocked_by"] = reasons(" ".join(rest[6:]))
        out.append(entry)
    return out


def group_rows(report):
    rows = section(report, "Threads by start function")
    out = {}
    for row in rows[1:]:
        cells = row.split()
        out[cells[0]] = {"threads": int(cells[1]), "lifetime": seconds(cells[2]), "blocked": seconds(cells[7]),
                         "blocked_by": reasons(" ".join(cells[8:]))}
    return out


def wait_sites(report):
    """[(total, count, max, reason, site text)] of the wait-site table."""
    rows = section(report, "Top wait sites")
    out = []
    for row in rows[1:]:
        m = re.match(r"^\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$", row)
        if m:
            out.append((seconds(m.group(1)), int(m.group(2)), seconds(m.group(4)), m.group(5), m.group(6)))
    return out


def close(exact, shown):
    """exact seconds (JSON) match a duration as the text printed it."""
    return abs(exact - shown) <= getattr(shown, "tol", 0.0) + 1e-12


@gtlib.expand
class StatToolTest(gtlib.TracedTestCase):

    def setUp(self):
        problem = gtlib.library_problem()
        if problem:
            self.fail(problem)
        if not os.path.exists(gtlib.GOTRACE):
            self.fail("%s does not exist (run `make`)" % gtlib.GOTRACE)

    # ---- traced runs and their summaries, shared by the tests ----

    def traced(self, program, period):
        def run():
            binary = gtlib.compile(program)
            traced = gtlib.run_traced([binary], gtlib.trace_path("stat-" + program, period), period=period)
            self.assertEqual(traced.returncode, 0, traced.describe())
            return traced.trace
        return self.cached((program, period), run)

    def stat(self, trace, *args):
        def run():
            rc, out, err = gotrace(["stat"] + list(args) + [trace])
            self.assertEqual((rc, err), (0, ""), "gotrace stat %s %s: exit %d\n%s" % (" ".join(args), trace, rc, err))
            return out
        return self.cached(("stat", trace) + args, run)

    def stat_json(self, trace):
        out = self.stat(trace, "-json", "-top", "0")
        try:
            return json.loads(out)
        except ValueError as e:
            raise AssertionError("gotrace stat -json %s is not JSON (%s):\n%s" % (trace, e, gtlib.head(out, 40)))

    # ---- mutex_wait.c ----

    def period_check_mutex_wait_text(self, period):
        trace = self.traced("mutex_wait", period)
        report = self.stat(trace)
        where = "gotrace stat %s:\n%s" % (trace, report)
        waiters = [t for t in thread_rows(report) if t["function"] == "waiter_main"]
        self.assertEqual(len(waiters), 1, where)
        w = waiters[0]
        mutex = w["blocked_by"].get("sync.mutex", 0)
        self.assertTrue(0.15 <= mutex <= 0.35, "waiter_main blocked %.3f s on sync.mutex\n%s" % (mutex, where))
        self.assertEqual(w["blocked"], mutex, where)      # the only reason
        # the thread's times add up to its lifetime (as shown, rounded)
        parts = w["running"] + w["runnable"] + w["syscall"] + w["sleep"] + w["blocked"]
        tol = sum(x.tol for x in (w["running"], w["runnable"], w["syscall"], w["sleep"], w["blocked"], w["lifetime"]))
        self.assertAlmostEqual(parts, w["lifetime"], delta=tol, msg=where)
        main = [t for t in thread_rows(report) if t["function"] == "main"]
        self.assertEqual(len(main), 1, where)
        self.assertTrue(0.15 <= main[0]["sleep"] <= 0.35, where)      # nanosleep(200 ms)
        sites = wait_sites(report)
        self.assertTrue(sites, where)
        top = [s for s in sites if s[3] == "sync.mutex" and s[4].startswith("pthread_mutex_lock" + ARROW + "waiter_main")]
        self.assertEqual(len(top), 1, "no pthread_mutex_lock \u2190 waiter_main wait site\n" + where)
        total, count, mx, _, text = top[0]
        self.assertEqual(count, 1, where)
        self.assertTrue(0.15 <= total <= 0.35 and total == mx, where)
        self.assertRegex(text, r"\(mutex_wait\.c:\d+\)$", where)
        self.assertRegex(report, r"\n  go 1\.2\d trace: \d+ generations? \(1-\d+\), \d+ events, 2 threads", where)
        self.assertRegex(report, r"\n  span \d+(\.\d+)?(ms|s) \(first to last event\)\n", where)
        if period:
            self.assertRegex(report, r"trace: ([3-9]|\d\d+) generations", "5 ms period, 200 ms program\n" + where)

    def period_check_mutex_wait_json(self, period):
        trace = self.traced("mutex_wait", period)
        data = self.stat_json(trace)
        text_threads = {t["g"]: t for t in thread_rows(self.stat(trace, "-top", "0"))}
        where = "gotrace stat -json %s:\n%s" % (trace, json.dumps(data, indent=1)[:3000])
        self.assertTrue(data["complete"], where)
        self.assertIsNone(data["error"], where)
        self.assertEqual(data["threads"]["count"], 2, where)
        self.assertEqual(data["threads"]["shown"], 2, where)
        self.assertGreater(data["events"], 10, where)
        self.assertGreaterEqual(data["generations"]["count"], 1, where)
        waiter = [t for t in data["threads"]["list"] if t["function"] == "waiter_main"]
        self.assertEqual(len(waiter), 1, where)
        w = waiter[0]
        self.assertTrue(0.15 <= w["blocked"]["sync.mutex"] <= 0.35, where)
        self.assertTrue(w["ended"], where)
        self.assertEqual(w["waits"], 1, where)
        parts = w["running"] + w["runnable"] + w["syscall"] + w["sleep"] + w["blocked_total"]
        self.assertAlmostEqual(parts, w["lifetime"], delta=5e-9, msg=where)
        # the same figures as the text
        for t in data["threads"]["list"]:
            shown = text_threads[t["g"]]
            self.assertEqual(shown["function"], t["function"], where)
            for key in ("lifetime", "running", "runnable", "syscall", "sleep"):
                self.assertTrue(close(t[key], shown[key]), "G%d %s: json %.9f, text %.9f\n%s"
                                % (t["g"], key, t[key], shown[key], where))
            self.assertEqual(set(t["blocked"]), set(shown["blocked_by"]), where)
            for reason, sec in t["blocked"].items():
                self.assertTrue(close(sec, shown["blocked_by"][reason]), where)
        site = [s for s in data["wait_sites"]["list"]
                if s["reason"] == "sync.mutex" and s["summary"] == "pthread_mutex_lock" + ARROW + "waiter_main"]
        self.assertEqual(len(site), 1, where)
        self.assertEqual(site[0]["count"], 1, where)
        self.assertAlmostEqual(site[0]["total"], w["blocked"]["sync.mutex"], delta=1e-9, msg=where)
        self.assertEqual([f["function"] for f in site[0]["frames"]][:2], ["pthread_mutex_lock", "waiter_main"], where)
        self.assertEqual(data["totals"]["threads"], 2, where)
        self.assertAlmostEqual(data["totals"]["blocked"]["sync.mutex"], w["blocked"]["sync.mutex"], delta=1e-9, msg=where)
        self.assertTrue(0.15 <= data["span"]["seconds"] <= 2.0, where)

    # ---- workers.c ----

    def period_check_workers(self, period):
        trace = self.traced("workers", period)
        report = self.stat(trace)
        where = "gotrace stat %s:\n%s" % (trace, report)
        groups = group_rows(report)
        self.assertIn("worker_main", groups, where)
        self.assertEqual(groups["worker_main"]["threads"], 8, where)
        self.assertEqual(groups["main"]["threads"], 1, where)
        self.assertGreater(groups["worker_main"]["blocked_by"].get("sync.cond", 0), 0, where)
        rows = thread_rows(report)
        self.assertEqual(len(rows), 9, where)      # default -top 10
        workers = [t for t in rows if t["function"] == "worker_main"]
        self.assertEqual(sorted(t["label"] for t in workers), ["worker-%d" % i for i in range(8)], where)
        self.assertRegex(report, r"\d+ events, 9 threads", where)
        self.assertTrue(any(s[3] == "sync.cond" and s[4].startswith("pthread_cond_wait" + ARROW + "worker_main")
                            for s in wait_sites(report)), where)

        data = self.stat_json(trace)
        jg = {g["function"]: g for g in data["groups"]["list"]}
        self.assertEqual(jg["worker_main"]["threads"], 8, data["groups"])
        self.assertTrue(close(jg["worker_main"]["blocked"]["sync.cond"],
                              groups["worker_main"]["blocked_by"]["sync.cond"]), where)
        self.assertEqual(sum(1 for t in data["threads"]["list"] if t["function"] == "worker_main"), 8)
        self.assertEqual(sorted(t["label"] for t in data["threads"]["list"] if t["label"]),
                         ["worker-%d" % i for i in range(8)])
        # -top 2 cuts every list to two entries, and says so
        short = self.stat(trace, "-top", "2")
        self.assertIn("Threads (2 of 9, most time not running first)", short)
        self.assertEqual(len(thread_rows(short)), 2, short)

    # ---- against Go's own parser ----

    def period_check_blocked_time_matches_go_parser(self, period):
        """Per goroutine and reason, the time blocked equals the sum of the
        Running->Waiting ... Waiting->Runnable spans Go's parser reports."""
        problem = gtlib.go_problem()
        if problem:
            self.fail(problem)
        for program in ("mutex_wait", "workers"):
            trace = self.traced(program, period)
            data = self.stat_json(trace)
            events = gtlib.parsed_events(trace)
            goids = gtlib.goroutine_ids(events)
            self.assertEqual({t["g"] for t in data["threads"]["list"]}, goids, trace)
            for t in data["threads"]["list"]:
                got = dict(t["blocked"])
                if t["sleep"]:
                    got["sleep"] = t["sleep"]
                want = {}
                for e in gtlib.blocks(events):
                    if e.goid == t["g"]:
                        want.setdefault(e.reason, 0.0)
                nwaits = {}
                for reason in want:
                    spans = gtlib.block_durations(events, t["g"], "=" + reason)
                    want[reason], nwaits[reason] = sum(spans), len(spans)
                # a wait stamped 0 ns long (GoBlock and GoStart at one time)
                # is 1 ns in Go's reader (a time <= the last becomes last + 1)
                want = {r: v for r, v in want.items() if v > 1e-6 or got.get(r)}
                self.assertEqual(set(got), set(want), "G%d of %s: stat %s, go %s" % (t["g"], trace, got, want))
                for reason, sec in got.items():
                    # Go's reader never lets time go backwards in the order it
                    # emits events (internal/trace/reader.go: a time <= the last
                    # one becomes last + 1): an event sharing its timestamp moves
                    # 1 ns, and the rare event it must emit after a later-stamped
                    # one on another thread (ordering by sequence numbers, or a
                    # generation switch) moves by up to that gap; an event
                    # stamped just before a switch but written after it is
                    # moved to the next generation's start (tens of us on a
                    # loaded machine, docs/design.md "Clock"). Stat reports
                    # the stamped times: they agree to 1 us per wait plus at
                    # most 100 us in all.
                    self.assertAlmostEqual(sec, want[reason], delta=100e-6 + 1e-6 * nwaits[reason],
                                           msg="G%d %s of %s: stat %.9f s, go %.9f s over %d waits"
                                           % (t["g"], reason, trace, sec, want[reason], nwaits[reason]))

    # ---- damaged input, errors ----

    def test_truncated_traces(self):
        trace = self.traced("mutex_wait", gtlib.STRESS_PERIOD)
        data = open(trace, "rb").read()
        self.assertGreater(len(data), 1000)
        cuts = sorted({int(len(data) * f) for f in (0.01, 0.2, 0.5, 0.75, 0.9)} | {len(data) - 1, 17})
        for cut in cuts:
            with self.subTest(cut=cut):
                part = "%s.cut%d" % (trace, cut)
                with open(part, "wb") as f:
                    f.write(data[:cut])
                for args in ([], ["-json"]):
                    rc, out, err = gotrace(["stat"] + args + [part])
                    what = "gotrace stat %s %s: exit %d\n%s\n%s" % (" ".join(args), part, rc, err, gtlib.head(out))
                    self.assertIn(rc, (0, 1, 2), what)
                    if rc == 2:  # cut inside the first generation: nothing to summarize
                        self.assertRegex(err, r"^gotrace stat: .*cut\d+: holds no complete generation: "
                                              r".*offset \d+.*\n$", what)
                        self.assertEqual(out, "", what)
                    elif rc == 1:
                        self.assertEqual(len(err.splitlines()), 1, what)
                        self.assertRegex(err, r"^gotrace stat: .*cut\d+: .*offset \d+", what)
                    else:
                        self.assertEqual(err, "", what)
                    if not out:
                        continue
                    if args:
                        d = json.loads(out)
                        self.assertEqual(d["complete"], rc == 0, what)
                        self.assertEqual(d["error"] is None, rc == 0, what)
                    else:
                        if rc == 1:
                            self.assertIn("complete generations only", out, what)
                        self.assertRegex(out, r"gotrace stat: .*\n(  process .*\n)?  go 1\.\d+ trace: \d+ generations?", what)
                gtlib.discard(part)

    def test_standard_input(self):
        trace = self.traced("mutex_wait", None)
        with open(trace, "rb") as f:
            rc, out, err = gotrace(["stat", "-json", "-top", "0", "-"], stdin=f.read())
        self.assertEqual((rc, err), (0, ""))
        d = json.loads(out)
        self.assertEqual(d["trace"], "(standard input)")
        self.assertEqual(d["threads"], self.stat_json(trace)["threads"])

    def test_bad_files_and_options(self):
        work = os.path.dirname(gtlib.trace_path("x"))
        not_trace = os.path.join(work, "stat-not-a-trace.txt")
        with open(not_trace, "w") as f:
            f.write("hello, this is not a trace\n")
        cases = [
            (["stat", os.path.join(work, "no-such.trace")], 1, r"^gotrace stat: cannot open .*no-such\.trace: No such file"),
            (["stat", not_trace], 2, r"^gotrace stat: .*not-a-trace\.txt: bad file format: not a Go execution trace\? \(16-byte header at offset 0\)$"),
            (["stat", "-json", not_trace], 2, r"^gotrace stat: .*not-a-trace\.txt: bad file format"),
            (["stat"], 2, r"missing TRACE"),
            (["stat", "-top", "x", not_trace], 2, r"-top wants a number"),
            (["stat", "-top", "-1", not_trace], 2, r"-top wants a number"),
            (["stat", "-top"], 2, r"option -top needs a value"),
            (["stat", "-frobnicate", not_trace], 2, r"bad option"),
            (["stat", "a", "b"], 2, r"one trace file"),
        ]
        for args, want_rc, pattern in cases:
            with self.subTest(args=args):
                rc, out, err = gotrace(args)
                self.assertEqual(rc, want_rc, "%s: %s" % (args, err))
                self.assertRegex(err.splitlines()[0] if err else "", pattern, err)
                self.assertEqual(out, "")

    def test_help(self):
        rc, out, err = gotrace(["help", "stat"])
        self.assertEqual(rc, 0, err)
        self.assertIn("usage: gotrace stat [-json] [-top N] TRACE", out)
        rc, out2, err = gotrace(["stat", "-h"])
        self.assertEqual((rc, out2), (0, out), err)
        rc, out, err = gotrace(["help"])
        self.assertRegex(out, r"\n  stat +where the threads' time went")


if __name__ == "__main__":
    unittest.main()
