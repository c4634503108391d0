"""micro.py — the microbenchmarks (test/bench/micro.c): what one
interposed call costs, as (traced - untraced) ns per op over adjacent
pairs (one warm-up pair, then PAIRS pairs), divided by the calls or events
in one op; plus, when valgrind is installed, callgrind instruction counts
of the same timed loops (deterministic: a cross-check that does not depend
on the machine's noise).
"""
import os
import re
import statistics
import time

from runner import LIB, OUT, Failed, log, remove, run, show, which
from workloads import compile_c

N = {"mutex": 20_000_000, "yield": 2_000_000, "malloc": 2_000_000, "mmap": 200_000}
CALLGRIND_N = {"mutex": 100_000, "yield": 50_000}

# (key, label, mode, GOTRACE_* variables, divisor per op, unit, target ns or None)
CASES = [
    ("mutex", "uncontended `pthread_mutex_lock` + `unlock` (records nothing)", "mutex",
     {"STACKS": "0"}, 2, "per call", 2.0),
    ("yield0", "`sched_yield`, `GOTRACE_STACKS=0` (GoStop + GoStart, no stack)", "yield",
     {"STACKS": "0"}, 2, "per event", 15.0),
    ("yield32", "`sched_yield` 8 frames deep, `GOTRACE_STACKS=32` (event with stack)", "yield",
     {"STACKS": "32"}, 2, "per event", None),
    ("malloc", "`malloc` + `free` 8 frames deep, defaults (2 heap events with stack)", "malloc",
     {}, 1, "per pair", None),
    ("malloc0", "`malloc` + `free`, `GOTRACE_MALLOC=0` (records nothing)", "malloc",
     {"MALLOC": "0"}, 1, "per pair", None),
    ("mmap", "anonymous 64 KiB `mmap` + `munmap` 8 frames deep, defaults (SpanAlloc with stack + SpanFree)",
     "mmap", {}, 1, "per pair", None),
    ("mmap0", "anonymous 64 KiB `mmap` + `munmap`, `GOTRACE_MALLOC=0` (records nothing)", "mmap",
     {"MALLOC": "0"}, 1, "per pair", None),
]


def ns_per_op(r, mode):
    m = re.fullmatch(rf"{mode} ([0-9.]+) [0-9]+\n", r.stdout or "")
    if not m:
        raise Failed(f"micro {mode}: unexpected output {r.stdout!r}")
    return float(m.group(1))


def traced_env(key, env):
    extra = {"LD_PRELOAD": LIB, "GOTRACE_OUT": f"{OUT}/micro-{key}.trace"}
    extra.update({f"GOTRACE_{k}": v for k, v in env.items()})
    return extra


def callgrind(exe, mode, extra):
    """Instructions per op of micro's timed loop; LD_PRELOAD given to
    valgrind reaches the client (valgrind adds its own preloads to it)."""
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={OUT}/callgrind.out",
            "--collect-atstart=no", f"--toggle-collect=bench_{mode}", exe, mode,
            str(CALLGRIND_N[mode])]
    r = run(argv, extra, None, f"callgrind {mode}")
    m = re.search(r"Collected : ([0-9]+)", r.stderr)
    if not m:
        raise Failed(f"callgrind {mode}: no 'Collected' line in valgrind's output")
    for name in os.listdir(OUT):
        if name.startswith("micro-cg"):
            remove(os.path.join(OUT, name))
    return int(m.group(1)) / CALLGRIND_N[mode], show(argv, extra)


def measure(pairs):
    exe = f"{OUT}/micro"
    build = compile_c("test/bench/micro.c", exe, ["-fno-builtin"])
    rows = []
    for key, label, mode, env, per, unit, target in CASES:
        argv = [exe, mode, str(N[mode])]
        extra = traced_env(key, env)
        u, t = [], []
        t0 = time.monotonic()
        for i in range(pairs + 1):
            a = ns_per_op(run(argv, None, None, f"micro {key}"), mode)
            remove(extra["GOTRACE_OUT"])
            b = ns_per_op(run(argv, extra, None, f"micro {key} traced"), mode)
            if not os.path.isfile(extra["GOTRACE_OUT"]):
                raise Failed(f"micro {key}: no trace written")
            if i:
                u.append(a)
                t.append(b)
        remove(extra["GOTRACE_OUT"])
        cost = [(b - a) / per for a, b in zip(u, t)]
        log(f"  micro {key}: {statistics.median(cost):.1f} ns {unit} "
            f"({pairs} pairs, {time.monotonic() - t0:.0f} s)")
        rows.append({"key": key, "label": label, "unit": unit, "target": target, "n": N[mode],
                     "untraced": statistics.median(u), "traced": statistics.median(t),
                     "cost": [statistics.median(cost), min(cost), max(cost)],
                     "cmd_u": show(argv), "cmd_t": show(argv, extra)})
    cg = []
    if which("valgrind"):
        for key, label, mode, env, per, unit, _ in CASES[:3]:
            plain, _ = callgrind(exe, mode, None)
            traced, cmd = callgrind(exe, mode, traced_env("cg-" + key, env))
            if traced <= plain:
                raise Failed(f"callgrind {key}: the traced loop ran no more instructions than "
                             "the untraced one; was the library preloaded?")
            cg.append({"key": key, "label": label, "unit": unit, "untraced": plain,
                       "traced": traced, "extra": (traced - plain) / per, "cmd": cmd,
                       "n": CALLGRIND_N[mode]})
    return {"pairs": pairs, "rows": rows, "callgrind": cg, "build": build}
