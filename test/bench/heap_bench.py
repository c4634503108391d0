#!/usr/bin/env python3
"""heap_bench.py — what recording every allocation costs: a malloc storm run
untraced and traced, side by side, with a heap-event count check and a perf
profile. A standalone, deeper look: `make bench` (run.py) measures the same
malloc storm beside heaptrack, LTTng and the other peers in its "malloc"
section; this script is no longer part of it.

test/bench/malloc_storm.c (THREADS threads, OPS malloc/calloc + free pairs
each, sizes 16 B - 4 KiB, about 1 s untraced on 2 cores) runs in five ways:

  untraced                 the program alone
  gotrace                  LD_PRELOAD=build/libgotrace.so with the defaults:
                           heap events, GOTRACE_STACKS=32
  gotrace, stacks 0        the same with GOTRACE_STACKS=0 (no unwinding; the
                           allocation site is still named)
  gotrace, no heap events  GOTRACE_MALLOC=0 (the wrappers still run)
  heaptrack                `heaptrack -o FILE prog`, when heaptrack is
                           installed (Debian package heaptrack), at
                           1/HEAPTRACK_DIV of the operations: it is ~15x
                           slower, and full-size runs would not fit the
                           time budget. Its untraced partner runs at the
                           same size.

One warm-up round at 1/WARM_DIV of the size first, then PAIRS rounds; in a
round every traced way runs right after its own untraced run of the same
size (U A U B U C u H), so each figure is a median over PAIRS adjacent
pairs, with the min - max of the per-pair values beside it:

  - wall ratio traced / untraced (spawn to exit, so the final trace write
    and heaptrack's own post-processing are in);
  - ns added per malloc+free pair: (traced - untraced) / pairs, for wall
    time and for CPU time (user + system of every thread and child process,
    from wait4: the tracer's flusher, heaptrack_interpret and its
    compressor included);
  - trace size (the last traced run's file) and bytes per heap event = size
    / (mallocs + frees), the counts being the program's own (it prints
    them); the validation below checks that they match the trace;
  - peak RSS from /usr/bin/time -f %M (for heaptrack: the largest process
    of its tree, the program or heaptrack_interpret).

Every run's checksum must equal the untraced one. Then one short run with the
defaults (VALIDATE_OPS per thread) is read with `go tool trace -d=parsed`,
which must exit 0 and show as many HeapObjectAlloc / HeapObjectFree events
as the program made (plus a few of libc's own); and, when perf works, one
traced run at 1/PERF_DIV of the size is profiled with `perf record` to show
where the time goes.

The results are printed and written to docs/benchmarks.md as its "Heap"
section (between two marker comments; a rerun replaces that section and
keeps the rest of the file).

    python3 test/bench/heap_bench.py [--pairs N] [--ops N] [--threads N]
        [--no-doc]

Exit status: 0 done (also when heaptrack or perf is missing: those parts are
skipped with a message); 1 a run failed or build/libgotrace.so is missing.
Python 3 standard library only; run from anywhere.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIB = "build/libgotrace.so"
OUT = "build/bench"
DOC = "docs/benchmarks.md"
SRC = "test/bench/malloc_storm.c"
EXE = OUT + "/malloc_storm"
GO = os.environ.get("GO", "/usr/lib/go-1.27/bin/go")
CC = os.environ.get("CC", "cc")
CFLAGS = ["-O2", "-g", "-pthread", "-fno-builtin", "-Wall", "-Wextra"]

PAIRS = 5                # timed rounds after the warm-up round
THREADS = 2
OPS = 14_000_000         # malloc + free pairs per thread: ~1 s untraced on 2 cores
WARM_DIV = 10            # the warm-up round runs OPS / WARM_DIV
HEAPTRACK_DIV = 4        # heaptrack (and its untraced partner) run OPS / HEAPTRACK_DIV
VALIDATE_OPS = 250_000   # per thread, for the go tool trace -d=parsed check
PERF_DIV = 4             # the profiled run does OPS / PERF_DIV
EXTRA_EVENTS = 200       # heap events of libc / pthread / stdio allowed beyond the program's

BEGIN = "<!-- heap_bench.py: begin (generated; a rerun replaces this section) -->"
END = "<!-- heap_bench.py: end -->"
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
RSS_FILE = OUT + "/heap-maxrss.txt"
OUTPUT_RE = re.compile(r"checksum ([0-9a-f]+) mallocs ([0-9]+) frees ([0-9]+) seconds ([0-9.]+)")


class Failed(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- the arms ----

class Arm:
    def __init__(self, key, label, env=None, prefix=None, div=1, trace=None):
        self.key = key
        self.label = label
        self.env = env or {}        # variables added to the clean environment
        self.prefix = prefix or []  # a launcher before the program (heaptrack)
        self.div = div              # runs OPS / div operations per thread
        self.trace = trace          # output file, or a glob for heaptrack's
        self.pairs = []             # [(untraced Result, traced Result)]


def gotrace_arm(key, label, **env):
    trace = f"{OUT}/heap-{key}.trace"
    return Arm(key, label, dict({"LD_PRELOAD": LIB, "GOTRACE_OUT": trace}, **env), trace=trace)


def arms(with_heaptrack):
    out = [
        gotrace_arm("gotrace", "gotrace: heap events, `GOTRACE_STACKS=32` (defaults)",
                    GOTRACE_STACKS="32"),
        gotrace_arm("stacks0", "gotrace: heap events, `GOTRACE_STACKS=0`", GOTRACE_STACKS="0"),
        gotrace_arm("nomalloc", "gotrace: `GOTRACE_MALLOC=0` (no heap events)", GOTRACE_MALLOC="0"),
    ]
    if with_heaptrack:
        base = f"{OUT}/heap-heaptrack"
        out.append(Arm("heaptrack", f"heaptrack {HEAPTRACK_VERSION} (`heaptrack -o FILE`)", prefix=["heaptrack", "-o", base], div=HEAPTRACK_DIV, trace=base + ".*"))
    return out


HEAPTRACK_VERSION = ""


# ---- running ----

class Result:
    def __init__(self, wall, cpu, rss_kb, checksum, mallocs, frees, work):
        self.wall = wall          # s, spawn to reaped
        self.cpu = cpu            # s, user + system of the whole process tree
        self.rss_kb = rss_kb      # peak RSS of the largest process (KiB)
        self.checksum = checksum
        self.mallocs = mallocs
        self.frees = frees
        self.work = work          # s, the program's own timing of its threads


def clean_env():
    return {k: v for k, v in os.environ.items()
            if k != "LD_PRELOAD" and not k.startswith(("GOTRACE_", "HEAPTRACK_"))}


def command(arm, ops, threads):
    """(argv, env additions) of one run; arm None = untraced. With
    /usr/bin/time the variables go through `env` so that only the program
    (or heaptrack) sees them, never time itself."""
    prog = [EXE, str(threads), str(ops)]
    argv = (arm.prefix if arm else []) + prog
    extra = dict(arm.env) if arm else {}
    if TIME:
        argv = [TIME, "-f", "%M", "-o", RSS_FILE, "env"] + [f"{k}={v}" for k, v in extra.items()] + argv
        extra = {}
    return argv, extra


def show(argv, extra):
    words = [f"{k}={shlex.quote(v)}" for k, v in extra.items()] + [shlex.quote(a) for a in argv]
    return " ".join(words)


def run(arm, ops, threads, what):
    argv, extra = command(arm, ops, threads)
    env = clean_env()
    env.update(extra)
    out_path = f"{OUT}/heap-stdout.txt"
    err_path = f"{OUT}/heap-stderr.txt"
    exe = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=env.get("PATH"))
    if not exe:
        raise Failed(f"{argv[0]} not found")
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
    ]
    t0 = time.monotonic_ns()
    pid = os.posix_spawn(exe, argv, env, file_actions=actions)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.monotonic_ns() - t0) / 1e9
    code = os.waitstatus_to_exitcode(status)
    with open(out_path, errors="replace") as f:
        out = f.read()
    with open(err_path, errors="replace") as f:
        err = f.read()
    if code != 0:
        how = f"exit status {code}" if code > 0 else f"signal {-code}"
        raise Failed(f"{what} failed ({how}): {show(argv, extra)}\n{out[-1000:]}{err[-2000:]}")
    m = OUTPUT_RE.search(out)
    if not m:
        raise Failed(f"{what}: no checksum line in the output of {show(argv, extra)}:\n{out[-1000:]}")
    rss = ru.ru_maxrss
    if TIME:
        with open(RSS_FILE) as f:
            rss = int(f.read().split()[-1])
    return Result(wall, ru.ru_utime + ru.ru_stime, rss, m.group(1), int(m.group(2)),
                  int(m.group(3)), float(m.group(4)))


def trace_files(arm):
    return sorted(glob.glob(arm.trace)) if arm.trace else []


def remove_traces(arm):
    for p in trace_files(arm):
        os.unlink(p)


def one_pair(arm, ops, threads, what, expect=None):
    """An untraced run, then the arm's run of the same size; checks that the
    checksums agree and that a trace was written."""
    u = run(None, ops, threads, f"{what} (untraced)")
    remove_traces(arm)
    t = run(arm, ops, threads, what)
    if t.checksum != u.checksum or (expect and u.checksum != expect):
        raise Failed(f"{what}: checksum {t.checksum} traced, {u.checksum} untraced"
                     + (f", {expect} before" if expect else ""))
    if (t.mallocs, t.frees) != (u.mallocs, u.frees) or u.mallocs != ops * threads:
        raise Failed(f"{what}: the program counted {t.mallocs}/{t.frees} traced, "
                     f"{u.mallocs}/{u.frees} untraced, for {ops * threads} operations")
    files = trace_files(arm)
    if not files or os.path.getsize(files[0]) == 0:
        raise Failed(f"{what}: no output file ({arm.trace})")
    return u, t


def compile_storm():
    cmd = [CC] + CFLAGS + ["-o", EXE, SRC]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise Failed(f"compiling {SRC} failed:\n{r.stderr}")
    return shlex.join(cmd)


# ---- validation and profile ----

def validate(threads):
    """A short default-config run read with go tool trace -d=parsed: exit 0,
    and the heap event counts next to the program's own."""
    arm = gotrace_arm("validate", "validation")
    remove_traces(arm)
    r = run(arm, VALIDATE_OPS, threads, "validation run")
    cmd = [GO, "tool", "trace", "-d=parsed", arm.trace]
    env = dict(clean_env(), GOTOOLCHAIN="local")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    allocs = frees = other = 0
    for line in p.stdout:
        if b"Name=HeapObjectAlloc" in line:
            allocs += 1
        elif b"Name=HeapObjectFree" in line:
            frees += 1
        else:
            other += 1
    err = p.stderr.read().decode(errors="replace")
    code = p.wait()
    secs = time.monotonic() - t0
    if code != 0:
        raise Failed(f"go tool trace -d=parsed {arm.trace} exited {code}:\n{err[-2000:]}")
    for name, got, want in (("HeapObjectAlloc", allocs, r.mallocs), ("HeapObjectFree", frees, r.frees)):
        if not want <= got <= want + EXTRA_EVENTS:
            raise Failed(f"{arm.trace}: {got:,} {name} events for the program's {want:,}")
    size = os.path.getsize(arm.trace)
    return {"ops": VALIDATE_OPS, "mallocs": r.mallocs, "frees": r.frees, "allocs": allocs,
            "free_events": frees, "lines": allocs + frees + other, "size": size, "secs": secs,
            "cmd_run": show(*command(arm, VALIDATE_OPS, threads)),
            "cmd_parse": f"GOTOOLCHAIN=local {GO} tool trace -d=parsed {arm.trace} | grep -c HeapObject"}


