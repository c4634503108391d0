"""snapshot_bench.py — the `snapshot` section of `make bench`: what the
live-heap snapshot costs (docs/heap.md, "The live-heap snapshot").

  * the snapshot: test/bench/snapshot_heap.c keeps N = 1,000,000 objects
    live (8 sites, 16-128 B) for a second, with every allocation recorded
    (GOTRACE_MALLOC=all) and 100 ms generations: each generation starts
    with the flusher restating the million objects. The library writes
    what each snapshot cost into the generation's strings
    ("gotrace.snapshot heap_objects=N ns=T cpu_ns=C bytes=B hold_ns=H"); the
    figures are those of the snapshots that restated all N objects, over
    PAIRS runs: the flusher's CPU time (target ≤ 10 ms), its wall time (the
    machine's other load is in it), the longest it held one shard's lock
    (the longest a program thread's malloc or free could have waited for
    it), and the bytes of HeapObject events per generation. A run at N/10 is read by both Go parsers.
  * the live table on the hot path: with every allocation recorded each
    malloc and free also updates the sharded live table (core/heaplive.c);
    test/bench/micro.c's malloc loop under callgrind gives the
    instructions of gt_heaplive_insert + gt_heaplive_remove per
    malloc + free pair, beside the whole pair's traced instructions.
"""
import os
import re
import statistics
import subprocess

from runner import GO, LIB, OUT, ROOT, Failed, log, remove, run, show, which
from workloads import compile_c

N = 1_000_000
SLEEP_MS = 1000
PERIOD = "100ms"
TARGET_MS = 10.0
CALLGRIND_N = 100_000
GO_OLD = os.environ.get("GO_OLD", "/usr/lib/go-1.23/bin/go")

_STAT = re.compile(rb"gotrace\.snapshot heap_objects=(\d+) ns=(\d+) cpu_ns=(\d+) bytes=(\d+) hold_ns=(\d+)")


def snapshot_figures(trace, n):
    """(wall ns, cpu ns, bytes, hold ns) of each snapshot of trace that restated n objects or more."""
    with open(trace, "rb") as f:
        data = f.read()
    return [(int(w), int(c), int(b), int(h)) for o, w, c, b, h in _STAT.findall(data) if int(o) >= n]


def callgrind_live(exe):
    """Instructions of the live table per malloc + free pair, and of the
    whole traced pair, in micro.c's malloc loop (GOTRACE_MALLOC=all)."""
    out = f"{OUT}/snapshot-callgrind.out"
    extra = {"LD_PRELOAD": LIB, "GOTRACE_OUT": f"{OUT}/snapshot-cg.trace", "GOTRACE_MALLOC": "all",
             "GOTRACE_PERIOD": "1h"}
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
            "--toggle-collect=bench_malloc", exe, "malloc", str(CALLGRIND_N)]
    run(argv, extra, None, "callgrind malloc")
    # Self counts by source file: the table's code is inlined into the heap
    # functions (core/heaplive.h) or in core/heaplive.c.
    r = subprocess.run(["callgrind_annotate", "--inclusive=no", out], capture_output=True, text=True)
    total = live = 0
    for line in r.stdout.splitlines():
        m = re.match(r"\s*([0-9,]+) \([^)]*\)\s+(\S+)", line)
        if not m:
            continue
        count, where = int(m.group(1).replace(",", "")), m.group(2)
        if where == "PROGRAM" and not total:
            total = count
        if where.startswith(("core/heaplive.h:", "core/heaplive.c:", "core/lock.h:gt_heaplive")):
            live += count
    for name in os.listdir(OUT):
        if name.startswith("snapshot-cg"):
            remove(os.path.join(OUT, name))
    remove(out)
    return live / CALLGRIND_N, total / CALLGRIND_N, show(argv, extra)


def measure(pairs):
    os.makedirs(OUT, exist_ok=True)
    exe = f"{OUT}/snapshot_heap"
    build = compile_c("test/bench/snapshot_heap.c", exe)
    trace = f"{OUT}/snapshot.trace"
    env = {"LD_PRELOAD": LIB, "GOTRACE_OUT": trace, "GOTRACE_MALLOC": "all", "GOTRACE_PERIOD": PERIOD}
    argv = [exe, str(N), str(SLEEP_MS)]
    figs = []
    for i in range(pairs):
        log(f"bench: snapshot run {i + 1}/{pairs}")
        run(argv, env, None, "snapshot_heap")
        got = snapshot_figures(trace, N)
        if not got:
            raise Failed(f"no snapshot of {N:,} objects in {trace}")
        figs += got
    remove(trace)
    # One smaller run read by both Go parsers.
    small = f"{OUT}/snapshot-small.trace"
    run([exe, str(N // 10), "300"], dict(env, GOTRACE_OUT=small), None, "snapshot_heap small")
    parsers = []
    for go, flag in ((GO_OLD, "-d=1"), (GO, "-d=parsed")):
        if not os.access(go, os.X_OK):
            continue
        p = subprocess.run([go, "tool", "trace", flag, small], cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=dict(os.environ, GOTOOLCHAIN="local"))
        if p.returncode != 0:
            raise Failed(f"{go} tool trace {flag} rejected {small}: {p.stderr.decode()[-500:]}")
        parsers.append(go)
    remove(small)
    cpu = [c / 1e6 for _, c, _, _ in figs]
    wall = [w / 1e6 for w, _, _, _ in figs]
    hold = [h / 1e6 for _, _, _, h in figs]
    d = {"label": "live-heap snapshot", "n": N, "period": PERIOD, "snapshots": len(figs),
         "cpu_ms": [statistics.median(cpu), min(cpu), max(cpu)],
         "wall_ms": [statistics.median(wall), min(wall), max(wall)],
         "hold_ms": [statistics.median(hold), min(hold), max(hold)],
         "bytes": statistics.median(b for _, _, b, _ in figs), "target_ms": TARGET_MS,
         "parsers": parsers, "build": build, "commands": build + [show(argv, env)], "callgrind": None}
    if which("valgrind") and which("callgrind_annotate"):
        micro = f"{OUT}/micro"
        d["build"] += compile_c("test/bench/micro.c", micro, ["-fno-builtin"])
        live, total, cmd = callgrind_live(micro)
        d["callgrind"] = {"live": live, "total": total, "n": CALLGRIND_N, "cmd": cmd}
        d["commands"].append(cmd)
    log(f"bench: snapshot of {N:,} objects: cpu {d['cpu_ms'][0]:.2f} ms (min {d['cpu_ms'][1]:.2f}, "
        f"max {d['cpu_ms'][2]:.2f}), wall {d['wall_ms'][0]:.2f} ms, longest lock hold {d['hold_ms'][2]:.3f} ms, "
        f"{d['bytes'] / 1e6:.1f} MB per generation")
    return d
