#!/usr/bin/env python3
"""server_bench.py — what tracing costs a real network server: memcached's
throughput untraced and traced (LD_PRELOAD=build/libgotrace.so in
memcached's environment only).

Each run starts a fresh `memcached -p PORT -U 0 -t 2 -l 127.0.0.1` on a free
loopback port, drives it with memaslap (`memcaslap` in Debian's
libmemcached-tools) for a fixed number of requests (90% get, 10% set), reads
the requests/s memaslap reports, and stops memcached with SIGTERM (the
tracer writes its last generation then). One warm-up pair first, then PAIRS
pairs alternating untraced / traced (A B A B ...); the figure is the median
over the pairs of traced/untraced requests/s, with the spread (min-max) of
the per-pair ratios. memcached's own CPU time per request (user + system,
from wait4) is printed beside it: less sensitive to other load on the
machine than requests/s. The last traced run's trace is checked with the newest
Go's parser when a Go toolchain is installed.

    python3 test/bench/server_bench.py [--pairs 7] [--requests 300000]
        [--threads 2] [--concurrency 16] [--period 1s] [--json FILE]

Progress goes to stderr; stdout gets one line per run and, last, the
summary:

    memcached: traced/untraced throughput ratio 0.97 (0.95-0.99), 5 pairs

Exit status: 0 done; 1 a run failed (the reason on stderr); 2 memcached,
memcaslap or build/libgotrace.so is missing (nothing was measured; the
reason on stdout as "memcached: skipped (...)").  Debian packages:
memcached, libmemcached-tools.  Python 3 standard library only.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIB = os.path.join(ROOT, "build", "libgotrace.so")


class Failed(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def clean_env():
    """The environment without any tracer variable (in case this script
    itself runs under the tracer)."""
    return {k: v for k, v in os.environ.items()
            if k != "LD_PRELOAD" and not (k.startswith("GOTRACE_") and not k.startswith("GOTRACE_TEST_"))}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def newest_go():
    found = []
    for p in glob.glob("/usr/lib/go-1.*/bin/go"):
        m = re.search(r"/go-1\.(\d+)/bin/go$", p)
        if m and os.access(p, os.X_OK):
            found.append((int(m.group(1)), p))
    return max(found)[1] if found else None


class Server:
    """One memcached process; env_extra goes to its environment only."""

    def __init__(self, memcached, threads, env_extra, log_path):
        self.memcached = memcached
        self.threads = threads
        self.env = clean_env()
        self.env.update(env_extra)
        self.log_path = log_path
        self.proc = None
        self.port = None

    def argv(self):
        a = [self.memcached, "-p", str(self.port), "-U", "0", "-t", str(self.threads), "-l", "127.0.0.1"]
        if os.geteuid() == 0:
            a += ["-u", "root"]     # memcached refuses to run as root without -u
        return a

    def start(self, timeout=15):
        for _ in range(3):
            self.port = free_port()
            with open(self.log_path, "wb") as logf:
                self.proc = subprocess.Popen(self.argv(), env=self.env, stdin=subprocess.DEVNULL,
                                             stdout=logf, stderr=logf)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                    return
                except OSError:
                    time.sleep(0.05)
            if self.proc.poll() is None:
                self.kill()
                raise Failed("memcached did not accept connections within %ss" % timeout)
            text = open(self.log_path, errors="replace").read()
            if "bind" not in text and "in use" not in text:
                raise Failed("memcached exited at start with status %s:\n%s" % (self.proc.returncode, text[-2000:]))
        raise Failed("memcached could not bind a free port in three tries")

    def stop(self, timeout=60):
        """SIGTERM, wait; returns memcached's CPU seconds (user + system)."""
        self.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
            if pid == self.proc.pid:
                break
            if time.monotonic() > deadline:
                self.kill()
                raise Failed("memcached did not end within %ss of SIGTERM" % timeout)
            time.sleep(0.02)
        rc = os.waitstatus_to_exitcode(status)
        self.proc.returncode = rc
        if rc != 0:
            text = open(self.log_path, errors="replace").read()
            raise Failed("memcached ended with status %s after SIGTERM:\n%s" % (rc, text[-2000:]))
        return ru.ru_utime + ru.ru_stime

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


