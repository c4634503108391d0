"""report.py — docs/benchmarks.md from the sections' results
(test/bench/results/*.json, one per section, each written by its latest
run): a run of a few sections (BENCH_ONLY) refreshes those and keeps the
others' latest figures, each section saying when and at which commit it
ran. A section whose results file is missing (figures from before the
results were kept in the repository) keeps its text, its targets row and
its commands from the previous docs/benchmarks.md (Previous).
"""
import glob
import json
import os

import real_report
from runner import OUT

# Kept in the repository beside docs/benchmarks.md, so that a run of a few
# sections (BENCH_ONLY) in any checkout regenerates the whole file.
RESULTS = "test/bench/results"

ORDER = ["micro", "snapshot", "mutex", "condvar", "malloc", "syscall", "churn", "pigz", "sysbench-threads",
         "sysbench-mutex", "xz", "memcached"] + real_report.ORDER

HOW = {
    "gotrace": "`LD_PRELOAD=build/libgotrace.so GOTRACE_OUT=FILE`; `GOTRACE_STACKS=0` (no "
               "unwinding), `GOTRACE_MALLOC=0` (no heap events; only where the program "
               "allocates much) and `GOTRACE_MALLOC=1` (every allocation recorded, whatever the "
               "default) are separate rows.",
    "heaptrack": "`heaptrack -o FILE prog` (the malloc storm and the real programs: it records "
                 "the heap, nothing else); its wall time includes its own post-processing and zstd "
                 "compression. A server under heaptrack is stopped by SIGTERM to the server process "
                 "under heaptrack's shell script, which then waits for its interpreter.",
    "lttng": "the benchmark starts its own `lttng-sessiond --no-kernel` and kills it at the end "
             "(also on failure); per run: `lttng create` (output in build/bench), "
             "`lttng enable-channel -u --subbuf-size=4M --num-subbuf=8`, `lttng enable-event -u "
             "'lttng_ust_libc:*,lttng_ust_pthread:*'`, `lttng start`, the program with "
             "`LD_PRELOAD=liblttng-ust-libc-wrapper.so:liblttng-ust-pthread-wrapper.so`, then "
             "`lttng stop` (its time, which waits for the consumer daemon to write the data, is "
             "added to the wall time) and `lttng destroy`. The wrappers record malloc-family calls "
             "and mutex lock/trylock/unlock; the consumer daemon's CPU is outside the program's. "
             "Not applied where the wrappers record nothing the workload does.",
    "uftrace": "synthetic workloads: a second build compiled with `-pg -mfentry -mnop-mcount "
               "-fno-pie` and linked without `-pg` (5-byte nops at every function entry, no gprof "
               "runtime), recorded with `uftrace record -P .` (every function patched at run time, "
               "plus library calls through the PLT); its untraced partner is that same build. Real "
               "programs (not built for it): `uftrace record --force`, library calls only.",
    "strace": "`strace -f -o FILE`.",
    "ltrace": "`ltrace -f -o FILE`, at a reduced size (it stops at a breakpoint on every library "
              "call); its untraced partner runs at the same reduced size.",
    "helgrind": "`valgrind --tool=helgrind` on the mutex storm at a reduced size (Valgrind runs one "
                "thread at a time); untraced partner at the same size.",
    "drd": "`valgrind --tool=drd`, likewise.",
}


