"""measure.py — one workload under every arm: a warm-up pair, then PAIRS
rounds of adjacent pairs, with every outcome checked and every gotrace
configuration's trace validated once.

A round runs, for each arm in turn, the untraced program at the arm's size
and variant, then the traced one (U A U B U C ...): every figure is a
median over adjacent pairs. The warm-up round runs each arm at
1/warm_div of its size; the trace each gotrace configuration writes then
is read with `go tool trace -d=parsed` (Go 1.27), which must exit 0, and
its events are counted (one per `M=` line the parser prints, Sync markers
left out) for bytes per event. Every run's outcome (Workload.check) must
equal that of the first untraced run of the same size. A failing arm is
dropped with its reason (no figure); a failing untraced run fails the
workload.
"""
import os
import statistics
import subprocess
import time

from runner import GO, ROOT, Failed, clean_env, log, run, show


class ArmResult:
    def __init__(self, arm, div, size):
        self.key, self.tool, self.label = arm.key, arm.tool, arm.label
        self.div = div
        self.size = size            # the workload's size at div, for the report
        self.pairs = []             # [(untraced Run, traced Run)]
        self.failed = None          # reason, when the arm produced no figure
        self.output_bytes = None    # of the last timed traced run
        self.events = None          # gotrace: events in the validated (warm-up) trace
        self.event_kinds = {}
        self.warm_bytes = None      # size of that trace
        self.parse_s = None
        self.notes = []
        self.cmd_u = self.cmd_t = ""

    def summary(self):
        """The figures, as plain data for results/*.json."""
        d = {k: getattr(self, k) for k in ("key", "tool", "label", "div", "size", "failed",
                                           "output_bytes", "events", "warm_bytes", "parse_s",
                                           "notes", "cmd_u", "cmd_t")}
        d["event_kinds"] = dict(sorted(self.event_kinds.items(), key=lambda kv: -kv[1])[:8])
        P = self.pairs
        if P and not self.failed:
            def spread(v):
                return [statistics.median(v), min(v), max(v)]
            d["pairs"] = len(P)
            d["ratio"] = spread([t.wall / u.wall for u, t in P])
            d["cpu_ratio"] = spread([t.cpu / u.cpu for u, t in P if u.cpu > 0])
            d["wall_u"] = statistics.median(u.wall for u, _ in P)
            d["wall_t"] = statistics.median(t.wall for _, t in P)
            d["rss_u"] = statistics.median(u.rss_kb for u, _ in P)
            d["rss_t"] = statistics.median(t.rss_kb for _, t in P)
            d["last_wall_t"] = P[-1][1].wall
        return d


def parse_trace(path):
    """go tool trace -d=parsed PATH: (events, {kind: count}, seconds);
    Failed unless it exits 0."""
    env = dict(clean_env(), GOTOOLCHAIN="local")
    t0 = time.monotonic()
    p = subprocess.Popen([GO, "tool", "trace", "-d=parsed", path], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    kinds = {}
    for line in p.stdout:
        if not line.startswith(b"M="):
            continue
        f = line.split(None, 4)
        if len(f) < 4:
            continue
        kind = f[3].decode()
        if kind == "Sync":
            continue
        if kind == "Experimental" and len(f) > 4:
            kind = f[4].split(b" ", 2)[1].decode() if f[4].count(b" ") >= 1 else kind
        kinds[kind] = kinds.get(kind, 0) + 1
    err = p.stderr.read().decode(errors="replace")
    code = p.wait()
    if code != 0:
        raise Failed(f"go tool trace -d=parsed {path} exited {code}: {err.strip()[-800:]}")
    events = sum(kinds.values())
    if events == 0:
        raise Failed(f"go tool trace -d=parsed {path}: no events")
    return events, kinds, time.monotonic() - t0


def measure(w, arms, pairs, warm=True):
    """Runs workload w under arms [(Arm, div)]; returns [ArmResult]."""
    expected = {}
    results = [ArmResult(a, div, w.size(div)) for a, div in arms]

    def once(arm, res, div, traced):
        argv = w.argv(div, arm.variant)
        out = w.stdout_path()
        if traced:
            arm.prepare()
            cmd, extra = arm.command(argv)
        else:
            cmd, extra = argv, {}
        what = f"{w.key} {arm.key if traced else 'untraced'} (size /{div})"
        r = run(cmd, extra, out, what, binary_out=bool(out))
        if traced:
            r.wall += arm.finish()
        outcome = w.check(r, div)
        if expected.setdefault(div, outcome) != outcome:
            raise Failed(f"{what}: outcome '{outcome}' differs from the untraced '{expected[div]}'")
        if traced and arm.tool == "gotrace":
            if not os.path.isfile(arm.output) or os.path.getsize(arm.output) == 0:
                raise Failed(f"{what}: no trace at {arm.output}")
            lines = [l for l in r.stderr.splitlines() if "gotrace" in l]
            if lines and lines[0] not in res.notes:
                res.notes.append(lines[0][:200])
        if res is not None:
            res.cmd_u, res.cmd_t = show(argv, None, out), show(cmd, extra, out)
        return r

    def pair(arm, res, div):
        u = once(arm, res, div, False)
        try:
            t = once(arm, res, div, True)
        except Failed as e:
            res.failed = str(e)
            log(f"  {w.key}: {arm.key} FAILED: {str(e).splitlines()[0]}")
            return None
        return u, t

    t0 = time.monotonic()
    if warm:
        for (arm, div), res in zip(arms, results):
            if pair(arm, res, div * w.warm_div) is None:
                continue
            if arm.tool == "gotrace":
                try:
                    res.events, res.event_kinds, res.parse_s = parse_trace(arm.output)
                    res.warm_bytes = os.path.getsize(arm.output)
                except Failed as e:
                    res.failed = f"the warm-up trace was rejected: {e}"
                    log(f"  {w.key}: {arm.key} FAILED: {res.failed.splitlines()[0]}")
        log(f"  {w.key}: warm-up and validation in {time.monotonic() - t0:.0f} s")
    for i in range(pairs):
        t1 = time.monotonic()
        for (arm, div), res in zip(arms, results):
            if res.failed:
                continue
            p = pair(arm, res, div)
            if p:
                res.pairs.append(p)
                if i == pairs - 1:
                    res.output_bytes = arm.size()
        log(f"  {w.key}: round {i + 1}/{pairs} in {time.monotonic() - t1:.0f} s")
    for (arm, _), res in zip(arms, results):
        if getattr(arm, "discarded", None):
            d = sorted(arm.discarded)
            res.notes.append(f"discarded events per run: median {d[len(d) // 2]:,} "
                             f"(min {d[0]:,}, max {d[-1]:,})")
        arm.cleanup()
    return results
