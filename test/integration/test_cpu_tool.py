"""`gotrace cpu` and stat's CPU samples section on a trace the Go runtime wrote.

test/programs/cpuprof_go/main.go runs two goroutines that spin the same
loop, one twice as long as the other (burnTwice: 2 x UNITS million rounds,
burnOnce: UNITS million), with runtime/trace and the CPU profiler
(runtime/pprof) on at once, so the trace holds standard CPUSamples batches
(100 Hz, Go's default; the trace does not state it). Built and run with
Go 1.23 and the newest Go (the trace's format follows the toolchain):

  * the writing toolchain's parser and the newest Go's accept the trace
    (Go 1.23 does not read the newer toolchain's format);
  * `gotrace cpu` names main.burnTwice and main.burnOnce as the top flat
    functions (the runtime's aside), with shares matching the work split (2:1; burnTwice's share
    of their cumulative samples within 0.55..0.78, about 3 standard errors
    of a 150-sample binomial around 2/3; cum, since a sample taken while the
    runtime preempts a burner has runtime.asyncPreempt as its leaf), and
    says the rate is Go's default;
  * the same run's own pprof CPU profile (written by runtime/pprof) gives
    burnTwice a share within 0.05 of ours: the trace's samples are the
    profiler's;
  * `go tool pprof -top` of both toolchains opens `gotrace cpu -pprof`'s
    profile, sample type cpu, and -tagfocus=group=<start function> keeps
    only that goroutine's burner;
  * `gotrace stat` prints the "CPU samples" section naming both burners,
    and `stat -json` has the same total under "cpu".

No timing is asserted: shares of CPU time, not wall time. Skipped, with the
reason, when no Go toolchain is installed.
"""
import os
import re
import subprocess
import unittest

import gtlib

UNITS = "300"
SRC = os.path.join(gtlib.PROGRAMS, "cpuprof_go")


