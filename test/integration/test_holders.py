"""The holder of a contended lock (issue 16, item 2).

test/programs/holders.c: a thread started at holder_main, named
"lockholder", holds a mutex 200 ms inside hold_mutex (which also unlocks
it) while a thread started at waiter_main waits for it; then a thread
started at writer_main, named "rwwriter", holds a rwlock for writing
100 ms inside hold_write while reader_main waits to read it. Traced in both
period modes, judged by both Go readers:

  * just before the waiter's sync.mutex GoBlock, on the waiting goroutine, a
    UserLog "gotrace.holder" names the holder's goroutine and name
    ("held by G<goid> lockholder (tid N)") with the GoBlock's stack; the
    reader's sync.rwlock wait names the writer the same way;
  * `gotrace mutex -pprof F` writes a profile that `go tool pprof -top`
    (newest Go) opens, with sample types contentions and delay, charging at
    least 150 ms of delay to hold_mutex (the releasing stack holds it) and
    labelling it with the holder;
  * `gotrace stat` (text and -json) names the holder thread with its delay.
"""
import re
import subprocess

import gtlib

HOLD_MIN = 0.150  # the program holds the mutex 200 ms; the wait starts at most a few ms late


def gotrace(args, timeout=120):
    p = subprocess.run([gtlib.GOTRACE] + list(args), env=gtlib.clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def pprof(go, args, timeout=120):
    p = subprocess.run([go, "tool", "pprof"] + list(args), env=gtlib.go_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


@gtlib.expand
class TestHolders(gtlib.TracedTestCase):

    def traced(self, period):
        def run():
            self.require_tools()
            exe = gtlib.compile("holders.c")
            r = gtlib.run_traced([exe], gtlib.trace_path("holders", period), period=period)
            self.assertEqual(r.returncode, 0, r.describe())
            self.assertIn("holders ok", r.stdout, r.describe())
            gtlib.validate(r.trace)  # Go 1.23 and the newest Go accept it
            return r.trace
        return self.cached(("holders", period), run)

    def events(self, period):
        trace = self.traced(period)
        return trace, self.cached(("events", period), lambda: gtlib.parsed_events(trace))

    def goroutine_labelled(self, events, name):
        gs = [g for g, ls in gtlib.labels(events).items() if name in ls]
        self.assertEqual(len(gs), 1, "one goroutine labelled %r: %s" % (name, gtlib.labels(events)))
        return gs[0]

    def check_carrier(self, period, holder_name, reason, waiter_fn):
        trace, events = self.events(period)
        holder = self.goroutine_labelled(events, holder_name)
        waits = [e for e in gtlib.blocks(events, "=" + reason) if waiter_fn in e.tstack]
        self.assertEqual(len(waits), 1, "%s: one %s wait under %s: %s" % (trace, reason, waiter_fn, waits))
        block = waits[0]
        i = events.index(block)
        # The event just before the GoBlock on the waiter's M is the carrier.
        prev = [e for e in events[:i] if e.m == block.m]
        self.assertTrue(prev, "%s: nothing before %r" % (trace, block))
        log = prev[-1]
        self.assertEqual(log.kind, "Log", "%s: the event before %r is %r" % (trace, block, log))
        self.assertEqual(log.g, block.goid, "%s: the log is on the waiting goroutine: %r" % (trace, log))
        self.assertEqual(log.fields.get("Category"), "gotrace.holder", "%s: %r" % (trace, log))
        self.assertEqual(log.fields.get("Task"), "0", "%s: %r" % (trace, log))
        msg = log.fields.get("Message", "")
        self.assertRegex(msg, r"^held by G%d %s \(tid \d+\)$" % (holder, re.escape(holder_name)),
                         "%s: the holder log names G%d %s: %r" % (trace, holder, holder_name, log))
        self.assertEqual(log.stack, block.stack, "%s: the log carries the GoBlock's stack" % trace)
        # Only the contended waits carry one: two locks, two logs.
        logs = [e for e in events if e.kind == "Log" and e.fields.get("Category") == "gotrace.holder"]
        self.assertEqual(len(logs), 2, "%s: holder logs: %s" % (trace, logs))

    def period_check_mutex_holder_log(self, period):
        """The mutex waiter's GoBlock is preceded by a log naming lockholder."""
        self.check_carrier(period, "lockholder", "sync.mutex", "waiter_main")

    def period_check_rwlock_writer_log(self, period):
        """The rwlock reader's GoBlock is preceded by a log naming the writer."""
        self.check_carrier(period, "rwwriter", "sync.rwlock", "reader_main")

    def period_check_mutex_profile(self, period):
        """gotrace mutex -pprof: Go's pprof opens it; >= 150 ms charged to hold_mutex."""
        trace = self.traced(period)
        pb = trace + ".mutex.pb.gz"
        rc, out, err = gotrace(["mutex", "-pprof", pb, trace])
        self.assertEqual(rc, 0, "gotrace mutex %s:\n%s%s" % (trace, out, err))
        self.assertIn("lockholder", out)
        self.assertRegex(out, r"(?m)^\s+\S+\s+\S+%\s+\d+\s+G\d+ lockholder \(holder_main\)$", out)
        rc, top, err = pprof(gtlib.GO_NEW, ["-top", "-unit=ms", pb])
        self.assertEqual(rc, 0, "%s: go tool pprof -top %s:\n%s" % (gtlib.go_label(gtlib.GO_NEW), pb, err))
        self.assertIn("Type: delay", top)
        rows = {}
        for line in top.splitlines():
            m = re.match(r"^\s*([\d.]+)(?:ms)?\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)ms\s+[\d.]+%\s+(\S+)", line)
            if m:
                rows[m.group(3)] = (float(m.group(1)) / 1e3, float(m.group(2)) / 1e3)
        self.assertIn("hold_mutex", rows, top)
        self.assertGreaterEqual(rows["hold_mutex"][1], HOLD_MIN, top)
        self.assertLess(rows["hold_mutex"][1], 1.0, top)
        self.assertIn("hold_write", rows, top)
        rc, raw, err = pprof(gtlib.GO_NEW, ["-raw", pb])
        self.assertEqual(rc, 0, err)
        self.assertIn("contentions/count delay/nanoseconds", raw)
        self.assertIn("lockholder", raw)  # the holder label

    def period_check_stat_names_holder(self, period):
        """gotrace stat and -json name lockholder with about 200 ms of delay caused."""
        trace = self.traced(period)
        rc, out, err = gotrace(["stat", trace])
        self.assertEqual(rc, 0, err)
        m = re.search(r"(?m)^\s+(\S+)\s+\S+%\s+(\d+)\s+G\d+ lockholder \(holder_main\)$", out)
        self.assertTrue(m, "%s: no lockholder row in the Lock holders section:\n%s" % (trace, out))
        self.assertGreaterEqual(seconds(m.group(1)), HOLD_MIN, out)
        self.assertRegex(out, r"pthread_mutex_unlock \u2190 hold_mutex", out)
        d = gtlib.stat_json(trace)
        lh = d["lock_holders"]
        by = {t["label"]: t for t in lh["threads"]["list"]}
        self.assertIn("lockholder", by, lh)
        self.assertEqual(by["lockholder"]["function"], "holder_main")
        self.assertGreaterEqual(by["lockholder"]["delay"], HOLD_MIN, lh)
        self.assertIn("rwwriter", by, lh)
        self.assertGreaterEqual(lh["contentions"], 2)


def seconds(text):
    m = re.fullmatch(r"([\d.]+)(ns|us|ms|s)", text)
    if not m:
        raise AssertionError("not a duration: %r" % text)
    return float(m.group(1)) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)]