class Previous:
    """The parts of an earlier docs/benchmarks.md that a section without a
    results file keeps: its block (found by its heading), its lines in the
    Commands block (after a line `# KEY`) and its rows of the targets table
    (found by the start of their first cell)."""

    def __init__(self, text, headings):
        self.text = text or ""
        self.headings = headings      # key -> the heading line that starts its block

    def block(self, key):
        h = self.headings.get(key)
        at = self.text.find(h + "\n") if h else -1
        if at < 0:
            return None
        level = h.split(" ")[0] + " "
        ends = [self.text.find("\n## ", at + len(h))]
        if level == "### ":
            ends.append(self.text.find("\n### ", at + len(h)))
        ends = [e for e in ends if e >= 0]
        end = min(ends) if ends else len(self.text)
        return self.text[at:end].rstrip("\n") + "\n"

    def commands(self, key):
        at = self.text.find("## Commands")
        lines = self.text[at:].splitlines() if at >= 0 else []
        out, inside = [], False
        for line in lines:
            if line.startswith("# ") and " " not in line[2:] and ":" not in line:
                inside = line == f"# {key}"
                continue
            if line.startswith("```"):
                inside = False
                continue
            if inside:
                out.append(line)
        return out

    def target_row(self, prefix):
        at = self.text.find("## Targets")
        for line in self.text[at:].splitlines() if at >= 0 else []:
            if line.startswith("| " + prefix):
                return [c.strip() for c in line.strip().strip("|").split(" | ")]
            if line.startswith("## ") and not line.startswith("## Targets"):
                break
        return None


def load():
    out = {}
    for path in glob.glob(f"{RESULTS}/*.json"):
        with open(path) as f:
            d = json.load(f)
        out[d["section"]] = d
    return out


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def mb(b):
    if b is None:
        return "—"
    if b < 1e5:
        return f"{b / 1e3:.1f} kB"
    return f"{b / 1e6:,.1f} MB" if b < 1e9 else f"{b / 1e9:.2f} GB"


def ratio(r):
    return f"**{r[0]:.2f}×** ({r[1]:.2f} – {r[2]:.2f})"


def met(value, target):
    return "met" if value <= target else "**not met**"


def facts_line(d):
    f = d["facts"]
    return (f"{f['date']}, commit {f['commit']}, {d['pairs']} pairs after a warm-up pair, "
            f"{d['elapsed']:.0f} s; load average {f['load']:.2f} at the start, other processes "
            f"used {d['others']:.0f} CPU-seconds meanwhile ({100 * d['others'] / max(d['elapsed'], 1):.0f}% "
            "of one CPU)")


def targets(sections, prev=None):
    rows = []
    micro = sections.get("micro")
    for key, arm, label, target in (
            ("mutex", "gotrace", "mutex storm, gotrace defaults", 1.5),
            ("malloc", "every", "malloc storm, every allocation recorded with its site "
                                "(`GOTRACE_MALLOC=1`; issue 13: ≤ 1.5×, issue 6 said 2×)", 1.5),
            ("syscall", "gotrace", "syscall storm, gotrace defaults", 1.5),
            ("pigz", "gotrace", "`pigz -p 2`, gotrace defaults", 1.03),
            ("sysbench-threads", "gotrace", "`sysbench threads`, gotrace defaults", 1.2)):
        d = sections.get(key)
        kept = prev.target_row(label.split(",")[0]) if prev and not d else None
        if kept:
            rows.append(kept)
            continue
        row = next((r for r in d["arms"] if r["key"] == arm), None) if d else None
        if row is None and d and arm == "every":
            # results from before the `every` arm: the defaults recorded every allocation then
            row = next((r for r in d["arms"] if r["key"] == "gotrace"), None)
        if not row or "ratio" not in row:
            rows.append([label, f"≤ {target}×", "not measured" + (f": {row['failed'][:80]}" if row and row.get("failed") else ""), "—"])
            continue
        rows.append([label, f"≤ {target}×", ratio(row["ratio"]), met(row["ratio"][0], target)])
    for key, label in (("yield0", "one event without a stack"), ("mutex", "an uncontended lock that records nothing")):
        row = next((r for r in micro["rows"] if r["key"] == key), None) if micro else None
        kept = prev.target_row(label) if prev and not micro else None
        if kept:
            rows.append(kept)
            continue
        if not row:
            rows.append([label, "—", "not measured", "—"])
            continue
        c = row["cost"]
        rows.append([label, f"≤ {row['target']:g} ns {row['unit']}", f"**{c[0]:.1f} ns** ({c[1]:.1f} – {c[2]:.1f})",
                     met(c[0], row["target"])])
    return table(["figure (gotrace)", "target", "measured: median (min – max)", "met?"], rows)


