"""Deadlocks reported while they happen (issue 16, item 3; GOTRACE_DEADLOCK).

Sample programs (test/programs), each printing "deadlocked" just before the
wait that never ends; the line that waits is marked /* WAIT fn */:

  dl_inversion.c        lock_ab takes a then b, lock_ba b then a; main joins
  dl_cycle3.c           ring_0..ring_2 each hold lock N and take N+1 mod 3
  dl_relock.c           `relocker` re-locks the normal mutex it holds (main
                        joins it); with `alone`, main does it, the only thread
  dl_lost_wakeup.c      a signal sent before anyone waits: two consumers in
                        pthread_cond_wait, main in pthread_join
  dl_barrier.c          two workers and main at a barrier of four
  dl_sleeping_holder.c  not a deadlock: a waiter waits 3 s for a mutex held
                        by a thread that sleeps 3 s

With GOTRACE_DEADLOCK=1s each hung program prints one report on stderr
(every line "gotrace: ..."), read while the program runs: it comes within
2 x the threshold (the report says how long the threads have waited), names
every thread of the cycle (or, all threads asleep, every thread) by goroutine
id and start function, and gives each wait site as file:line. The trace
written up to that moment (copied as the report ends, before the program is
killed) is accepted by both Go readers and holds each reported goroutine's
block (the right reason, the wait site on its stack), still waiting at its
end. With ",abort" the program dies of SIGABRT after the report, leaving a
valid trace. In flight-recorder mode the report comes with a snapshot.
Negatives: no report for the sleeping holder, the sample programs, pigz and
stress-ng's mutex and futex stressors, with short thresholds.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import unittest

import gtlib

THRESHOLD = 1.0
REPORT_END = "deadlock: the trace up to now is in "


def wait_line(program, fn):
    """The line number of the /* WAIT fn */ marker in test/programs/program."""
    with open(gtlib.program_source(program)) as f:
        for i, line in enumerate(f, 1):
            if "/* WAIT %s */" % fn in line:
                return i
    raise AssertionError("no /* WAIT %s */ in %s" % (fn, program))


class Hung:
    """A traced program that hangs: its stderr and stdout read as they come."""

    def __init__(self, argv, trace, env_extra, timeout=20):
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace})
        env.update(env_extra)
        self.lines, self.out = [], []
        self.t_deadlocked = self.t_report = None
        self.p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, preexec_fn=lambda: __import__("resource").setrlimit(
                                      __import__("resource").RLIMIT_CORE, (0, 0)))
        self.done = threading.Event()
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        self.done.wait(timeout)

    def _read_out(self):
        for raw in self.p.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line == "deadlocked" and self.t_deadlocked is None:
                self.t_deadlocked = time.monotonic()
            self.out.append(line)

    def _read_err(self):
        for raw in self.p.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if "deadlock" in line and self.t_report is None:
                self.t_report = time.monotonic()
            self.lines.append(line)
            if REPORT_END in line:
                self.trace_now = line.split(REPORT_END, 1)[1]
                self.done.set()
        self.done.set()

    def snapshot_and_kill(self, copy_to, kill=True):
        """Copies the trace as it is now, then ends the program (SIGKILL;
        kill=False: waits for it to end by itself)."""
        src = getattr(self, "trace_now", None)
        if src and os.path.exists(src):
            shutil.copyfile(src, copy_to)
        if kill and self.p.poll() is None:
            self.p.kill()
        self.p.wait(10)
        time.sleep(0.05)    # the reader threads take the last lines

    def describe(self):
        return "stdout:\n  %s\nstderr:\n  %s" % ("\n  ".join(self.out[-10:]), "\n  ".join(self.lines[-40:]))


def report_blocks(lines):
    """Each report's lines: from a header line to the trace line."""
    out, cur = [], None
    for l in lines:
        if re.match(r"gotrace: (deadlock: (\d+ threads wait|a thread waits)|all threads are asleep)", l):
            cur = [l]
            out.append(cur)
        elif cur is not None:
            cur.append(l)
    return out


THREAD_LINE = re.compile(r"^gotrace:   G(\d+)(?: \"([^\"]*)\")? \(tid (\d+), start ([^)]+)\) waits ([\d.]+) s (.*)$")