PERF_LINE = re.compile(r"^\s*([0-9.]+)%\s+(\S+)\s+(\S+)\s+\[(.)\]\s+(.+?)\s*$")


def profile(ops, threads):
    """perf record of one default-config run; None when perf does not work.
    Returns the perf report lines grouped by (thread, library, symbol):
    libraries without symbols are one row."""
    if not shutil.which("perf"):
        return None, "perf is not installed"
    arm = gotrace_arm("perf", "profile", GOTRACE_STACKS="32")
    data = f"{OUT}/heap-perf.data"
    remove_traces(arm)
    prog = ["env"] + [f"{k}={v}" for k, v in arm.env.items()] + [EXE, str(threads), str(ops)]
    rec = ["perf", "record", "-q", "-o", data, "--"] + prog
    r = subprocess.run(rec, cwd=ROOT, env=clean_env(), capture_output=True, text=True)
    remove_traces(arm)
    if r.returncode != 0:
        return None, f"perf record failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}"
    rep = ["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "comm,dso,sym"]
    r2 = subprocess.run(rep, cwd=ROOT, env=clean_env(), capture_output=True, text=True)
    os.unlink(data)
    if os.path.exists(data + ".old"):
        os.unlink(data + ".old")
    if r2.returncode != 0:
        return None, "perf report failed"
    rows = {}
    for line in r2.stdout.splitlines():
        m = PERF_LINE.match(line)
        if not m:
            continue
        pct, comm, dso, _, sym = m.groups()
        if sym.startswith("0x"):
            sym = "(no symbols)"
        key = (comm, dso, sym)
        rows[key] = rows.get(key, 0.0) + float(pct)
    if not rows:
        return None, "perf report printed no samples"
    return sorted(rows.items(), key=lambda kv: -kv[1]), shlex.join(rec)


# ---- formatting ----

def fmt(x, unit="", digits=None):
    if digits is None:
        digits = 1 if abs(x) < 100 else 0
    return f"{x:,.{digits}f}{unit}"


def spread(values):
    return statistics.median(values), min(values), max(values)


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def busy_seconds():
    """(busy CPU-seconds of the machine, CPU-seconds of this script and its
    reaped children): the difference over the run is what others used."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    busy = (sum(v[:8]) - v[3] - v[4]) / hz
    me = os.times()
    return busy, me.user + me.system + me.children_user + me.children_system


def write_doc(section):
    old = ""
    if os.path.isfile(DOC):
        with open(DOC) as f:
            old = f.read()
    block = BEGIN + "\n" + section.rstrip("\n") + "\n" + END + "\n"
    a, b = old.find(BEGIN), old.find(END)
    if a >= 0 and b > a:
        rest = old[b + len(END):].lstrip("\n")
        new = old[:a] + block + ("\n" + rest if rest else "")
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + block
    with open(DOC, "w") as f:
        f.write(new)


# ---- main ----

def main():
    global HEAPTRACK_VERSION
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=PAIRS)
    ap.add_argument("--ops", type=int, default=OPS, help="operations per thread")
    ap.add_argument("--threads", type=int, default=THREADS, choices=[1, 2, 3, 4])
    ap.add_argument("--no-doc", action="store_true", help=f"do not add a section to {DOC} "
                    "(make bench rewrites that file without it)")
    args = ap.parse_args()
    os.chdir(ROOT)
    if not os.path.isfile(LIB):
        raise Failed(f"{LIB} is missing; run 'make' first")
    if not os.access(GO, os.X_OK):
        raise Failed(f"{GO} not found (make deps installs it; or set GO=/path/to/go)")
    os.makedirs(OUT, exist_ok=True)
    began = time.monotonic()
    cpu0 = busy_seconds()
    facts = runner.facts()
    skipped = []
    if shutil.which("heaptrack"):
        v = subprocess.run(["heaptrack", "--version"], capture_output=True, text=True).stdout
        m = re.search(r"([0-9]+\.[0-9]+(?:\.[0-9]+)?)", v)
        HEAPTRACK_VERSION = m.group(1) if m else "?"
    else:
        msg = "heaptrack is not installed (Debian package heaptrack): its row is skipped"
        log("heap bench: " + msg)
        skipped.append(msg)
    build_cmd = compile_storm()
    ways = arms(bool(HEAPTRACK_VERSION))
    T = args.threads

    log(f"heap bench: warm-up round (1/{WARM_DIV} size)")
    for arm in ways:
        one_pair(arm, max(1, args.ops // (WARM_DIV * arm.div)), T, f"warm-up {arm.key}")
    expect = {}
    for i in range(args.pairs):
        t0 = time.monotonic()
        for arm in ways:
            ops = max(1, args.ops // arm.div)
            u, t = one_pair(arm, ops, T, f"{arm.key} pair {i + 1}", expect.get(ops))
            expect[ops] = u.checksum
            arm.pairs.append((u, t))
        log(f"heap bench: round {i + 1}/{args.pairs} in {time.monotonic() - t0:.1f}s")
    sizes = {}
    for arm in ways:
        files = trace_files(arm)
        sizes[arm.key] = (files[0], os.path.getsize(files[0]))
        remove_traces(arm)   # hundreds of MB each: the numbers are kept, not the files

    log("heap bench: validating a short trace with go tool trace -d=parsed")
    val = validate(T)
    log(f"heap bench: perf profile (1/{PERF_DIV} size)")
    prof, prof_cmd = profile(max(1, args.ops // PERF_DIV), T)
    if prof is None:
        skipped.append(f"no profile: {prof_cmd}")
        log(f"heap bench: {prof_cmd}; no profile")

    elapsed = time.monotonic() - began
    cpu1 = busy_seconds()
    others = max(0.0, (cpu1[0] - cpu0[0]) - (cpu1[1] - cpu0[1]))

    # ---- tables ----
    time_rows, size_rows = [], []
    per_pair = {}
    for arm in ways:
        P = arm.pairs
        n = P[0][0].mallocs
        ratio = spread([t.wall / u.wall for u, t in P])
        ns_wall = spread([(t.wall - u.wall) * 1e9 / n for u, t in P])
        ns_cpu = spread([(t.cpu - u.cpu) * 1e9 / n for u, t in P])
        per_pair[arm.key] = (ns_wall[0], ns_cpu[0], ratio[0])
        ops = args.ops // arm.div
        time_rows.append([
            arm.label, f"{ops:,}", fmt(statistics.median(u.wall for u, _ in P), " s", 2),
            fmt(statistics.median(t.wall for _, t in P), " s", 2),
            f"**{ratio[0]:.2f}×** ({ratio[1]:.2f} – {ratio[2]:.2f})",
            f"**{fmt(ns_wall[0], ' ns')}** ({fmt(ns_wall[1])} – {fmt(ns_wall[2])})",
            f"{fmt(ns_cpu[0], ' ns')} ({fmt(ns_cpu[1])} – {fmt(ns_cpu[2])})"])
        path, size = sizes[arm.key]
        events = P[-1][1].mallocs + P[-1][1].frees
        ru = statistics.median(u.rss_kb for u, _ in P) / 1024
        rt = statistics.median(t.rss_kb for _, t in P) / 1024
        wall = P[-1][1].wall
        size_rows.append([
            arm.label, f"heaptrack file ({os.path.splitext(path)[1]})" if arm.key == "heaptrack" else "trace",
            f"{size:,} B" if size < 100_000 else fmt(size / 1e6, " MB", 2 if size < 10e6 else 1),
            "—" if arm.key == "nomalloc" else fmt(size / events, " B", 2),
            "—" if arm.key == "nomalloc" else fmt(size / 1e6 / wall, " MB/s", 1),
            fmt(ru, " MiB"), f"{fmt(rt, ' MiB')} ({rt - ru:+.1f})"])
    time_tab = table(["run", "ops per thread", "untraced wall", "traced wall",
                      "wall traced/untraced: median (min – max)",
                      "wall ns added per malloc+free pair: median (min – max)",
                      "CPU ns added per pair: median (min – max)"], time_rows)
    size_tab = table(["run", "output", "size", "bytes per heap event", "written per wall second",
                      "peak RSS untraced", "peak RSS traced"], size_rows)

    prof_tab = None
    if prof:
        rows = [[f"{pct:.1f}%", f"`{comm}`", f"`{dso}`", f"`{sym}`"] for (comm, dso, sym), pct in prof[:14]]
        prof_tab = table(["samples", "thread", "object", "function"], rows)
        by_dso = {}
        for (comm, dso, _), pct in prof:
            k = f"`{dso}`" + (" (flusher thread)" if comm == "gotrace-flush" else "")
            by_dso[k] = by_dso.get(k, 0.0) + pct
        dso_line = ", ".join(f"{k} {v:.0f}%" for k, v in sorted(by_dso.items(), key=lambda kv: -kv[1])
                             if v >= 0.5)

    # ---- notes, from the figures ----
    notes = []
    g, s0, nm = per_pair["gotrace"], per_pair["stacks0"], per_pair["nomalloc"]
    notes.append(f"Unwinding (32-frame stacks vs `GOTRACE_STACKS=0`) adds {fmt(g[0] - s0[0], ' ns')} "
                 f"wall ({fmt(g[1] - s0[1], ' ns')} CPU) per pair; recording the two events "
                 f"without unwinding costs {fmt(s0[0] - nm[0], ' ns')} wall "
                 f"({fmt(s0[1] - nm[1], ' ns')} CPU) per pair over `GOTRACE_MALLOC=0`, whose "
                 f"wrappers cost {fmt(nm[0], ' ns')} wall per pair.")
    if "heaptrack" in per_pair:
        h = per_pair["heaptrack"]
        notes.append(f"heaptrack costs {fmt(h[0], ' ns')} wall ({fmt(h[1], ' ns')} CPU) per pair; "
                     f"gotrace with the defaults {fmt(g[0], ' ns')} ({fmt(g[1], ' ns')} CPU). "
                     f"heaptrack's runs are {HEAPTRACK_DIV}× shorter; its file is compressed "
                     "(zstd) and its CPU includes heaptrack_interpret and the compressor.")
    notes.append(f"Validation: `go tool trace -d=parsed` read the trace of a {val['ops']:,}-operation "
                 f"run (per thread) in {val['secs']:.1f} s and exited 0; it counted "
                 f"{val['allocs']:,} HeapObjectAlloc and {val['free_events']:,} HeapObjectFree for the "
                 f"program's {val['mallocs']:,} + {val['frees']:,} (the rest are libc's, pthread's and "
                 f"stdio's own); bytes per heap event {val['size'] / (val['allocs'] + val['free_events']):.2f} "
                 f"counted from the trace, {val['size'] / (val['mallocs'] + val['frees']):.2f} from the "
                 "program's counts.")
    if others / elapsed > 0.1:
        notes.insert(0, f"**The machine was not idle**: other processes used {others:.0f} CPU-seconds "
                     f"during the {elapsed:.0f} s heap benchmark. Timings are skewed; rerun on an idle machine.")
    notes += skipped

    o = []
    o.append(f"## Heap: malloc storm ({args.pairs} pairs)\n")
    o.append(f"Generated by test/bench/heap_bench.py (the last step of `make bench`; it can run alone). "
             f"{facts['date']}, commit {facts['commit']}, "
             f"{elapsed:.0f} s; `nproc` = {facts['nproc']}, {facts['cpu']}, kernel {facts['kernel']}; "
             f"1-minute load average {facts['load']:.2f} at the start, other processes used "
             f"{others:.1f} CPU-seconds during the run.\n")
    o.append(f"test/bench/malloc_storm.c: {T} threads, each doing N malloc/calloc + free pairs of "
             "16 B – 4 KiB objects (deterministic sizes; 1 in 8 kept in a 4,096-slot ring, the rest "
             "freed 4 allocations later; three call sites 3–8 frames deep). One warm-up round at "
             f"1/{WARM_DIV} size, then {args.pairs} rounds, each traced run right after an untraced "
             "run of the same size; medians over the pairs with min – max. Wall is spawn to exit "
             "(final trace write and heaptrack's post-processing included); CPU is user + system of "
             "every thread and child process. ns per pair = (traced − untraced) / (threads × N). "
             "Every run's checksum matches the untraced one.\n")
    o.append(time_tab + "\n")
    o.append("Sizes are those of the last traced run; bytes per heap event = size / (mallocs + frees "
             "the program counted), framing and tables included. Peak RSS is `/usr/bin/time -f %M` "
             "(median over the pairs; for heaptrack the largest process of its tree). gotrace "
             "holds a whole generation (`GOTRACE_PERIOD`, 1 s) of events in memory before writing "
             "it, so its RSS grows with the event rate.\n" if TIME else
             "Sizes are those of the last traced run; bytes per heap event = size / (mallocs + frees "
             "the program counted). Peak RSS is the child's `ru_maxrss` (/usr/bin/time is missing).\n")
    o.append(size_tab + "\n")
    if prof_tab:
        o.append(f"Where the time goes: `perf record` of one default-config run at 1/{PERF_DIV} size "
                 "(share of all samples, both program threads and the flusher; a library without "
                 f"symbols is one row). By object: {dso_line}.\n")
        o.append(prof_tab + "\n")
    o.append("Notes:\n")
    o += [f"- {n}" for n in notes]
    o.append("")
    o.append("Commands (from the repository root; N = "
             f"{args.ops:,}, or {args.ops // HEAPTRACK_DIV:,} beside heaptrack):\n")
    o.append("```")
    o.append(build_cmd)
    for arm in [None] + ways:
        argv, extra = command(arm, "N", T)
        o.append(f"# {arm.label if arm else 'untraced'}")
        o.append(show(argv, extra))
    o.append("# validation")
    o.append(val["cmd_run"])
    o.append(val["cmd_parse"])
    if prof_tab:
        o.append("# profile")
        o.append(prof_cmd)
        o.append(f"perf report -i {OUT}/heap-perf.data --stdio --no-children --sort comm,dso,sym")
    o.append("```")
    section = "\n".join(o) + "\n"
    print(section)
    if not args.no_doc:
        write_doc(section)
        log(f"heap bench: wrote the Heap section of {DOC} ({elapsed:.0f} s)")


if __name__ == "__main__":
    try:
        main()
    except Failed as e:
        print(f"heap bench: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