def micro_section(d):
    o = [f"## Microbenchmarks\n", facts_line(d) + ".\n",
         "test/bench/micro.c times N rounds of one operation in a tight loop (CLOCK_MONOTONIC); "
         "cost = (traced − untraced) ns per op over adjacent pairs, divided by the interposed "
         "calls or events in one op.\n"]
    rows = []
    for r in d["rows"]:
        c = r["cost"]
        rows.append([r["label"], f"{r['n']:,}", f"{r['untraced']:.1f} ns", f"{r['traced']:.1f} ns",
                     f"**{c[0]:.1f} ns** {r['unit']}", f"{c[1]:.1f} – {c[2]:.1f}",
                     f"≤ {r['target']:g} ns" if r["target"] else "—",
                     met(c[0], r["target"]) if r["target"] else ""])
    o.append(table(["operation (one op)", "N", "untraced ns/op", "traced ns/op", "cost: median",
                    "min – max", "target", ""], rows) + "\n")
    if d["callgrind"]:
        o.append("The same loops under callgrind (instructions of the calling thread's loop only, "
                 "not the flusher or the kernel):\n")
        o.append(table(["operation", "N", "untraced instr/op", "traced instr/op", "extra"],
                       [[r["label"], f"{r['n']:,}", f"{r['untraced']:.0f}", f"{r['traced']:.0f}",
                         f"{r['extra']:.0f} {r['unit']}"] for r in d["callgrind"]]) + "\n")
    return o


def snapshot_section(d):
    """test/bench/snapshot_bench.py's figures."""
    c = d["cpu_ms"]
    w = d["wall_ms"]
    o = ["## The live-heap snapshot\n", facts_line(d) + ".\n",
         f"test/bench/snapshot_heap.c keeps {d['n']:,} objects live (8 sites, 16–128 B) across "
         f"{d['period']} generations with every allocation recorded (`GOTRACE_MALLOC=all`); each "
         "generation starts with the flusher restating them as HeapObject events (docs/heap.md, "
         "\"The live-heap snapshot\"). Figures: the library's own measure of each snapshot that "
         f"restated all of them (the trace's `gotrace.snapshot` strings), {d['snapshots']} snapshots "
         f"over {d['pairs']} runs; a run at {d['n'] // 10:,} objects was accepted by "
         f"{len(d['parsers'])} Go parser(s).\n"]
    rows = [["flusher CPU time per snapshot", f"**{c[0]:.2f} ms**", f"{c[1]:.2f} – {c[2]:.2f} ms",
             f"≤ {d['target_ms']:g} ms", met(c[0], d["target_ms"])],
            ["wall time per snapshot (other load included)", f"{w[0]:.2f} ms", f"{w[1]:.2f} – {w[2]:.2f} ms",
             "—", ""]]
    h = d.get("hold_ms")
    if h:
        rows.append(["longest one shard's lock was held (a program thread's longest wait)",
                     f"{h[0]:.3f} ms", f"{h[1]:.3f} – {h[2]:.3f} ms", "—", ""])
    rows.append(["HeapObject bytes per generation", f"{d['bytes'] / 1e6:.2f} MB",
                 f"{d['bytes'] / d['n']:.1f} B per object", "—", ""])
    o.append(table(["figure", "median", "min – max", "target", ""], rows) + "\n")
    cg = d.get("callgrind")
    if cg:
        o.append(f"With every allocation recorded, each malloc and free also updates the live table "
                 f"(core/heaplive.c, 256 shards by address region and page): under callgrind, test/bench/micro.c's "
                 f"malloc loop (N = {cg['n']:,}) spends **{cg['live']:.0f} instructions per malloc + free "
                 f"pair** in it, of {cg['total']:.0f} per traced pair.\n")
    return o


