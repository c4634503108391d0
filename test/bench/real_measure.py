"""real_measure.py — one real program (real_programs.py) or server
(real_servers.py) untraced and under each arm: gotrace with its defaults,
gotrace recording every allocation, gotrace without heap events, heaptrack.

A round runs, for each arm in turn, the untraced program and then the arm
(U A U B U C U H): every figure is a median over adjacent pairs, with the
min – max of the per-pair values. One warm-up round first (its figures are
dropped, its traces are checked like the others). Per pair:

  - batch programs: wall time traced / untraced (spawn to exit);
    servers: throughput traced / untraced (what the client reports);
  - CPU (user + system of the program's process tree; for a server, of the
    server and its launcher) traced / untraced;
  - every gotrace trace (all files GOTRACE_OUT* of the run) is read with
    Go 1.27's `go tool trace -d=parsed`, which must exit 0; its events are
    counted by kind (heap events = HeapObjectAlloc + HeapObjectFree) and its
    string table searched for `gotrace.heap sample_bytes=` (the sampled
    mode's mark);
  - trace MB per busy core-second = trace bytes / CPU seconds of the
    untraced partner (the cores the program keeps busy, as a rate);
  - the outcome (the program's result, or what the server holds after the
    client's work) must equal the first untraced run's.

Noise: the machine is shared. During each pair the CPU of every other
process is measured (Busy): a pair during which they used more than NOISY
of one CPU on average is run again (RETRIES), the quieter attempt kept,
until STREAK pairs in a row found the machine busy both times (a lasting
load: redoing would only double the time). The report says how many pairs
were redone and how busy the machine was.
"""
import glob
import os
import resource
import statistics
import time

import measure
import peers
from runner import LIB, OUT, Failed, log, run, show, which

EVERY_ALLOCATION = peers.EVERY_ALLOCATION     # the one constant, in peers.py
NOISY = 0.30           # other processes' CPU (in CPUs, averaged over the pair) that makes a pair redone
RETRIES = 1
STREAK = 3             # pairs in a row busy on every attempt: the load lasts, stop redoing
SAMPLE_MARK = b"gotrace.heap sample_bytes="


def arms(key, keys=None):
    """[(Arm or reason string)] for a row; keys limits them (BENCH_PEERS)."""
    base = f"{OUT}/real/{key}"

    def gt(k, label, env):
        if not os.path.isfile(LIB):
            return k, f"{LIB} is missing (run make)"
        trace = f"{base}-{k}.trace"
        extra = {"LD_PRELOAD": LIB, "GOTRACE_OUT": trace}
        extra.update(env)
        # a program that forks writes TRACE.PID beside TRACE: all are its trace
        return k, peers.Arm(k, "gotrace", label, output=trace + "*", extra=extra)

    out = [gt("gotrace", "gotrace defaults", {}),
           gt("every", f"gotrace every allocation (`GOTRACE_MALLOC={EVERY_ALLOCATION}`)",
              {"GOTRACE_MALLOC": EVERY_ALLOCATION}),
           gt("malloc0", "gotrace `GOTRACE_MALLOC=0`", {"GOTRACE_MALLOC": "0"})]
    if which("heaptrack"):
        out.append(("heaptrack", peers.Arm("heaptrack", "heaptrack", "heaptrack (`heaptrack -o FILE`)",
                                           output=f"{base}-heaptrack.*",
                                           prefix=["heaptrack", "-o", f"{base}-heaptrack"])))
    else:
        out.append(("heaptrack", "heaptrack is not installed (scripts/install-bench-deps.sh)"))
    return [(k, a) for k, a in out if not keys or k in keys]