def threads_of(block):
    """[(goid, name, start, what, [frame lines])] of one report."""
    out = []
    for l in block[1:]:
        m = THREAD_LINE.match(l)
        if m:
            out.append((int(m.group(1)), m.group(2) or "", m.group(4), m.group(6), []))
        elif l.startswith("gotrace:       at ") and out:
            out[-1][4].append(l[len("gotrace:       at "):])
    return out


@gtlib.expand
class DeadlockTest(gtlib.TracedTestCase):
    # program, args, header regexp, {start function: (wait marker fn, what)}
    CASES = {
        "inversion": ("dl_inversion", (), r"deadlock: 2 threads wait on each other for ([\d.]+) s:",
                      {"take_ab": ("take_ab", "for mutex"), "take_ba": ("take_ba", "for mutex")}),
        "cycle3": ("dl_cycle3", (), r"deadlock: 3 threads wait on each other for ([\d.]+) s:",
                   {"ring_0": ("take", "for mutex"), "ring_1": ("take", "for mutex"),
                    "ring_2": ("take", "for mutex")}),
        "relock": ("dl_relock", (), r"deadlock: a thread waits for a mutex it holds itself, for ([\d.]+) s:",
                   {"relocker": ("relock", "for mutex")}),
        "relock_alone": ("dl_relock", ("alone",),
                         r"deadlock: a thread waits for a mutex it holds itself, for ([\d.]+) s:",
                         {"main": ("relock", "for mutex")}),
        "lost_wakeup": ("dl_lost_wakeup", (),
                        r"all threads are asleep - deadlock! 3 threads have waited ([\d.]+) s or more",
                        {"consume": ("consume", "on condition variable"), "main": ("main", "to join")}),
        "barrier": ("dl_barrier", (),
                    r"all threads are asleep - deadlock! 3 threads have waited ([\d.]+) s or more",
                    {"arrive": ("arrive", "at barrier"), "main": ("main", "at barrier")}),
    }
    # start functions that two threads of a case share
    TWICE = {("lost_wakeup", "consume"), ("barrier", "arrive")}
    REASONS = {"for mutex": "sync.mutex", "on condition variable": "sync.cond", "to join": "sync.join",
               "at barrier": "sync.barrier"}

    def hung(self, case, period, extra=None):
        program, args, _, _ = self.CASES[case]
        binary = gtlib.compile(program)
        tag = "deadlock-%s%s" % (case, "-" + "-".join(sorted(extra)) if extra else "")
        trace = gtlib.trace_path(tag, period)
        for stale in glob.glob(trace + "*"):
            os.unlink(stale)
        env = {"GOTRACE_DEADLOCK": "%gs" % THRESHOLD}
        if period:
            env["GOTRACE_PERIOD"] = period
        env.update(extra or {})
        h = Hung([binary] + list(args), trace, env)
        h.trace, h.copy = trace, trace + ".at-report"
        h.snapshot_and_kill(h.copy, kill=not (extra and "abort" in extra.get("GOTRACE_DEADLOCK", "")))
        return h

    def checked(self, case, period):
        return self.cached((case, period), lambda: self.hung(case, period))

    def mode_check_report(self, case, period):
        """One report, within 2 x the threshold, naming every thread of the
        deadlock, its goroutine, its wait and its wait site (file:line)."""
        program, _, header, want = self.CASES[case]
        h = self.checked(case, period)
        blocks = report_blocks(h.lines)
        self.assertEqual(len(blocks), 1, "want one report\n" + h.describe())
        block = blocks[0]
        for l in block:
            self.assertTrue(l.startswith("gotrace: "), l)
        m = re.search(header, block[0])
        self.assertTrue(m, "header %r\n%s" % (block[0], h.describe()))
        waited = float(m.group(1))
        self.assertTrue(THRESHOLD <= waited <= 2 * THRESHOLD,
                        "reported after %.1f s of deadlock, want within 2 x %.1f s\n%s"
                        % (waited, THRESHOLD, h.describe()))
        self.assertIsNotNone(h.t_deadlocked, h.describe())
        self.assertIsNotNone(h.t_report, h.describe())
        threads = threads_of(block)
        starts = sorted(t[2] for t in threads)
        want_starts = sorted(s for s in want for _ in range(2 if (case, s) in self.TWICE else 1))
        self.assertEqual(starts, want_starts, h.describe())
        self.assertEqual(len({t[0] for t in threads}), len(threads), "goroutine ids repeat\n" + h.describe())
        src = os.path.basename(gtlib.program_source(program))
        for g, name, start, what, frames in threads:
            fn, kind = want[start]
            self.assertTrue(what.startswith(kind), "G%d waits %r, want %r\n%s" % (g, what, kind, h.describe()))
            site = "%s (%s:%d)" % (fn, "", wait_line(program, fn))
            self.assertTrue(any(f.startswith(fn + " (") and f.endswith("%s:%d)" % (src, wait_line(program, fn)))
                                for f in frames),
                            "G%d: no frame %s in %s\n%s" % (g, site, frames, h.describe()))
        if case == "inversion":
            names = sorted(t[1] for t in threads)
            self.assertEqual(names, ["lock_ab", "lock_ba"], h.describe())
            # each holds what the other waits for
            held = {t[0]: re.search(r"held by G(\d+)", t[3]) for t in threads}
            ids = {t[0] for t in threads}
            self.assertTrue(all(v and int(v.group(1)) in ids - {g} for g, v in held.items()), h.describe())
        # the program goes on waiting: it is left alone
        self.assertNotIn("not deadlocked", h.out, h.describe())

    def mode_check_trace_so_far(self, case, period):
        """The trace written at the report is accepted by both Go readers;
        each reported goroutine's last transition is its block (the
        reported reason, the wait site on its stack)."""
        program, _, _, want = self.CASES[case]
        h = self.checked(case, period)
        self.assertTrue(os.path.exists(h.copy), "no trace at the report\n" + h.describe())
        gtlib.validate(h.copy)
        ev = gtlib.parsed_events(h.copy)
        threads = threads_of(report_blocks(h.lines)[0])
        for g, name, start, what, frames in threads:
            fn, kind = want[start]
            trans = [e for e in ev if e.kind == "StateTransition" and e.goid == g]
            blocks = [e for e in trans if e.transition == ("Running", "Waiting")]
            self.assertTrue(blocks, "G%d never blocks in %s" % (g, h.copy))
            last = blocks[-1]
            self.assertEqual(last.reason, self.REASONS[kind], "%r in %s" % (last, h.copy))
            self.assertIn(fn, last.stack, "%r in %s" % (last, h.copy))
            after = [e for e in trans if e.time > last.time and e.transition[1] != "Waiting"]
            self.assertEqual(after, [], "G%d runs again after its last block in %s" % (g, h.copy))

    MODES = {k: 0 for k in CASES}

    def test_abort_option(self):
        """GOTRACE_DEADLOCK=1s,abort: the report, then SIGABRT; the trace
        left is valid."""
        h = self.hung("inversion", None, {"GOTRACE_DEADLOCK": "%gs,abort" % THRESHOLD})
        self.assertEqual(len(report_blocks(h.lines)), 1, h.describe())
        self.assertEqual(h.p.returncode, -signal.SIGABRT, h.describe())
        self.assertTrue(any("aborting" in l for l in h.lines), h.describe())
        gtlib.validate(h.trace)

    def test_flight_recorder_snapshot(self):
        """In flight-recorder mode the report comes with a snapshot file that
        both readers accept."""
        program = "dl_inversion"
        binary = gtlib.compile(program)
        trace = gtlib.trace_path("deadlock-flight")
        for stale in glob.glob(trace + "*"):
            os.unlink(stale)
        env = {"GOTRACE_DEADLOCK": "%gs" % THRESHOLD, "GOTRACE_FLIGHT": "10s"}
        h = Hung([binary], trace, env, timeout=8)
        deadline = time.monotonic() + 5
        snaps = []
        while time.monotonic() < deadline and not snaps:
            snaps = [l for l in h.lines if ".snap" in l]
            time.sleep(0.1)
        h.snapshot_and_kill(trace + ".unused")
        self.assertEqual(len(report_blocks(h.lines)), 1, h.describe())
        files = glob.glob(trace + ".snap*")
        self.assertTrue(files, "no snapshot\n" + h.describe())
        gtlib.validate(files[0])