def workload_section(d):
    o = [f"### {d['label']}\n", facts_line(d) + ". " + d["describe"] + "\n"]
    rows, notes = [], []
    for r in d["arms"]:
        if r.get("failed") or "ratio" not in r:
            rows.append([r["label"], r["size"], "—", "—", "**failed**", "—", "—", "", "—", "—", "—", "—"])
            notes.append(f"{r['label']}: **failed**, no figure: `{(r.get('failed') or 'no pairs').splitlines()[0][:400]}`")
            continue
        target = d.get("arm_targets", {}).get(r["key"], d.get("target") if r["key"] == "gotrace" else None)
        bpe = mbs = "—"
        out = r.get("output_bytes")
        if r["tool"] == "gotrace" and r.get("events"):
            bpe = f"{r['warm_bytes'] / r['events']:.2f} B"
        if out:
            mbs = f"{out / 1e6 / r['last_wall_t']:.1f} MB/s"
        rows.append([r["label"], r["size"], f"{r['wall_u']:.2f} s", f"{r['wall_t']:.2f} s",
                     ratio(r["ratio"]), f"{r['cpu_ratio'][0]:.2f}×" if r.get("cpu_ratio") else "—",
                     f"≤ {target:g}×" if target else "—", met(r["ratio"][0], target) if target else "",
                     mb(out) if out is not None else "—", bpe, mbs,
                     f"{r['rss_u'] / 1024:.1f} → {r['rss_t'] / 1024:.1f} MiB"])
        if r["tool"] == "gotrace" and r.get("events"):
            kinds = ", ".join(f"{k.replace('Name=', '')} {v:,}" for k, v in r["event_kinds"].items())
            notes.append(f"{r['label']}: the warm-up trace ({mb(r['warm_bytes'])}, size {r['warm_size']}) "
                         f"was accepted by `go tool trace -d=parsed` in {r['parse_s']:.1f} s: "
                         f"{r['events']:,} events ({kinds})")
        for n in r.get("notes", []):
            notes.append(f"{r['label']}: {n}")
    o.append(table(["tool", "size", "untraced wall", "traced wall", "wall traced/untraced: median (min – max)",
                    "CPU ratio", "target", "", "output", "B/event", "written", "peak RSS untraced → traced"],
                   rows) + "\n")
    for k, why in d.get("skipped", {}).items():
        notes.append(f"{k}: not applied: {why}")
    if notes:
        o += [f"- {n}" for n in notes]
        o.append("")
    return o


def memcached_section(d):
    o = ["### memcached (test/bench/server_bench.py)\n", facts_line(d) + ".\n"]
    if d.get("failed"):
        o.append(f"**failed** or skipped: {d['failed']}\n")
        return o
    r = d["raw"]
    o.append(f"`memcached -t {r['threads']}` driven by memaslap (`-T {r['client_threads']} -c "
             f"{r['concurrency']} -x {r['requests']:,}`, 90% get); gotrace only (the peers do not "
             "run a server unattended in this harness). A throughput ratio: below 1 is slower.\n")
    o.append(table(["tool", "untraced req/s", "traced req/s", "throughput traced/untraced: median (min – max)",
                    "server CPU per request traced/untraced", "trace"],
                   [["gotrace (defaults)", f"{sorted(r['untraced_rps'])[len(r['untraced_rps']) // 2]:,.0f}",
                     f"{sorted(r['traced_rps'])[len(r['traced_rps']) // 2]:,.0f}",
                     ratio([r["median_ratio"], r["min_ratio"], r["max_ratio"]]),
                     f"{sorted(r['cpu_ratios'])[len(r['cpu_ratios']) // 2]:.2f}×",
                     mb(r["trace_bytes"][-1])]]) + "\n")
    return o


def headings():
    """The heading line of every section's block, as the renderers write it."""
    import workloads
    h = {"micro": "## Microbenchmarks", "snapshot": "## The live-heap snapshot",
         "memcached": "### memcached (test/bench/server_bench.py)"}
    h.update({w.key: f"### {w.label}" for w in workloads.ALL})
    return h