def gotrace(args, timeout=120):
    p = subprocess.run([gtlib.GOTRACE] + list(args), env=gtlib.clean_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def go_env():
    env = gtlib.go_env()
    env["GOFLAGS"] = "-mod=mod"
    return env


def pprof_top(go, profile, extra=()):
    p = subprocess.run([go, "tool", "pprof", "-top"] + list(extra) + [profile], env=go_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")


# "  990.0ms  66.4%  66.4%    1.000s  67.1%       99  main.burnTwice"
_ROW = re.compile(r"^\s+\S+\s+[\d.]+%\s+[\d.]+%\s+(\S+)\s+[\d.]+%\s+(\d+)\s+(\S+)$")
# go tool pprof -top: "     0.99s 66.44% 66.44%      1s 67.11%  main.burnTwice"
_PROW = re.compile(r"^\s*(\S+)\s+[\d.]+%\s+[\d.]+%\s+(\S+)\s+[\d.]+%\s+(\S+)$")
_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "hrs": 3600.0, None: 1.0}


def seconds(text):
    """A duration as `gotrace` prints it ("0", "812ns", "15.3us", "1.523s")."""
    m = re.match(r"^([\d.]+)(ns|us|ms|s)?$", text)
    return float(m.group(1)) * _UNIT[m.group(2)]


def top_functions(text):
    """{function: (flat samples, cum seconds)} of the "Top functions" list of
    `gotrace cpu`, in its order."""
    out = {}
    section = text.split("\nTop functions", 1)[1].split("\n\n", 1)[0]
    for line in section.splitlines():
        m = _ROW.match(line)
        if m:
            out[m.group(3)] = (int(m.group(2)), seconds(m.group(1)))
    return out


def pprof_seconds(text):
    m = re.match(r"^([\d.]+)(ns|us|µs|ms|s|min|hrs)?$", text)
    return float(m.group(1)) * (_UNIT[m.group(2)] if m.group(2) else 1.0)


def pprof_flat(text):
    """{function: flat seconds} of `go tool pprof -top`."""
    out = {}
    for line in text.splitlines():
        m = _PROW.match(line)
        if m:
            out[m.group(3)] = pprof_seconds(m.group(1))
    return out


def pprof_cum(text):
    out = {}
    for line in text.splitlines():
        m = _PROW.match(line)
        if m:
            out[m.group(3)] = pprof_seconds(m.group(2))
    return out


class CpuTool(unittest.TestCase):
    runs = {}

    @classmethod
    def setUpClass(cls):
        problem = gtlib.go_problem()
        if problem:
            raise unittest.SkipTest("no Go toolchain to write a CPU-profiled trace: " + problem)
        os.makedirs(gtlib.BIN_DIR, exist_ok=True)
        for go in (gtlib.GO_OLD, gtlib.GO_NEW):
            label = gtlib.go_label(go)
            binary = os.path.join(gtlib.BIN_DIR, "cpuprof_go-" + label)
            p = subprocess.run([go, "build", "-o", binary, "."], cwd=SRC, env=go_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
            if p.returncode != 0:
                raise AssertionError("%s build of %s failed:\n%s" % (label, SRC, p.stderr.decode()))
            trace = gtlib.trace_path("cpuprof_go-" + label)
            own = trace + ".own.pb.gz"
            p = subprocess.run([binary, trace, own, UNITS], env=gtlib.clean_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=300)
            if p.returncode != 0:
                raise AssertionError("%s failed (%d): %s" % (binary, p.returncode, p.stderr.decode()))
            cls.runs[label] = (go, trace, own)

    def each(self):
        return [(label,) + run for label, run in sorted(self.runs.items())]

    def test_traces_are_valid(self):
        for label, go, trace, own in self.each():
            # Go 1.23 reads the 1.23 format only; the newest Go reads both.
            for reader in {go, gtlib.GO_NEW}:
                gtlib.validate_with(reader, trace)

    def test_cpu_names_the_burners_with_the_work_split(self):
        for label, go, trace, own in self.each():
            prof = trace + ".cpu.pb.gz"
            rc, out, err = gotrace(["cpu", "-top", "0", "-pprof", prof, trace])
            self.assertEqual(rc, 0, err)
            self.assertIn("at 100 Hz (Go's default: the trace does not state its rate)", out)
            m = re.search(r"^  (\d+) samples, ", out, re.M)
            self.assertTrue(m, gtlib.head(out))
            total = int(m.group(1))
            top = top_functions(out)
            # The burners are the top flat functions but the runtime's: a
            # sample taken while the runtime preempts a burner has
            # runtime.asyncPreempt as its leaf and the burner as its caller
            # (Go 1.23 often: a fifth of the samples), so the shares are cum.
            ranked = [f for f in top if not f.startswith("runtime.")]
            self.assertEqual(set(ranked[:2]), {"main.burnTwice", "main.burnOnce"}, gtlib.head(out, 20))
            twice, once = top["main.burnTwice"][1], top["main.burnOnce"][1]
            self.assertGreaterEqual(twice + once, 0.9 * total * 0.010, gtlib.head(out, 20))  # 10 ms a sample
            share = twice / (twice + once)
            self.assertTrue(0.55 <= share <= 0.78, "burnTwice has %.3f of the burners' samples (%d:%d), "
                            "expected about 2/3\n%s" % (share, twice, once, gtlib.head(out, 20)))
            # The same run's own CPU profile: the trace's samples are its samples.
            rc, ptext = pprof_top(go, own)
            self.assertEqual(rc, 0, ptext)
            pf = pprof_cum(ptext)
            pshare = pf["main.burnTwice"] / (pf["main.burnTwice"] + pf["main.burnOnce"])
            self.assertLess(abs(share - pshare), 0.05, "trace %.3f, runtime/pprof %.3f" % (share, pshare))

    def test_pprof_opens_and_tagfocus_selects_a_group(self):
        for label, go, trace, own in self.each():
            prof = trace + ".cpu.pb.gz"
            rc, out, err = gotrace(["cpu", "-pprof", prof, trace])
            self.assertEqual(rc, 0, err)
            groups = re.findall(r"^ (\S+): 1 thread, \d+ samples, .*\n.*\n.*\d+  (main\.burn\w+)$", out, re.M)
            self.assertEqual(len(groups), 2, out)
            for pgo in (gtlib.GO_OLD, gtlib.GO_NEW):
                rc, ptext = pprof_top(pgo, prof)
                self.assertEqual(rc, 0, ptext)
                self.assertIn("Type: cpu", ptext)
                flat = pprof_flat(ptext)
                self.assertIn("main.burnTwice", flat, ptext)
                self.assertIn("main.burnOnce", flat, ptext)
                for group, burner in groups:
                    other = "main.burnOnce" if burner == "main.burnTwice" else "main.burnTwice"
                    rc, ftext = pprof_top(pgo, prof, ["-tagfocus=group=" + group])
                    self.assertEqual(rc, 0, ftext)
                    flat = pprof_flat(ftext)
                    self.assertIn(burner, flat, ftext)
                    self.assertNotIn(other, flat, ftext)

    def test_stat_has_the_cpu_section(self):
        for label, go, trace, own in self.each():
            rc, out, err = gotrace(["stat", trace])
            self.assertEqual(rc, 0, err)
            section = out.split("\nCPU samples (see `gotrace cpu`)\n", 1)
            self.assertEqual(len(section), 2, out)
            self.assertIn("main.burnTwice", section[1])
            self.assertIn("main.burnOnce", section[1])
            rc, cpu_out, err = gotrace(["cpu", trace])
            total = int(re.search(r"^  (\d+) samples, ", cpu_out, re.M).group(1))
            js = gtlib.stat_json(trace)
            self.assertEqual(js["cpu"]["samples"], total)
            self.assertEqual(js["cpu"]["hz"], 100)
            self.assertFalse(js["cpu"]["hz_stated"])
            tops = {t["function"] for g in js["cpu"]["groups"]["list"] for t in g["top"]}
            self.assertTrue({"main.burnTwice", "main.burnOnce"} <= tops, tops)


if __name__ == "__main__":
    unittest.main()
