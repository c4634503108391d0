#!/usr/bin/env python3
"""run.py — `make bench`: what tracing costs, gotrace beside the tools
people would pick instead, on synthetic storms and real programs.

    python3 test/bench/run.py [--only SECTIONS] [--pairs N] [--peers KEYS]
                              [--no-doc] [--list]

Sections (default all, in this order): micro, snapshot (the live-heap
snapshot: snapshot_bench.py), mutex, condvar, malloc,
syscall, churn, pigz, sysbench-threads, sysbench-mutex, xz, memcached, then
the real programs: real-node-pbkdf2, real-node-alloc, real-python,
real-java, real-ripgrep, real-mariadb, real-redis, real-memcached
(real_programs.py, real_servers.py, measured by real_measure.py).
--only (or BENCH_ONLY=mutex,sysbench) picks some: a name matches a section
or the sections starting with it and a dash ("sysbench" = both, "real" =
every real program). --peers (or BENCH_PEERS=gotrace,strace) limits the
arms: gotrace, every, stacks0, malloc0, heaptrack, lttng, uftrace, strace,
ltrace, helgrind, drd. --pairs (or BENCH_PAIRS) sets the timed pairs
(default 5; micro uses 7, memcached 5 and each real program its own
`pairs`: 9 for the 0.15 s node pbkdf2 script, 7 for ripgrep, 3 for the
servers, unless --pairs is given).

Each section's figures go to test/bench/results/SECTION.json (kept in the
repository), and docs/benchmarks.md is rebuilt from every section's latest
results (report.py; a section without a results file keeps its text from
the previous docs/benchmarks.md). Modules: runner.py (one run), workloads.py (the programs),
peers.py (the tools), measure.py (pairs and validation), micro.py,
report.py. Exit status: 0 every figure measured; 1 something failed (the
rest still ran; the report names it). Python 3 standard library only.
"""
import argparse
import atexit
import json
import os
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import measure  # noqa: E402
import micro  # noqa: E402
import peers  # noqa: E402
import real_measure  # noqa: E402
import real_programs  # noqa: E402
import real_servers  # noqa: E402
import report  # noqa: E402
import snapshot_bench  # noqa: E402
import workloads  # noqa: E402
from runner import GO, LIB, OUT, ROOT, Failed, facts, log  # noqa: E402

DOC = "docs/benchmarks.md"
REAL = {w.key: w for w in real_programs.ALL + real_servers.ALL}
SECTIONS = ["micro", "snapshot"] + [w.key for w in workloads.ALL] + ["memcached"] + list(REAL)


def cpu_seconds():
    """(busy CPU-seconds of the machine, CPU-seconds of this script and its
    reaped children): the difference over a section is what others used."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    busy = (v[0] + v[1] + v[2] + v[5] + v[6]) / os.sysconf("SC_CLK_TCK")
    mine = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        ru = resource.getrusage(who)
        mine += ru.ru_utime + ru.ru_stime
    return busy, mine


def pick(only):
    if not only:
        return list(SECTIONS)
    names = [n.strip() for n in only.split(",") if n.strip()]
    chosen = [s for s in SECTIONS if any(s == n or s.startswith(n + "-") for n in names)]
    unknown = [n for n in names if not any(s == n or s.startswith(n + "-") for s in SECTIONS)]
    if unknown:
        raise Failed(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(SECTIONS)}")
    return chosen


def run_workload(w, pairs, peer_keys):
    """The workload under every arm that applies; returns the section's data."""
    why = w.missing()
    if why:
        raise Failed(why)
    commands = w.build()
    arms, skipped = [], dict(w.skip)
    for key, div in w.peers.items():
        if peer_keys and key not in peer_keys:
            continue
        arm = peers.PEERS[key](w.key)
        if isinstance(arm, str):
            skipped[key] = arm
            continue
        arms.append((arm, div))
    for key in peers.PEERS:
        if key not in w.peers and key not in skipped and (not peer_keys or key in peer_keys):
            if key not in ("every", "malloc0", "heaptrack", "helgrind", "drd"):
                skipped[key] = "not applied to this workload"
    results = measure.measure(w, arms, pairs)
    rows = [r.summary() for r in results]
    for r, res in zip(rows, results):
        r["warm_size"] = w.size(res.div * w.warm_div)
    for r in rows:
        commands += [f"# {w.key}: {r['label']}", r["cmd_u"], r["cmd_t"]]
    commands += [f"GOTOOLCHAIN=local {GO} tool trace -d=parsed TRACE   # each gotrace warm-up trace"]
    return {"label": w.label, "describe": w.describe, "target": w.target, "arm_targets": w.arm_targets,
            "arms": rows,
            "skipped": skipped, "commands": commands,
            # a peer that fails is reported, not fatal; a gotrace arm that
            # fails (crash, changed output, rejected trace) fails the bench
            "failed": any(r.get("failed") for r in rows if r["tool"] == "gotrace")}