_OPS = re.compile(r"Run time:\s*([\d.]+)s\s+Ops:\s*(\d+)\s+TPS:\s*(\d+)")


def one_run(args, memcached, memaslap, traced, workdir, tag):
    """Requests/s of one run (and the trace's size when traced)."""
    trace = os.path.join(workdir, tag + ".trace")
    env = {}
    if traced:
        env = {"LD_PRELOAD": LIB, "GOTRACE_OUT": trace}
        if args.period:
            env["GOTRACE_PERIOD"] = args.period
    server = Server(memcached, args.threads, env, os.path.join(workdir, tag + ".log"))
    server.start()
    try:
        argv = [memaslap, "-s", "127.0.0.1:%d" % server.port, "-T", str(args.client_threads),
                "-c", str(args.concurrency), "-x", str(args.requests)]
        t0 = time.monotonic()
        p = subprocess.run(argv, env=clean_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        wall = time.monotonic() - t0
        out = p.stdout.decode("utf-8", "replace")
        m = _OPS.search(out)
        if p.returncode != 0 or not m:
            raise Failed("%s failed (exit %d):\n$ %s\n%s" % (os.path.basename(memaslap), p.returncode,
                                                            " ".join(argv), out[-2000:]))
        ops, tps = int(m.group(2)), int(m.group(3))
        if ops != args.requests:
            raise Failed("memaslap executed %d requests, asked for %d:\n%s" % (ops, args.requests, out[-2000:]))
        misses = re.search(r"get_misses:\s*(\d+)", out)
        cpu = server.stop()
    finally:
        server.kill()
    size = None
    if traced:
        if not os.path.exists(trace) or os.path.getsize(trace) <= 16:
            raise Failed("the traced run wrote no trace (or only its header): %s" % trace)
        size = os.path.getsize(trace)
    return {"rps": float(tps), "wall": wall, "cpu_us_per_request": cpu * 1e6 / ops, "trace_bytes": size, "trace": trace if traced else None,
            "get_misses": int(misses.group(1)) if misses else None}


def check_trace(trace):
    go = newest_go()
    if not go:
        log("server_bench: no Go toolchain under /usr/lib/go-1.*: the trace is not parsed")
        return None
    env = clean_env()
    env["GOTOOLCHAIN"] = "local"
    p = subprocess.run([go, "tool", "trace", "-d=parsed", trace], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0:
        raise Failed("%s tool trace rejected %s:\n%s" % (go, trace, p.stderr.decode("utf-8", "replace")[-2000:]))
    return go


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=7, help="measured pairs after the warm-up pair (>= 5)")
    ap.add_argument("--requests", type=int, default=300000, help="requests per run")
    ap.add_argument("--threads", type=int, default=2, help="memcached worker threads (-t)")
    ap.add_argument("--client-threads", type=int, default=2, help="memaslap threads (-T)")
    ap.add_argument("--concurrency", type=int, default=16, help="memaslap connections (-c)")
    ap.add_argument("--period", default=None, help="GOTRACE_PERIOD for the traced runs (default: the library's)")
    ap.add_argument("--json", default=None, help="also write the results to this file")
    ap.add_argument("--keep", action="store_true", help="keep the traces and logs (printed at the end)")
    args = ap.parse_args()
    if args.pairs < 1:
        ap.error("--pairs must be at least 1")

    memcached = shutil.which("memcached")
    memaslap = shutil.which("memcaslap") or shutil.which("memaslap")
    missing = []
    if not memcached:
        missing.append("memcached (Debian package memcached)")
    if not memaslap:
        missing.append("memcaslap (Debian package libmemcached-tools)")
    if not os.path.exists(LIB):
        missing.append("%s (run make)" % LIB)
    if missing:
        print("memcached: skipped (missing: %s)" % ", ".join(missing), flush=True)
        return 2

    workdir = tempfile.mkdtemp(prefix="gotrace-server-bench-")
    results = {"untraced": [], "traced": [], "ratios": []}
    try:
        log("server_bench: memcached -t %d, %s -T %d -c %d -x %d; 1 warm-up pair + %d pairs"
            % (args.threads, os.path.basename(memaslap), args.client_threads, args.concurrency,
               args.requests, args.pairs))
        for i in range(args.pairs + 1):
            label = "warm-up" if i == 0 else "pair %d" % i
            a = one_run(args, memcached, memaslap, False, workdir, "run%d-untraced" % i)
            b = one_run(args, memcached, memaslap, True, workdir, "run%d-traced" % i)
            ratio = b["rps"] / a["rps"]
            print("%-8s untraced %9.0f req/s %5.2f us CPU/req   traced %9.0f req/s %5.2f us CPU/req   "
                  "ratio %.3f   trace %.1f MB"
                  % (label, a["rps"], a["cpu_us_per_request"], b["rps"], b["cpu_us_per_request"], ratio,
                     b["trace_bytes"] / 1e6), flush=True)
            if i == 0:
                continue
            results["untraced"].append(a)
            results["traced"].append(b)
            results["ratios"].append(ratio)
            last_trace = b["trace"]
            if not args.keep and i < args.pairs:
                os.unlink(b["trace"])
        go = check_trace(last_trace)
        if go:
            log("server_bench: %s accepted the last trace (%s)" % (go, last_trace))
    except (Failed, subprocess.TimeoutExpired) as e:
        log("server_bench: FAILED: %s" % e)
        log("server_bench: logs and traces kept in %s" % workdir)
        return 1

    ratios = results["ratios"]
    med = statistics.median(ratios)
    lo, hi = min(ratios), max(ratios)
    u = statistics.median(r["rps"] for r in results["untraced"])
    t = statistics.median(r["rps"] for r in results["traced"])
    cpu_ratios = [b["cpu_us_per_request"] / a["cpu_us_per_request"]
                  for a, b in zip(results["untraced"], results["traced"])]
    cu = statistics.median(r["cpu_us_per_request"] for r in results["untraced"])
    ct = statistics.median(r["cpu_us_per_request"] for r in results["traced"])
    print("untraced median %.0f req/s, traced median %.0f req/s, %d requests per run"
          % (u, t, args.requests), flush=True)
    print("memcached CPU per request: untraced %.2f us, traced %.2f us, traced/untraced %.2f (%.2f-%.2f)"
          % (cu, ct, statistics.median(cpu_ratios), min(cpu_ratios), max(cpu_ratios)), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "memcached", "requests": args.requests, "pairs": len(ratios),
                       "threads": args.threads, "client_threads": args.client_threads,
                       "concurrency": args.concurrency, "period": args.period,
                       "untraced_rps": [r["rps"] for r in results["untraced"]],
                       "traced_rps": [r["rps"] for r in results["traced"]],
                       "trace_bytes": [r["trace_bytes"] for r in results["traced"]],
                       "untraced_cpu_us_per_request": [r["cpu_us_per_request"] for r in results["untraced"]],
                       "traced_cpu_us_per_request": [r["cpu_us_per_request"] for r in results["traced"]],
                       "cpu_ratios": cpu_ratios,
                       "ratios": ratios, "median_ratio": med, "min_ratio": lo, "max_ratio": hi},
                      f, indent=1)
    if args.keep:
        log("server_bench: traces and logs kept in %s" % workdir)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    print("memcached: traced/untraced throughput ratio %.2f (%.2f-%.2f), %d pairs" % (med, lo, hi, len(ratios)),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
