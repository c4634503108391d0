#!/usr/bin/env python3
"""run.py — `make bench`: what tracing costs, measured side by side.

Every figure compares traced runs (LD_PRELOAD=build/libgotrace.so) with
untraced runs of the same command: one warm-up pair first, then PAIRS_* pairs
that alternate untraced / traced (A B A B ...). A figure is the median over
the pairs of a per-pair difference or ratio, with the spread (min-max) of
those per-pair values beside it.

  1. microbenchmarks (test/bench/micro.c): an uncontended mutex lock + unlock
     (interposed calls that record nothing) and sched_yield (two events per
     call) with GOTRACE_STACKS=0 and 32; plus, when valgrind is installed,
     callgrind instruction counts of the same timed loops;
  2. trace size: bytes per event and events per second, counted with
     `go tool trace -d=footprint`;
  3. whole programs: examples/contention.c and `pigz -p 2 -c` on a ~100 MB
     file: wall-time ratio and peak RSS.

The table is printed and written to docs/benchmarks.md. Any failed run, a
missing library or a missing tool stops the benchmark with a non-zero exit.
Python 3 standard library only; run from anywhere (paths are taken relative
to the repository root, which is also the working directory of every run).
"""
import datetime
import hashlib
import os
import platform
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIB = "build/libgotrace.so"
OUT = "build/bench"
DOC = "docs/benchmarks.md"
GO = os.environ.get("GO", "/usr/lib/go-1.27/bin/go")
CC = os.environ.get("CC", "cc")
CFLAGS = ["-O2", "-g", "-pthread"]

PAIRS_MICRO = 7          # pairs per microbenchmark (after one warm-up pair)
PAIRS_PROGRAM = 7        # pairs per whole program (after one warm-up pair)
MUTEX_N = 20_000_000     # lock + unlock rounds per micro run
YIELD_N = 2_000_000      # sched_yield calls per micro run
CALLGRIND_N = {"mutex": 100_000, "yield": 50_000}
PIGZ_INPUT = OUT + "/pigz-input.txt"
PIGZ_SEQ = 13_000_000    # `seq 1 13000000`: 105,888,897 bytes
PIGZ_INPUT_SIZE = 105_888_897

# Rows of `go tool trace -d=footprint` that are framing or tables, not events.
NOT_EVENTS = {"EventBatch", "Frequency", "Stacks", "Stack", "Strings", "String",
              "ExperimentalBatch", "Sync"}


class Failed(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- running commands ----

def clean_env():
    """The environment of every run: ours, minus any preload or GOTRACE_*."""
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and not k.startswith("GOTRACE_")}
    return env


def traced_env(trace, stacks):
    # Format 26: Go 1.27's raw reader (-d=footprint, used to count events)
    # reads experimental (heap) events only in 1.26 files; the events and
    # their bytes are the same as in the default format 23.
    return {"LD_PRELOAD": LIB, "GOTRACE_OUT": trace, "GOTRACE_STACKS": str(stacks),
            "GOTRACE_FORMAT": "26"}


def show(argv, extra=None, stdout=None):
    """The shell spelling of a run, for the report."""
    words = [f"{k}={shlex.quote(v)}" for k, v in (extra or {}).items()]
    words.append(shlex.join(argv))
    s = " ".join(words)
    if stdout and stdout != "/dev/null":
        s += " > " + stdout
    elif stdout:
        s += " >/dev/null"
    return s


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
RSS_FILE = OUT + "/maxrss.txt"


def with_rss(argv, extra):
    """The command that also measures peak RSS: /usr/bin/time -f %M around
    `env VARS... argv`, so that the variables (LD_PRELOAD above all) reach
    the program and not time itself. Both arms take the same detour.

    Without /usr/bin/time the child's ru_maxrss from wait4 is used; it is
    never below run.py's own RSS, since exec keeps the old image's peak."""
    if not TIME:
        return argv, extra
    env_args = [f"{k}={v}" for k, v in (extra or {}).items()]
    return [TIME, "-f", "%M", "-o", RSS_FILE, "env"] + env_args + argv, None


class Run:
    def __init__(self, wall, cpu, maxrss_kb, stdout):
        self.wall = wall            # seconds, spawn to reaped
        self.cpu = cpu              # user + system seconds of the child and its descendants
        self.maxrss_kb = maxrss_kb  # peak RSS (KiB), see with_rss
        self.stdout = stdout        # text, or None when sent to /dev/null