def run_memcached(pairs):
    raw = f"{OUT}/memcached.json"
    if os.path.exists(raw):
        os.unlink(raw)
    cmd = [sys.executable, "test/bench/server_bench.py", "--pairs", str(pairs), "--json", raw]
    code = subprocess.call(cmd, cwd=ROOT)
    d = {"label": "memcached", "commands": [" ".join(cmd[1:])]}
    if code == 2:
        d["failed"] = "memcached or memcaslap is not installed (make deps installs them)"
        d["missing"] = True
    elif code != 0 or not os.path.exists(raw):
        d["failed"] = f"test/bench/server_bench.py exited {code}"
    else:
        with open(raw) as f:
            d["raw"] = json.load(f)
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY", ""))
    ap.add_argument("--pairs", type=int, default=int(os.environ.get("BENCH_PAIRS", "0")) or None)
    ap.add_argument("--peers", default=os.environ.get("BENCH_PEERS", ""))
    ap.add_argument("--no-doc", action="store_true", help=f"do not rewrite {DOC}")
    ap.add_argument("--list", action="store_true", help="list the sections and exit")
    args = ap.parse_args()
    if args.list:
        print("\n".join(SECTIONS))
        return 0
    os.chdir(ROOT)
    if not os.path.isfile(LIB):
        raise Failed(f"{LIB} is missing; run 'make' first")
    if not os.access(GO, os.X_OK):
        raise Failed(f"{GO} not found (make deps installs it; or set GO=/path/to/go)")
    os.makedirs(report.RESULTS, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)  # every section builds and writes here
    chosen = pick(args.only)
    peer_keys = {p.strip() for p in args.peers.split(",") if p.strip()}
    unknown = peer_keys - set(peers.PEERS)
    if unknown:
        raise Failed(f"unknown peer(s) {', '.join(sorted(unknown))}; known: {', '.join(peers.PEERS)}")
    atexit.register(peers.LttngDaemon.stop)
    # SIGTERM / SIGHUP unwind like an exception, so the finally below
    # still stops the LTTng session daemon.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: sys.exit(128 + s))
    by_key = {w.key: w for w in workloads.ALL}
    began = time.monotonic()
    failed = []
    try:
        for key in chosen:
            log(f"bench: {key}")
            t0, cpu0, f = time.monotonic(), cpu_seconds(), facts()
            try:
                if key == "micro":
                    pairs = args.pairs or 7
                    d = micro.measure(pairs)
                    d["commands"] = d["build"] + [c for r in d["rows"] for c in (r["cmd_u"], r["cmd_t"])] + \
                        [r["cmd"] for r in d["callgrind"]]
                elif key == "snapshot":
                    pairs = args.pairs or 3
                    d = snapshot_bench.measure(pairs)
                elif key == "memcached":
                    pairs = args.pairs or 5
                    d = run_memcached(pairs)
                elif key in REAL:
                    w = REAL[key]
                    pairs = args.pairs or w.pairs
                    d = real_measure.run_row(w, pairs, peer_keys)
                else:
                    pairs = args.pairs or 5
                    d = run_workload(by_key[key], pairs, peer_keys)
            except Failed as e:
                log(f"bench: {key} FAILED: {e}")
                failed.append(key)
                continue
            if d.get("failed") and not d.get("missing"):
                failed.append(key)
            cpu1 = cpu_seconds()
            d.update(section=key, pairs=pairs, facts=f, elapsed=time.monotonic() - t0,
                     others=max(0.0, (cpu1[0] - cpu0[0]) - (cpu1[1] - cpu0[1])))
            with open(f"{report.RESULTS}/{key}.json", "w") as fh:
                json.dump(d, fh, indent=1)
            log(f"bench: {key} done in {d['elapsed']:.0f} s")
    finally:
        peers.LttngDaemon.stop()
    previous = ""
    if os.path.isfile(DOC):
        with open(DOC) as f:
            previous = f.read()
    text = report.render(previous)
    if not args.no_doc:
        with open(DOC, "w") as f:
            f.write(text)
        log(f"bench: wrote {DOC}")
    print(text)
    log(f"bench: {time.monotonic() - began:.0f} s" + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failed as e:
        print(f"bench: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        peers.LttngDaemon.stop()
        sys.exit(130)