def render(previous=""):
    """The whole file; previous = the file as it was (see Previous)."""
    sections = load()
    prev = Previous(previous, headings())
    o = ["# Benchmarks\n",
         "Generated by `make bench` (test/bench/run.py; `BENCH_ONLY=mutex,sysbench make bench` runs "
         "a few sections and keeps the others' latest figures). Each workload runs untraced, under "
         "gotrace and under the peer tools that apply; runs alternate untraced / traced (A B A B …) "
         "after a warm-up pair, and every figure is the median over the pairs of the per-pair "
         "ratio, with its min – max. Every run's output (or exit status and event count) is "
         "checked against the untraced run's; a run that fails gives no figure.\n"]
    any_d = next(iter(sections.values()), None)
    if any_d:
        f = any_d["facts"]
        o.append(f"Machine: `nproc` = {f['nproc']}, {f['cpu']}, kernel {f['kernel']}, {f['libc']}, "
                 f"{f['cc']}. **Timings taken while other work ran on the machine are noisy**: "
                 "each section says how much CPU other processes used during it.\n")
    o.append("## Targets\n")
    o.append("The issue's targets for gotrace (wall-time ratios traced / untraced with the "
             "defaults; per-call costs from the microbenchmarks). On a busy machine the ratios "
             "swing both ways.\n")
    o.append(targets(sections, prev) + "\n")
    if any(k in sections for k in real_report.ORDER):
        o.append("Real programs (issue 13; the figures and how they were taken: *Real programs* "
                 "below):\n")
        o.append(real_report.targets(sections) + "\n")
    o.append("What stands in the way of the targets not met (profiles in the closing note of "
             "issue 6): the no-event figure compares with a single-threaded untraced program, "
             "where glibc's lock skips its atomic instructions; traced, our flusher thread makes "
             "the program multi-threaded, and ~6 of the 6.5 ns are that switch — against the "
             "same program with an idle second thread (`micro mutex_mt`) the wrappers cost "
             "~0.6 ns per call. An event without a stack spends ~10.7 ns in one `rdtsc` on this "
             "VM. The malloc storm writes ~10 B per heap event (~67 MB/s of trace): about a fifth "
             "of its CPU is the flusher writing it.\n")
    if "micro" in sections:
        o += micro_section(sections["micro"])
    elif prev.block("micro"):
        o.append(prev.block("micro"))
    if "snapshot" in sections:
        o += snapshot_section(sections["snapshot"])
    elif prev.block("snapshot"):
        o.append(prev.block("snapshot"))
    o.append("## Workloads\n")
    o.append("Columns: *size* is the workload's size for that row (slow peers run a reduced size, "
             "and their untraced partner runs that same size); wall is spawn to exit (for LTTng "
             "plus `lttng stop`); CPU is user + system of the whole process tree; *output* is what "
             "the tool wrote in the last timed run, *written* that over its wall time; *B/event* "
             "(gotrace) is the validated warm-up trace's size over the events Go's parser counted "
             "in it; peak RSS is `/usr/bin/time -f %M` (the largest process of the tree), median "
             "over the pairs.\n")
    for key in ORDER[1:]:
        d = sections.get(key)
        if key in real_report.ORDER or key == "snapshot":
            continue
        if not d:
            if prev.block(key):
                o.append(prev.block(key))
            continue
        o += memcached_section(d) if key == "memcached" else workload_section(d)
    o += real_report.render(sections)
    o.append("## How each tool is applied\n")
    o += [f"- **{k}**: {v}" for k, v in HOW.items()]
    o.append("")
    o.append("## Commands\n")
    o.append("From the repository root, with the environment less `LD_PRELOAD` and `GOTRACE_*`; "
             "each run goes through `/usr/bin/time -f %M -o FILE env VARS...` for its peak RSS.\n")
    o.append("```")
    for key in ORDER:
        d = sections.get(key)
        cmds = d.get("commands", []) if d else prev.commands(key)
        if not cmds:
            continue
        o.append(f"# {key}")
        o += cmds
    o.append("```")
    return "\n".join(o) + "\n"