class Busy:
    """What other processes did between creation and stop(): `others` =
    CPUs (averaged over the interval) used by every process but this
    script and its reaped children (from /proc/stat: user + nice + system;
    nice does not protect the benchmark here: with the kernel's autogroup
    scheduling, each session's processes share the CPUs equally with every
    other session's whatever their nice value), `steal` = the hypervisor's."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.stat0 = self.stat()

    @staticmethod
    def stat():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        hz = os.sysconf("SC_CLK_TCK")
        mine = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            ru = resource.getrusage(who)
            mine += ru.ru_utime + ru.ru_stime
        return (v[0] + v[1] + v[2]) / hz, (v[7] / hz if len(v) > 7 else 0.0), mine

    def stop(self):
        el = max(time.monotonic() - self.t0, 1e-3)
        (b0, st0, m0), (b1, st1, m1) = self.stat0, self.stat()
        return {"others": max(0.0, (b1 - b0) - (m1 - m0)) / el, "steal": (st1 - st0) / el}


def read_traces(arm):
    """Validates every file the gotrace arm wrote; returns its figures."""
    files = sorted(arm.outputs())
    if not files:
        raise Failed(f"no trace at {arm.output}")
    t = {"files": len(files), "bytes": 0, "events": 0, "heap": 0, "kinds": {}, "parse_s": 0.0,
         "sampled": None}
    for path in files:
        size = os.path.getsize(path)
        if size == 0:
            raise Failed(f"{path} is empty")
        events, kinds, secs = measure.parse_trace(path)
        t["bytes"] += size
        t["events"] += events
        t["parse_s"] += secs
        for k, n in kinds.items():
            k = k.replace("Name=", "")
            t["kinds"][k] = t["kinds"].get(k, 0) + n
            if k.startswith("HeapObject"):
                t["heap"] += n
        with open(path, "rb") as f:
            data = f.read()
        at = data.find(SAMPLE_MARK)
        if at >= 0:
            end = at + len(SAMPLE_MARK)
            digits = b""
            while end < len(data) and data[end:end + 1].isdigit():
                digits += data[end:end + 1]
                end += 1
            t["sampled"] = int(digits) if digits else -1
    return t


class Row:
    """What one row measures, batch or server alike."""

    def __init__(self, w):
        self.w = w
        self.server = hasattr(w, "drive")
        self.expected = None
        self.busy_streak = 0

    def once(self, arm, tag):
        """One run, untraced (arm None) or under arm: a dict of figures."""
        what = f"{self.w.key} {arm.key if arm else 'untraced'} ({tag})"
        if arm:
            arm.prepare()
        if self.server:
            s = self.serve(arm, tag)
        else:
            argv = self.w.argv()
            cmd, extra = arm.command(argv) if arm else (argv, {})
            r = run(cmd, extra, None, what)
            s = {"wall": r.wall, "cpu": r.cpu, "rss_kb": r.rss_kb, "outcome": self.w.check(r),
                 "says": [l for l in r.stderr.splitlines() if l.startswith("gotrace")][:1]}
        if self.expected is None and arm is None:
            self.expected = s["outcome"]
        if s["outcome"] != self.expected:
            raise Failed(f"{what}: outcome '{s['outcome']}' differs from the untraced '{self.expected}'")
        if arm and arm.tool == "gotrace":
            s["trace"] = read_traces(arm)
            if arm.key == "every" and s["trace"]["sampled"] is not None:
                raise Failed(f"{what}: the trace says sampled (sample_bytes={s['trace']['sampled']}) "
                             f"with GOTRACE_MALLOC={EVERY_ALLOCATION}")
        elif arm:
            s["output_bytes"] = arm.size()
        return s

    def serve(self, arm, tag):
        prefix, extra = (arm.prefix, arm.extra) if arm else ([], {})
        p = self.w.start(prefix, extra, f"{tag}-{arm.key if arm else 'untraced'}")
        try:
            t0 = time.monotonic()
            tput, _ = self.w.drive()
            wall = time.monotonic() - t0
            outcome = self.w.check()
            cpu = p.stop()
        finally:
            p.kill()
        says = [l for l in p.log_tail(20000).splitlines() if l.startswith("gotrace")][:1]
        return {"wall": wall, "cpu": cpu, "rss_kb": p.rusage.ru_maxrss, "tput": tput, "outcome": outcome,
                "says": says}

    def pair(self, arm, tag, retry=True):
        """An untraced run and the arm's; run again (once) when other
        processes took more than NOISY CPUs meanwhile, the quieter attempt
        kept. After STREAK pairs in a row found the machine busy on both
        attempts, the load is taken as lasting and pairs are no longer run
        twice (that would only double the time)."""
        best = None
        tries = 1 if self.busy_streak >= STREAK or not retry else RETRIES + 1
        for attempt in range(tries):
            busy = Busy()
            u = self.once(None, tag)
            t = self.once(arm, tag)
            p = {"u": u, "t": t, **busy.stop()}
            if best is None or p["others"] < best["others"]:
                best = p
            best["attempts"] = attempt + 1
            if p["others"] <= NOISY:
                break
            if attempt + 1 < tries:
                log(f"  {self.w.key}: {arm.key} {tag}: other processes used {p['others']:.2f} CPUs; again")
        if best["others"] > NOISY and tries > 1:
            self.busy_streak += 1
            if self.busy_streak == STREAK:
                log(f"  {self.w.key}: the machine stays busy; pairs are no longer run twice")
        elif best["others"] <= NOISY:
            self.busy_streak = 0
        return best


def figures(arm_key, pairs, server):
    """Medians (min, max) over the pairs of one arm."""
    def spread(v):
        return [statistics.median(v), min(v), max(v)] if v else None
    d = {"pairs": len(pairs),
         "ratio": spread([p["t"]["tput"] / p["u"]["tput"] if server else p["t"]["wall"] / p["u"]["wall"]
                          for p in pairs]),
         "cpu_ratio": spread([p["t"]["cpu"] / p["u"]["cpu"] for p in pairs if p["u"]["cpu"] > 0]),
         "wall_u": statistics.median(p["u"]["wall"] for p in pairs),
         "wall_t": statistics.median(p["t"]["wall"] for p in pairs),
         "cpu_u": statistics.median(p["u"]["cpu"] for p in pairs),
         "cpu_t": statistics.median(p["t"]["cpu"] for p in pairs),
         "rss_u": statistics.median(p["u"]["rss_kb"] for p in pairs),
         "rss_t": statistics.median(p["t"]["rss_kb"] for p in pairs),
         "others": [p["others"] for p in pairs],
         "steal": [p["steal"] for p in pairs],
         "redone": sum(p["attempts"] - 1 for p in pairs)}
    if server:
        d["tput_u"] = statistics.median(p["u"]["tput"] for p in pairs)
        d["tput_t"] = statistics.median(p["t"]["tput"] for p in pairs)
    tr = [p["t"]["trace"] for p in pairs if "trace" in p["t"]]
    if tr:
        d["trace_bytes"] = spread([t["bytes"] for t in tr])
        d["heap_events"] = spread([t["heap"] for t in tr])
        d["events"] = statistics.median(t["events"] for t in tr)
        d["mb_per_core_s"] = spread([p["t"]["trace"]["bytes"] / 1e6 / p["u"]["cpu"] for p in pairs])
        d["sampled"] = sorted({t["sampled"] for t in tr}, key=lambda x: (x is None, x))
    out = [p["t"]["output_bytes"] for p in pairs if "output_bytes" in p["t"]]
    if out:
        d["output_bytes"] = statistics.median(out)
    return d


def run_row(w, pairs, keys=None):
    """Measures row w (a real_programs or real_servers object); returns the
    section's data for results/KEY.json."""
    why = w.missing()
    if why:
        raise Failed(why)
    os.makedirs(f"{OUT}/real", exist_ok=True)
    commands = (w.setup() if hasattr(w, "setup") else w.build()) or []
    row = Row(w)
    chosen = arms(w.key, keys)
    live = [(k, a) for k, a in chosen if not isinstance(a, str)]
    skipped = {k: a for k, a in chosen if isinstance(a, str)}
    results = {k: {"key": k, "tool": a.tool, "label": a.label, "pairs": [], "failed": None,
                   "validated": 0, "parse_s": 0.0, "kinds": {}, "says": []} for k, a in live}
    t0 = time.monotonic()
    for i in range(pairs + 1):
        tag = "warm-up" if i == 0 else f"pair {i}"
        t1 = time.monotonic()
        for k, a in live:
            res = results[k]
            if res["failed"]:
                continue
            try:
                p = row.pair(a, tag, retry=i > 0)     # the warm-up's figures are dropped anyway
            except Failed as e:
                if row.expected is None:
                    raise       # the untraced program itself failed
                res["failed"] = str(e)
                log(f"  {w.key}: {k} FAILED: {str(e).splitlines()[0]}")
                continue
            for line in p["t"].get("says", []):
                if line[:200] not in res["says"]:
                    res["says"].append(line[:200])
            tr = p["t"].get("trace")
            if tr:
                res["validated"] += tr["files"]
                res["parse_s"] += tr["parse_s"]
                for kind, n in tr["kinds"].items():
                    res["kinds"][kind] = max(res["kinds"].get(kind, 0), n)
            if i > 0:
                res["pairs"].append(p)
        log(f"  {w.key}: {tag} in {time.monotonic() - t1:.0f} s")
    arms_out = []
    for k, a in live:
        res = results[k]
        d = {x: res[x] for x in ("key", "tool", "label", "failed", "validated", "parse_s", "says")}
        d["kinds"] = dict(sorted(res["kinds"].items(), key=lambda kv: -kv[1])[:6])
        d["raw"] = [{"u": {x: v for x, v in p["u"].items() if x != "outcome"},
                     "t": {x: v for x, v in p["t"].items() if x not in ("outcome", "says")},
                     "others": p["others"], "steal": p["steal"],
                     "attempts": p["attempts"]}
                    for p in res["pairs"]]
        if res["pairs"] and not res["failed"]:
            d.update(figures(k, res["pairs"], row.server))
        cmd, extra = a.command(w.argv()) if not row.server else (a.prefix + w.argv(), a.extra)
        d["cmd"] = show(cmd, extra)
        arms_out.append(d)
        if k != "gotrace":
            a.cleanup()     # the last defaults trace stays, to look at
    argv = w.argv()
    commands += [show(argv) + "   # untraced"] + [a["cmd"] for a in arms_out]
    if row.server:
        commands += w.client_commands()
    commands.append(f"GOTOOLCHAIN=local {measure.GO} tool trace -d=parsed TRACE   # every gotrace trace")
    return {"kind": "server" if row.server else "batch", "label": w.label, "describe": w.describe,
            "target": w.target, "unit": getattr(w, "unit", None), "outcome": row.expected,
            "arms": arms_out, "skipped": skipped, "commands": commands,
            "measure_s": time.monotonic() - t0,
            # a gotrace arm that fails (crash, changed output, rejected trace) fails the bench
            "failed": any(a["failed"] for a in arms_out if a["tool"] == "gotrace")}