def run(argv, extra=None, stdout_path=None, what="", quiet_stderr=False, rss=False):
    """Runs argv (cwd = ROOT) with the clean environment plus extra; stdout
    goes to stdout_path (read back) or /dev/null, stderr to a file. Fails on
    a non-zero exit. rss: measure peak RSS (with_rss)."""
    traced = bool(extra and "LD_PRELOAD" in extra)
    if rss:
        argv, extra = with_rss(argv, extra)
    env = clean_env()
    env.update(extra or {})
    exe = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=env.get("PATH"))
    if not exe:
        raise Failed(f"{argv[0]} not found")
    err_path = os.path.join(OUT, "stderr.txt")
    out = stdout_path or "/dev/null"
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
    ]
    t0 = time.monotonic_ns()
    pid = os.posix_spawn(exe, argv, env, file_actions=actions)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.monotonic_ns() - t0) / 1e9
    with open(err_path, errors="replace") as f:
        err = f.read()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        how = f"exit status {code}" if code > 0 else f"signal {-code}"
        raise Failed(f"{what or 'run'} failed ({how}): {show(argv, extra)}\n{err[-2000:]}")
    if err.strip() and traced and not quiet_stderr:
        WARNINGS.append(f"{what}: stderr of the traced run: {err.strip()[:300]}")
    text = None
    if stdout_path:
        with open(stdout_path, errors="replace") as f:
            text = f.read()
    maxrss = ru.ru_maxrss
    if rss and TIME:
        with open(RSS_FILE) as f:
            maxrss = int(f.read().split()[-1])
    return Run(wall, ru.ru_utime + ru.ru_stime, maxrss, text)


WARNINGS = []


def check_trace(path, what):
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        raise Failed(f"{what}: the traced run wrote no trace at {path}")


def alternate(pairs, untraced, traced, trace, what):
    """Warm-up pair, then `pairs` pairs; untraced()/traced() each return a
    Run. Returns [(untraced Run, traced Run)] without the warm-up."""
    out = []
    t0 = time.monotonic()
    for i in range(pairs + 1):
        a = untraced()
        if os.path.exists(trace):
            os.unlink(trace)
        b = traced()
        check_trace(trace, what)
        if i > 0:
            out.append((a, b))
    log(f"  {what}: {pairs} pairs + warm-up in {time.monotonic() - t0:.1f}s")
    return out


def spread(values):
    return statistics.median(values), min(values), max(values)


# ---- setup ----

def compile_c(src, exe):
    cmd = [CC] + CFLAGS + ["-Wall", "-Wextra", "-o", exe, src]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise Failed(f"compiling {src} failed:\n{r.stderr}")
    return shlex.join(cmd)


def make_pigz_input():
    cmd = f"seq 1 {PIGZ_SEQ} > {PIGZ_INPUT}"
    if not (os.path.isfile(PIGZ_INPUT) and os.path.getsize(PIGZ_INPUT) == PIGZ_INPUT_SIZE):
        with open(PIGZ_INPUT, "wb") as f:
            subprocess.run(["seq", "1", str(PIGZ_SEQ)], stdout=f, check=True)
        if os.path.getsize(PIGZ_INPUT) != PIGZ_INPUT_SIZE:
            raise Failed(f"{PIGZ_INPUT} has an unexpected size")
    return cmd