class DeadlockNegativesTest(unittest.TestCase):
    """No report where nothing is deadlocked."""

    def run_quiet(self, argv, threshold, tag, timeout=60, cwd=None):
        trace = gtlib.trace_path("deadlock-neg-" + tag)
        run = gtlib.run_traced(argv, trace, {"GOTRACE_DEADLOCK": threshold}, timeout=timeout, cwd=cwd)
        self.assertFalse([l for l in run.stderr.splitlines() if "deadlock" in l or "asleep" in l],
                         run.describe())
        return run

    def test_sleeping_holder_is_not_reported(self):
        run = self.run_quiet([gtlib.compile("dl_sleeping_holder")], "1s", "holder")
        self.assertEqual((run.returncode, run.stdout), (0, "done\n"), run.describe())
        gtlib.validate(run.trace)

    def test_sample_programs(self):
        for prog in ("workers", "sync_zoo", "mutex_wait", "time_waits", "futex_wait", "signal_waits"):
            plain = gtlib.run_plain([gtlib.compile(prog)], timeout=60)
            run = self.run_quiet([gtlib.compile(prog)], "100ms", prog)
            self.assertEqual(run.returncode, plain.returncode, run.describe())

    def test_pigz(self):
        pigz = shutil.which("pigz")
        if not pigz:
            self.skipTest("pigz is not installed")
        data = gtlib.trace_path("deadlock-pigz") + ".dat"
        with open(data, "wb") as f:
            f.write(os.urandom(1 << 20) * 8)
        run = self.run_quiet([pigz, "-p", "4", "-c", data], "50ms", "pigz")
        self.assertEqual(run.returncode, 0, run.describe())

    def test_stress_ng_mutex_futex(self):
        stress = shutil.which("stress-ng")
        if not stress:
            self.skipTest("stress-ng is not installed")
        for name in ("mutex", "futex"):
            d = os.path.join(gtlib.TRACE_DIR, "dl-stress-" + name)
            os.makedirs(d, exist_ok=True)
            argv = [stress, "--" + name, "2", "--timeout", "2s", "--temp-path", d]
            trace = os.path.join(d, "st.%p.trace")
            env = {"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace, "GOTRACE_DEADLOCK": "100ms"}
            run = gtlib.run_plain(argv, env, timeout=90, cwd=d)
            self.assertIn("successful run completed", run.stderr, run.describe())
            self.assertFalse([l for l in run.stderr.splitlines() if "gotrace:" in l], run.describe())

    def test_memcached(self):
        """memcached with four workers serving 200 connections, then idle
        (its maintenance threads in untimed condition waits, the others in
        epoll_wait) for 2 s, with a 100 ms threshold."""
        memcached = shutil.which("memcached")
        if not memcached:
            self.skipTest("memcached is not installed")
        port = gtlib._free_port()
        trace = gtlib.trace_path("deadlock-neg-memcached")
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace, "GOTRACE_DEADLOCK": "100ms"})
        argv = [memcached, "-p", str(port), "-U", "0", "-t", "4", "-l", "127.0.0.1"]
        if os.geteuid() == 0:
            argv += ["-u", "root"]
        p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            import socket
            deadline = time.monotonic() + 10
            for i in range(200):
                while True:
                    try:
                        s = socket.create_connection(("127.0.0.1", port), timeout=5)
                        break
                    except OSError:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.05)
                with s:
                    s.sendall(b"set k%d 0 0 1\r\nx\r\nget k%d\r\n" % (i, i))
                    data = b""
                    while not data.endswith(b"END\r\n"):
                        chunk = s.recv(100)
                        if not chunk:
                            break
                        data += chunk
            time.sleep(2)
        finally:
            p.terminate()
            out, err = p.communicate(timeout=30)
        err = err.decode("utf-8", "replace")
        self.assertFalse([l for l in err.splitlines() if "deadlock" in l or "asleep" in l], err)
        gtlib.validate(trace)


if __name__ == "__main__":
    unittest.main()