def cpu_seconds():
    """(busy CPU seconds of the whole machine, CPU seconds of this script
    and its reaped descendants): their difference over the benchmark is what
    other processes took."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    busy = (v[0] + v[1] + v[2] + v[5] + v[6]) / os.sysconf("SC_CLK_TCK")  # user nice system irq softirq
    mine = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        ru = resource.getrusage(who)
        mine += ru.ru_utime + ru.ru_stime
    return busy, mine


def machine():
    facts = {}
    facts["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    facts["nproc"] = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    facts["cpu"] = model
    facts["kernel"] = platform.release()
    facts["libc"] = os.confstr("CS_GNU_LIBC_VERSION") if "CS_GNU_LIBC_VERSION" in os.confstr_names else "?"
    cc = subprocess.run([CC, "--version"], capture_output=True, text=True).stdout.splitlines()
    facts["cc"] = cc[0] if cc else CC
    g = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                       capture_output=True, text=True)
    facts["commit"] = g.stdout.strip() if g.returncode == 0 else "unknown"
    facts["load"] = os.getloadavg()[0]
    return facts


# ---- measurements ----

def micro_ns(r, mode):
    m = re.fullmatch(rf"{mode} ([0-9.]+) [0-9]+\n", r.stdout or "")
    if not m:
        raise Failed(f"micro {mode}: unexpected output {r.stdout!r}")
    return float(m.group(1))


def micro(mode, n, stacks, what):
    argv = [OUT + "/micro", mode, str(n)]
    trace = f"{OUT}/micro-{mode}-s{stacks}.trace"
    extra = traced_env(trace, stacks)
    so = OUT + "/stdout.txt"
    pairs = alternate(PAIRS_MICRO,
                      lambda: run(argv, None, so, what),
                      lambda: run(argv, extra, so, what),
                      trace, what)
    u = [micro_ns(a, mode) for a, _ in pairs]
    t = [micro_ns(b, mode) for _, b in pairs]
    return {"u": u, "t": t, "trace": trace, "traced_wall": pairs[-1][1].wall,
            "cmd_u": show(argv), "cmd_t": show(argv, extra)}


def footprint(trace):
    """Runs go tool trace -d=footprint; returns (events, per-type counts)."""
    env = dict(os.environ, GOTOOLCHAIN="local")
    r = subprocess.run([GO, "tool", "trace", "-d=footprint", trace], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise Failed(f"go tool trace -d=footprint {trace} failed:\n{r.stderr[-2000:]}")
    counts = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) < 5 or not f[-2].isdigit():
            continue
        counts[" ".join(f[:-4])] = int(f[-2])
    events = sum(c for name, c in counts.items() if name not in NOT_EVENTS)
    if events == 0:
        raise Failed(f"{trace}: go tool trace counted no events")
    return events, counts


CALLGRIND_CMDS = []


def callgrind(mode, stacks):
    """Instructions per op of micro's timed loop under callgrind; stacks None
    means untraced. LD_PRELOAD set for valgrind reaches the client: valgrind
    adds its own preloads to it. (The launcher /usr/bin/valgrind is preloaded
    too; it only claims an empty trace file before it execs the tool.)"""
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={OUT}/callgrind.out",
            "--collect-atstart=no", f"--toggle-collect=bench_{mode}",
            OUT + "/micro", mode, str(CALLGRIND_N[mode])]
    extra = None
    if stacks is not None:
        extra = traced_env(f"{OUT}/callgrind-{mode}.trace", stacks)
    run(argv, extra, None, f"callgrind {mode}", quiet_stderr=True)
    with open(os.path.join(OUT, "stderr.txt")) as f:
        m = re.search(r"Collected : ([0-9]+)", f.read())
    if not m:
        raise Failed(f"callgrind {mode}: no 'Collected' line in valgrind's output")
    CALLGRIND_CMDS.append(show(argv, extra))
    for name in os.listdir(OUT):
        if name.startswith(f"callgrind-{mode}.trace"):
            os.unlink(os.path.join(OUT, name))
    return int(m.group(1)) / CALLGRIND_N[mode]


def program(argv, stdout_path, what, check):
    trace = f"{OUT}/{what}.trace"
    extra = traced_env(trace, 32)
    pairs = alternate(PAIRS_PROGRAM,
                      lambda: run(argv, None, stdout_path, what, rss=True),
                      lambda: run(argv, extra, stdout_path, what, rss=True),
                      trace, what)
    for a, b in pairs:
        check(a, b)
    return {"pairs": pairs, "trace": trace,
            "cmd_u": show(*with_rss(argv, None), stdout_path or "/dev/null"),
            "cmd_t": show(*with_rss(argv, extra), stdout_path or "/dev/null")}


# ---- formatting ----

def fmt(x, unit="", digits=None):
    if digits is None:
        digits = 1 if abs(x) < 100 else 0
    return f"{x:,.{digits}f}{unit}"


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main():
    os.chdir(ROOT)
    if not os.path.isfile(LIB):
        raise Failed(f"{LIB} is missing; run 'make' first")
    for tool in ("pigz", "seq"):
        if not shutil.which(tool):
            raise Failed(f"{tool} is not installed (make deps installs it)")
    if not os.access(GO, os.X_OK):
        raise Failed(f"{GO} not found (make deps installs it; or set GO=/path/to/go)")
    os.makedirs(OUT, exist_ok=True)
    began = time.monotonic()
    cpu0 = cpu_seconds()
    facts = machine()
    cmds = {}
    cmds["build micro"] = compile_c("test/bench/micro.c", OUT + "/micro")
    cmds["build contention"] = compile_c("examples/contention.c", OUT + "/contention")
    cmds["pigz input"] = make_pigz_input()

    log("bench: microbenchmarks")
    mx = micro("mutex", MUTEX_N, 0, "micro mutex")
    y0 = micro("yield", YIELD_N, 0, "micro yield stacks=0")
    y32 = micro("yield", YIELD_N, 32, "micro yield stacks=32")

    cg = None
    if shutil.which("valgrind"):
        log("bench: callgrind instruction counts")
        cg = {"mutex": (callgrind("mutex", None), callgrind("mutex", 0))}
        plain = callgrind("yield", None)
        cg["yield0"] = (plain, callgrind("yield", 0))
        cg["yield32"] = (plain, callgrind("yield", 32))

    log("bench: whole programs")

    def same_stdout(a, b):
        if a.stdout != b.stdout:
            raise Failed(f"contention printed different output traced:\n{b.stdout}\nuntraced:\n{a.stdout}")

    con = program([OUT + "/contention"], OUT + "/contention.out", "contention", same_stdout)

    # pigz: the warm-up pair checks that the traced output is byte-identical.
    pigz_argv = ["pigz", "-p", "2", "-c", PIGZ_INPUT]
    digests = []
    for traced in (False, True):
        extra = traced_env(OUT + "/pigz-check.trace", 32) if traced else None
        run(pigz_argv, extra, OUT + "/pigz.out.gz", "pigz output check")
        with open(OUT + "/pigz.out.gz", "rb") as f:
            digests.append(hashlib.sha256(f.read()).hexdigest())
    check_trace(OUT + "/pigz-check.trace", "pigz output check")
    os.unlink(OUT + "/pigz.out.gz")
    os.unlink(OUT + "/pigz-check.trace")
    if digests[0] != digests[1]:
        raise Failed("pigz wrote different output when traced")
    pz = program(pigz_argv, None, "pigz", lambda a, b: None)

    log("bench: trace sizes (go tool trace -d=footprint)")
    sizes = []
    for label, trace, wall in (
            ("micro yield, GOTRACE_STACKS=0", y0["trace"], y0["traced_wall"]),
            ("micro yield, GOTRACE_STACKS=32", y32["trace"], y32["traced_wall"]),
            ("examples/contention.c", con["trace"], con["pairs"][-1][1].wall),
            ("`pigz -p 2 -c`, 106 MB file", pz["trace"], pz["pairs"][-1][1].wall)):
        events, counts = footprint(trace)
        size = os.path.getsize(trace)
        sizes.append((label, trace, size, events, wall, counts))

    # ---- the report ----
    elapsed = time.monotonic() - began
    cpu1 = cpu_seconds()
    others = max(0.0, (cpu1[0] - cpu0[0]) - (cpu1[1] - cpu0[1]))
    P = PAIRS_MICRO
    rows = []

    def micro_row(label, d, per, unit_label):
        diffs = [(t - u) / per for u, t in zip(d["u"], d["t"])]
        med, lo, hi = spread(diffs)
        rows.append([label, fmt(statistics.median(d["u"]), " ns"),
                     fmt(statistics.median(d["t"]), " ns"),
                     f"**{fmt(med, ' ns')}** {unit_label}", f"{fmt(lo)} – {fmt(hi)}"])
        return med

    nothing = micro_row("uncontended `pthread_mutex_lock` + `unlock` (records nothing)", mx, 2, "per call")
    ev0 = micro_row("`sched_yield`, `GOTRACE_STACKS=0` (GoStop + GoStart)", y0, 2, "per event")
    micro_row("`sched_yield` 8 frames deep, `GOTRACE_STACKS=32`", y32, 2, "per event")
    micro_tab = table(["operation (one op)", "untraced ns/op", "traced ns/op",
                       "tracing cost (median of pairs)", "pairs min – max"], rows)

    cg_tab = None
    if cg:
        rows = []
        for key, label, per, unit in (
                ("mutex", "uncontended lock + unlock", 2, "per call"),
                ("yield0", "`sched_yield`, `GOTRACE_STACKS=0`", 2, "per event"),
                ("yield32", "`sched_yield` 8 deep, `GOTRACE_STACKS=32`", 2, "per event")):
            u, t = cg[key]
            if t <= u:
                raise Failed(f"callgrind {key}: the traced loop ran no more instructions "
                             f"than the untraced one; was the library preloaded?")
            rows.append([label, fmt(u, "", 0), fmt(t, "", 0), f"{fmt((t - u) / per, '', 0)} {unit}"])
        cg_tab = table(["operation (one op)", "untraced instructions/op",
                        "traced instructions/op", "extra instructions"], rows)

    rows = []
    for label, trace, size, events, wall, counts in sizes:
        rows.append([label, fmt(size / 1e6, " MB", 2), f"{events:,}", fmt(size / events, " B", 2),
                     fmt(events / wall / 1e3, "k/s", 0), fmt(size / 1e6 / wall, " MB/s", 2)])
    size_tab = table(["traced run", "trace size", "events", "bytes per event",
                      "events per second", "trace written"], rows)

    rows = []
    for label, d in (("examples/contention.c", con), ("`pigz -p 2 -c`, 106 MB file", pz)):
        pairs = d["pairs"]
        med, lo, hi = spread([b.wall / a.wall for a, b in pairs])
        cmed, clo, chi = spread([b.cpu / a.cpu for a, b in pairs])
        ru = statistics.median(a.maxrss_kb for a, _ in pairs) / 1024
        rt = statistics.median(b.maxrss_kb for _, b in pairs) / 1024
        rows.append([label, fmt(statistics.median(a.wall for a, _ in pairs), " s", 3),
                     fmt(statistics.median(b.wall for _, b in pairs), " s", 3),
                     f"**{med:.3f}×** ({lo:.3f} – {hi:.3f})",
                     f"**{cmed:.3f}×** ({clo:.3f} – {chi:.3f})",
                     fmt(ru, " MiB"), f"{fmt(rt, ' MiB')} ({rt - ru:+.1f})"])
    prog_tab = table(["program", "untraced wall", "traced wall",
                      "wall traced/untraced: median (min – max)",
                      "CPU traced/untraced: median (min – max)",
                      "peak RSS untraced", "peak RSS traced"], rows)

    con_mix = ", ".join(f"{k} {v:,}" for k, v in sorted(sizes[2][5].items(), key=lambda kv: -kv[1])
                          if v and k not in NOT_EVENTS)

    commands = [
        ("compile the microbenchmark", cmds["build micro"]),
        ("compile the contended demo", cmds["build contention"]),
        ("generate the pigz input (once)", cmds["pigz input"]),
        ("mutex, untraced", mx["cmd_u"]),
        ("mutex, traced", mx["cmd_t"]),
        ("yield, untraced", y0["cmd_u"]),
        ("yield, traced without stacks", y0["cmd_t"]),
        ("yield, traced with stacks", y32["cmd_t"]),
        ("contention, untraced", con["cmd_u"]),
        ("contention, traced", con["cmd_t"]),
        ("pigz, untraced", pz["cmd_u"]),
        ("pigz, traced", pz["cmd_t"]),
        ("count events", f"GOTOOLCHAIN=local {GO} tool trace -d=footprint TRACE"),
    ]
    if cg:
        for c in dict.fromkeys(CALLGRIND_CMDS):
            commands.append(("instruction count", c))

    notes = []
    if nothing > 5:
        extra_ir = f" ({(cg['mutex'][1] - cg['mutex'][0]) / 2:.0f} instructions)" if cg else ""
        notes.append(f"An interposed call that records nothing costs {nothing:.1f} ns{extra_ir} "
                     "over the real call; the budget (DESIGN.md, section 4) is a few ns.")
    if ev0 > 50:
        notes.append(f"An event without a stack costs {ev0:.0f} ns, above the tens of ns the "
                     "budget allows: worth a look at the hot path.")
    if others / elapsed > 0.1:
        notes.insert(0, f"**The machine was not idle**: other processes used {others:.0f} CPU-seconds "
                     f"during the {elapsed:.0f} s benchmark ({100 * others / elapsed:.0f}% of one CPU). "
                     "Timings are skewed; rerun on an idle machine.")
    notes += WARNINGS

    out = []
    out.append("# Benchmarks\n")
    out.append("Generated by `make bench` (test/bench/run.py); rerun it to refresh this file. "
               "Every figure compares traced runs with untraced runs of the same command, "
               "alternating untraced / traced after one warm-up pair; the figure is the median "
               "of the per-pair differences (or ratios), with their min – max beside it.\n")
    out.append(f"- date: {facts['date']}, commit {facts['commit']}, "
               f"{elapsed:.0f} s for the whole benchmark")
    out.append(f"- machine: `nproc` = {facts['nproc']}, CPU {facts['cpu']}, "
               f"kernel {facts['kernel']}, {facts['libc']}, {facts['cc']}")
    out.append(f"- other processes used {others:.1f} CPU-seconds while the benchmark ran "
               f"({100 * others / elapsed:.0f}% of one CPU; anything else running skews the figures); "
               f"1-minute load average {facts['load']:.2f} at the start")
    out.append("")
    out.append(f"## Microbenchmarks ({P} pairs)\n")
    out.append("test/bench/micro.c times N rounds in a tight loop with CLOCK_MONOTONIC "
               f"(mutex: N = {MUTEX_N:,}, yield: N = {YIELD_N:,}). Cost = (traced − untraced) "
               "ns per op, divided by the calls or events per op (2 for both).\n")
    out.append(micro_tab + "\n")
    if cg_tab:
        out.append("Instruction counts of the same timed loops under callgrind (deterministic, "
                   f"so a cross-check that does not depend on the noise; N = {CALLGRIND_N['mutex']:,} "
                   f"for mutex, {CALLGRIND_N['yield']:,} for yield; only the calling thread's loop "
                   "is counted, not the flusher thread or the kernel):\n")
        out.append(cg_tab + "\n")
    else:
        out.append("(valgrind is not installed: no instruction counts.)\n")
    out.append("## Trace size\n")
    out.append("Events are the rows of `go tool trace -d=footprint` other than batches, "
               "string and stack tables; bytes per event = file size / events, so the tables "
               "and framing are included. Events per second and MB/s are over the traced "
               "process's whole wall time, for the run that wrote the trace (the last "
               "traced run of each kind).\n")
    out.append(size_tab + "\n")
    out.append(f"Events in the contention trace: {con_mix}.\n")
    out.append(f"## Whole programs ({PAIRS_PROGRAM} pairs, `GOTRACE_STACKS=32`)\n")
    if TIME:
        how_rss = ("`/usr/bin/time -f %M`, with `env` between time and the program so that "
                   "only the program is preloaded (both arms run through time and env)")
    else:
        how_rss = ("the child's `ru_maxrss` from wait4 (/usr/bin/time is not installed); it is "
                   "never below run.py's own RSS, as exec keeps the parent image's peak")
    out.append("Wall time is spawn to exit as seen by run.py; CPU is user + system time of "
               "the program (all its threads, the tracer's flusher included) from wait4; "
               "peak RSS is from "
               f"{how_rss}. Ratios are per pair; RSS is the median over the pairs. contention's "
               "output is compared between every traced and untraced run; pigz's output is "
               "checked to be byte-identical once before the timed pairs.\n")
    out.append(prog_tab + "\n")
    if notes:
        out.append("## Notes\n")
        out += [f"- {n}" for n in notes]
        out.append("")
    out.append("## Commands\n")
    out.append("Run from the repository root; the environment is the caller's with "
               "`LD_PRELOAD` and `GOTRACE_*` removed, plus what is shown.\n")
    out.append("```")
    for label, c in commands:
        out.append(f"# {label}")
        out.append(c)
    out.append("```")
    text = "\n".join(out) + "\n"
    with open(DOC, "w") as f:
        f.write(text)
    print(text)
    log(f"bench: wrote {DOC} ({time.monotonic() - began:.0f} s)")
    if subprocess.call([sys.executable, "test/bench/heap_bench.py"]) != 0:
        raise Failed("test/bench/heap_bench.py failed (its reason is above)")


if __name__ == "__main__":
    try:
        main()
    except Failed as e:
        print(f"bench: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
