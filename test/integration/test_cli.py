"""test_cli.py — the `gotrace` command: exit status and signal pass-through, errors, help,
and the report `gotrace run` prints about the files a run wrote.

CliTest is self-contained (no gtlib): its tests hold whether or not
build/libgotrace.so exists or works; only the lines about the trace file may
differ, and the tests that look at those lines accept both outcomes.
RunReportTest traces real programs (wrappers, exec, kill -9) with the library,
compiles with gtlib and judges the files with both Go parsers; StatHeapNoTraceTest
runs `gotrace stat` and `gotrace heap` on files that are no traces.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOTRACE = os.path.join(ROOT, "build", "gotrace")
LIB = os.path.join(ROOT, "build", "libgotrace.so")
VARIABLES = ["GOTRACE_OUT", "GOTRACE_STACKS", "GOTRACE_PERIOD", "GOTRACE_FORMAT", "GOTRACE_MALLOC"]


def clean_env(**extra):
    """The caller's environment without GOTRACE_* or LD_PRELOAD, plus extra."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GOTRACE_") and k != "LD_PRELOAD"}
    env.update(extra)
    return env


# The first line of the report `gotrace run` prints when the command has ended.
REPORT_START = re.compile(r"^gotrace: (trace written to |no trace written|this run wrote \d+ files|"
                          r"cannot work out the trace path)")


def report_lines(stderr):
    """The lines of gotrace run's report: from its first line to the end."""
    lines = stderr.splitlines()
    for i, l in enumerate(lines):
        if REPORT_START.match(l):
            return lines[i:]
    return []


def trace_lines(stderr):
    """The stderr lines that talk about the trace files or the library."""
    return report_lines(stderr) + [l for l in stderr.splitlines() if "libgotrace.so" in l]


def other_lines(stderr):
    report = report_lines(stderr)
    lines = stderr.splitlines()
    before = lines[:len(lines) - len(report)]
    return [l for l in before if "libgotrace.so" not in l]


class CliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(GOTRACE, os.X_OK):
            raise AssertionError("%s is missing: run `make build/gotrace` first" % GOTRACE)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gotrace-cli-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.out = os.path.join(self.tmp, "t.%p.trace")

    def run_tool(self, *args, env=None, timeout=60):
        return subprocess.run([GOTRACE] + list(args), capture_output=True, timeout=timeout,
                              env=env if env is not None else clean_env(), cwd=self.tmp)

    def run_cmd(self, *cmd, flags=("-q",), **kw):
        return self.run_tool("run", "-o", self.out, *flags, "--", *cmd, **kw)

    def err(self, res):
        return res.stderr.decode(errors="replace")

    # ---- exit status and signals ----

    def test_exit_status_zero(self):
        res = self.run_cmd("sh", "-c", "exit 0")
        self.assertEqual(res.returncode, 0, self.err(res))

    def test_exit_status_three(self):
        res = self.run_cmd("sh", "-c", "exit 3")
        self.assertEqual(res.returncode, 3, self.err(res))
        self.assertEqual(other_lines(self.err(res)), [])

    def test_killed_by_sigkill(self):
        res = self.run_cmd("sh", "-c", "kill -KILL $$")
        self.assertEqual(res.returncode, -signal.SIGKILL, self.err(res))

    def test_killed_by_sigterm(self):
        res = self.run_cmd("sh", "-c", "kill -TERM $$")
        self.assertEqual(res.returncode, -signal.SIGTERM, self.err(res))

    def test_core_signal_leaves_no_core_of_its_own(self):
        res = self.run_cmd("sh", "-c", "ulimit -c 0; kill -SEGV $$")
        self.assertEqual(res.returncode, -signal.SIGSEGV, self.err(res))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "core")))

    @staticmethod
    def terminal_defaults():
        """In the child, before exec: SIGINT and SIGQUIT as a terminal's
        foreground job has them. A test run started in the background of a
        shell without job control inherits them ignored (POSIX), and the
        ignored disposition would pass through gotrace to the program."""
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)

    def start_sleeper(self, own_group=False):
        """gotrace run on a shell that says "ready" and then sleeps."""
        p = subprocess.Popen([GOTRACE, "run", "-q", "-o", self.out, "--",
                              "sh", "-c", "echo ready; exec sleep 30"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=clean_env(), cwd=self.tmp, start_new_session=own_group,
                             preexec_fn=self.terminal_defaults)
        self.addCleanup(self.stop, p)
        self.assertEqual(p.stdout.readline(), b"ready\n")
        return p

    @staticmethod
    def stop(p):
        if p.poll() is None:
            p.terminate()  # forwarded, so the sleeper goes too
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        p.stdout.close()
        p.stderr.close()

    def test_sigterm_is_forwarded(self):
        p = self.start_sleeper()
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=20), -signal.SIGTERM)

    def test_sighup_is_forwarded(self):
        p = self.start_sleeper()
        p.send_signal(signal.SIGHUP)
        self.assertEqual(p.wait(timeout=20), -signal.SIGHUP)

    def test_sigint_to_the_tool_alone_is_ignored(self):
        p = self.start_sleeper()
        p.send_signal(signal.SIGINT)
        time.sleep(0.3)
        self.assertIsNone(p.poll(), "gotrace died of a SIGINT meant for its child")
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=20), -signal.SIGTERM)

    def test_ctrl_c_reaches_the_program(self):
        # A terminal's Ctrl-C goes to the whole foreground process group.
        p = self.start_sleeper(own_group=True)
        os.killpg(p.pid, signal.SIGINT)
        self.assertEqual(p.wait(timeout=20), -signal.SIGINT)

    # ---- what cannot be run ----

    def test_missing_command(self):
        res = self.run_cmd("gotrace-no-such-command-xyz", "arg")
        self.assertEqual(res.returncode, 127)
        self.assertIn("gotrace: gotrace-no-such-command-xyz: command not found", self.err(res))

    def test_missing_path(self):
        res = self.run_cmd(os.path.join(self.tmp, "nope"))
        self.assertEqual(res.returncode, 127)
        self.assertIn("command not found", self.err(res))

    def test_not_executable(self):
        path = os.path.join(self.tmp, "data.txt")
        with open(path, "w") as f:
            f.write("not a program\n")
        res = self.run_cmd(path)
        self.assertEqual(res.returncode, 126, self.err(res))
        self.assertIn("permission denied", self.err(res))

    def test_statically_linked(self):
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            self.skipTest("no C compiler")
        src = os.path.join(self.tmp, "hello.c")
        exe = os.path.join(self.tmp, "hello-static")
        with open(src, "w") as f:
            f.write('#include <stdio.h>\nint main(void){puts("static ran");return 0;}\n')
        build = subprocess.run([cc, "-static", "-o", exe, src], capture_output=True)
        if build.returncode != 0:
            self.skipTest("cc -static failed: " + build.stderr.decode(errors="replace")[:200])
        res = self.run_cmd(exe)
        self.assertEqual(res.returncode, 2, self.err(res))
        self.assertIn("is statically linked; LD_PRELOAD cannot trace it", self.err(res))
        self.assertEqual(res.stdout, b"", "the static program must not run")

    def test_script_with_shebang_runs(self):
        path = os.path.join(self.tmp, "script.sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho script ran\nexit 5\n")
        os.chmod(path, 0o755)
        res = self.run_cmd(path)
        self.assertEqual(res.returncode, 5, self.err(res))
        self.assertEqual(res.stdout, b"script ran\n")

    # ---- flags ----

    def assert_one_line_usage_error(self, res, *needles):
        err = self.err(res)
        self.assertEqual(res.returncode, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        for n in needles:
            self.assertIn(n, err)
        self.assertEqual(res.stdout, b"", "the command must not run")

    def test_bad_stacks(self):
        res = self.run_tool("run", "-s", "abc", "--", "sh", "-c", "echo ran")
        self.assert_one_line_usage_error(res, "-s", '"abc"', "0 to 128")

    def test_bad_stacks_too_large(self):
        res = self.run_tool("run", "-s", "129", "sh", "-c", "echo ran")
        self.assert_one_line_usage_error(res, "-s", "129")

    def test_bad_period(self):
        res = self.run_tool("run", "-p", "soon", "sh", "-c", "echo ran")
        self.assert_one_line_usage_error(res, "-p", "soon")

    def test_bad_format(self):
        res = self.run_tool("run", "--format", "24", "sh", "-c", "echo ran")
        self.assert_one_line_usage_error(res, "24", "23 or 26")

    def test_bad_output_pattern(self):
        res = self.run_tool("run", "-o", "x.%d", "sh", "-c", "echo ran")
        self.assert_one_line_usage_error(res, "x.%d")

    def test_unknown_flag_and_no_command(self):
        res = self.run_tool("run", "-x", "true")
        self.assertEqual(res.returncode, 2)
        self.assertIn("usage: gotrace run", self.err(res))
        res = self.run_tool("run")
        self.assertEqual(res.returncode, 2)
        self.assertIn("usage: gotrace run", self.err(res))

    def test_flags_reach_the_program(self):
        res = self.run_tool("run", "-q", "-o", "rel.%p.trace", "-s", "5", "-p", "250ms", "-f", "26",
                            "--", "sh", "-c",
                            'printf "%s|%s|%s|%s\\n" "$GOTRACE_OUT" "$GOTRACE_STACKS" '
                            '"$GOTRACE_PERIOD" "$GOTRACE_FORMAT"')
        self.assertEqual(res.returncode, 0, self.err(res))
        out, stacks, period, fmt = res.stdout.decode().strip().split("|")
        self.assertEqual(out, os.path.join(os.path.realpath(self.tmp), "rel.%p.trace"))
        self.assertEqual((stacks, period, fmt), ("5", "250ms", "26"))

    def test_options_stop_at_the_command(self):
        # No "--": the first non-option is CMD and what follows is its own.
        res = self.run_tool("run", "-q", "-o", self.out, "sh", "-c", 'echo "$@"', "sh", "-s", "-q")
        self.assertEqual(res.returncode, 0, self.err(res))
        self.assertEqual(res.stdout, b"-s -q\n")

    def test_ld_preload_is_prepended(self):
        env = clean_env(LD_PRELOAD="/nonexistent/other.so")
        res = self.run_cmd("sh", "-c", 'echo "$LD_PRELOAD"', env=env)
        self.assertEqual(res.returncode, 0, self.err(res))
        got = res.stdout.decode().strip()
        if os.path.exists(LIB):
            self.assertEqual(got, os.path.realpath(LIB) + ":/nonexistent/other.so")
        else:
            self.assertEqual(got, "/nonexistent/other.so")

    # ---- output ----

    def test_stdout_passes_through_unchanged(self):
        payload = "".join("line %d: \u00e9\t%s\n" % (i, "x" * (i % 50)) for i in range(2000))
        path = os.path.join(self.tmp, "payload.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(payload)
        res = self.run_cmd("cat", path, flags=())
        self.assertEqual(res.returncode, 0, self.err(res))
        self.assertEqual(res.stdout, payload.encode("utf-8"))
        self.assertEqual(other_lines(self.err(res)), [])

    def test_stdin_passes_through(self):
        res = subprocess.run([GOTRACE, "run", "-q", "-o", self.out, "--", "tr", "a-z", "A-Z"],
                             input=b"hello\n", capture_output=True, env=clean_env(),
                             cwd=self.tmp, timeout=60)
        self.assertEqual(res.stdout, b"HELLO\n")

    def test_reports_the_trace(self):
        res = self.run_cmd("sh", "-c", "echo $$", flags=())
        self.assertEqual(res.returncode, 0, self.err(res))
        pid = res.stdout.decode().strip()
        path = self.out.replace("%p", pid)
        err = self.err(res)
        self.assertEqual(other_lines(err), [])
        if os.path.exists(path):
            self.assertIn("gotrace: trace written to %s (pid %s, " % (path, pid), err)
            self.assertIn("gotrace: open it with: go tool trace %s\n" % path, err)
            self.assertEqual(len(report_lines(err)), 2, err)
        else:
            self.assertIn("gotrace: no trace written to %s" % path, err)

    def test_quiet_says_nothing_about_the_trace(self):
        res = self.run_cmd("true")
        self.assertEqual(res.returncode, 0)
        err = self.err(res)
        self.assertNotIn("trace written", err)
        self.assertNotIn("open it with", err)

    # ---- help ----

    def test_help_lists_every_variable(self):
        for args in (["help"], ["--help"], ["-h"]):
            res = self.run_tool(*args)
            self.assertEqual(res.returncode, 0, args)
            text = res.stdout.decode()
            for v in VARIABLES:
                self.assertIn(v, text, args)
            self.assertIn("gotrace run", text)
            self.assertIn("go tool trace", text)

    def test_help_run(self):
        for args in (["help", "run"], ["run", "--help"]):
            res = self.run_tool(*args)
            self.assertEqual(res.returncode, 0, args)
            text = res.stdout.decode()
            self.assertIn("usage: gotrace run", text)
            for flag in ("-o", "-s", "-p", "-f", "-q"):
                self.assertIn(flag + ",", text)

    def test_unknown_command(self):
        for args in (["frobnicate"], ["help", "frobnicate"]):
            res = self.run_tool(*args)
            self.assertEqual(res.returncode, 2, args)
            err = self.err(res)
            self.assertIn('gotrace: unknown command "frobnicate"', err.splitlines()[0])
            self.assertIn("usage: gotrace COMMAND", err)

    def test_no_arguments(self):
        res = self.run_tool()
        self.assertEqual(res.returncode, 2)
        self.assertIn("usage: gotrace COMMAND", self.err(res))

    def test_version(self):
        res = self.run_tool("--version")
        self.assertEqual(res.returncode, 0)
        self.assertRegex(res.stdout.decode(), r"^gotrace \S+\n$")


# ---- the report of gotrace run, with the library ----

# The program a wrapper starts: threads, a contended lock and allocations
# kept alive, so that its trace is far bigger than a shell's. Prints its pid.
REAL_C = r"""
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *volatile kept[4096];

static void *worker_main(void *arg)
{
    for (int i = 0; i < 3000; i++) {
        pthread_mutex_lock(&mu);
        void *p = malloc(32 + i % 200);
        free(kept[i % 4096]);
        kept[i % 4096] = p;
        pthread_mutex_unlock(&mu);
    }
    return arg;
}

int main(int argc, char **argv)
{
    pthread_t t[3];
    (void)argv;
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker_main, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("real %d done with %d arguments\n", (int)getpid(), argc - 1);
    return 3;
}
"""

ROW = re.compile(r"^gotrace: ([* ]) +(\d+)  (.*?) +(\d+(?:\.\d)? (?:B|KiB|MiB|GiB))  "
                 r"(trace|empty|header only|truncated|malformed|not a trace|unreadable) +(\S.*)$")


def rows(report):
    """The table rows of a report: dicts with own, pid, program, size, status, path."""
    out = []
    for l in report:
        m = ROW.match(l)
        if m:
            out.append({"own": m.group(1) == "*", "pid": int(m.group(2)), "program": m.group(3).strip(),
                        "status": m.group(5), "path": m.group(6)})
    return out


def opened(report):
    """The file the report says to open, or None."""
    for l in report:
        if l.startswith("gotrace: open it with: go tool trace "):
            return l[len("gotrace: open it with: go tool trace "):]
    return None


def has_identity(path):
    with open(path, "rb") as f:
        return b"gotrace.process pid=" in f.read()


class RunReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(GOTRACE, os.X_OK):
            raise AssertionError("%s is missing: run `make` first" % GOTRACE)
        import gtlib
        cls.gtlib = gtlib
        if gtlib.library_problem():
            raise unittest.SkipTest(gtlib.library_problem())
        if gtlib.go_problem():
            raise AssertionError(gtlib.go_problem())
        src = os.path.join(gtlib.BIN_DIR, "report_real.c")
        os.makedirs(gtlib.BIN_DIR, exist_ok=True)
        if not os.path.exists(src) or open(src).read() != REAL_C:
            with open(src, "w") as f:
                f.write(REAL_C)
        cls.real = gtlib.compile(src)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gotrace-report-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def script(self, name, body):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        return path

    def run_report(self, *cmd, out="app.trace"):
        res = subprocess.run([GOTRACE, "run", "-o", out, "--"] + list(cmd), capture_output=True,
                             timeout=120, env=clean_env(), cwd=self.tmp)
        err = res.stderr.decode(errors="replace")
        return res, err, report_lines(err)

    def real_pid(self, res):
        m = re.search(rb"^real (\d+) done", res.stdout, re.M)
        self.assertIsNotNone(m, res.stdout)
        return int(m.group(1))

    def judge(self, path, err):
        """The file is a trace both Go parsers read, of the real program."""
        self.gtlib.validate(os.path.join(self.tmp, path))
        st = subprocess.run([GOTRACE, "stat", "-json", "-top", "0", path], capture_output=True,
                            cwd=self.tmp, timeout=60)
        self.assertEqual(st.returncode, 0, st.stderr)
        funcs = [g["function"] for g in json.loads(st.stdout)["groups"]["list"]]
        self.assertIn("worker_main", funcs, "%s is not the real program's trace:\n%s" % (path, err))

    def test_wrapper_that_forks_the_program(self):
        wrapper = self.script("wrap.sh", 'echo $$ > wrapper.pid\n%s "$@"\nst=$?\necho "wrapper: $st"\n'
                                         'exit $st\n' % self.real)
        res, err, report = self.run_report(wrapper, "a", "b")
        self.assertEqual(res.returncode, 3, err)   # the program's status, through the wrapper
        self.assertIn(b"wrapper: 3\n", res.stdout)
        sh = int(open(os.path.join(self.tmp, "wrapper.pid")).read())
        real = self.real_pid(res)
        self.assertRegex(report[0], r"^gotrace: this run wrote \d+ files \(\* marks the command's own "
                                    r"process, pid %d\):$" % sh, err)
        table = rows(report)
        own = [r for r in table if r["own"]]
        self.assertEqual([r["pid"] for r in own], [sh], err)
        self.assertEqual(own[0]["path"], "app.trace", err)
        self.assertEqual(table[0], own[0], "the command's own line comes first:\n" + err)
        real_rows = [r for r in table if r["pid"] == real]
        self.assertEqual(len(real_rows), 1, err)
        self.assertEqual(real_rows[0]["path"], "app.trace.%d" % real, err)
        self.assertTrue(all(r["status"] == "trace" for r in own + real_rows), err)
        # In words: the wrapper wrote little, the real program most.
        bulk = [l for l in report if "most of the run is in the trace of pid %d " % real in l]
        self.assertEqual(len(bulk), 1, err)
        self.assertTrue(bulk[0].startswith("gotrace: the command's own process (pid %d" % sh), err)
        self.assertEqual(opened(report), "app.trace.%d" % real, err)
        self.assertEqual(report[-1], "gotrace: open it with: go tool trace app.trace.%d" % real, err)
        self.assertFalse(any(l.startswith("gotrace: trace written") for l in report), err)
        self.judge(opened(report), err)
        with self.subTest("programs named from the traces' process identity"):
            if not has_identity(os.path.join(self.tmp, opened(report))):
                self.skipTest("needs the process identity in every generation (library change, issue 12)")
            # The shell runs the script as "/bin/sh /path/wrap.sh a b".
            self.assertTrue(own[0]["program"].startswith("sh /"), err)
            self.assertEqual(real_rows[0]["program"], "report_real a b", err)
            self.assertIn("(pid %d, sh /" % sh, bulk[0])
            self.assertIn("most of the run is in the trace of pid %d (report_real a b, " % real, bulk[0])

    def test_script_that_execs_the_program(self):
        script = self.script("exec.sh", 'echo $$ > script.pid\nexec %s "$@"\n' % self.real)
        res, err, report = self.run_report(script, "x")
        self.assertEqual(res.returncode, 3, err)
        pid = int(open(os.path.join(self.tmp, "script.pid")).read())
        self.assertEqual(self.real_pid(res), pid)   # exec: the same process
        path = opened(report)
        self.assertIsNotNone(path, err)
        self.judge(path, err)
        self.assertNotIn("most of the run", err)
        if len(report) > 2:
            # The script wrote a file before it exec'd: the program's is marked.
            own = [r for r in rows(report) if r["own"]]
            self.assertEqual([(r["pid"], r["path"]) for r in own], [(pid, path)], err)
        with self.subTest("the exec'd program gets the base name"):
            if os.path.exists(os.path.join(self.tmp, "app.trace.%d" % pid)):
                self.skipTest("needs lazy file creation: a script that execs before writing "
                              "anything hands app.trace to the program (library change, issue 12)")
            self.assertEqual(len(report), 2, err)
            self.assertRegex(report[0], r"^gotrace: trace written to app\.trace \(pid %d, report_real x, "
                                        r"\d+(\.\d)? (B|KiB|MiB)\)$" % pid)
            self.assertEqual(report[1], "gotrace: open it with: go tool trace app.trace")

    def test_killed_before_the_first_generation(self):
        res, err, report = self.run_report("sh", "-c", "kill -9 $$")
        self.assertEqual(res.returncode, -signal.SIGKILL, err)
        self.assertEqual(len(report), 1, err)
        self.assertTrue(report[0].startswith("gotrace: no trace written"), err)
        self.assertNotIn("open it with", err)
        self.assertFalse(any(l.startswith("gotrace: trace written") for l in err.splitlines()), err)
        self.assertEqual(other_lines(err), [], err)
        path = os.path.join(self.tmp, "app.trace")
        if os.path.exists(path):
            # A library that still writes the header at start: said plainly.
            self.assertIn("is header only: the process ended before its first generation was written",
                          report[0])
        else:
            self.assertEqual(report[0], "gotrace: no trace written to app.trace: the program was killed "
                                        "(SIGKILL) before its first generation was written, and a process "
                                        "leaves a file only from then on")
        with self.subTest("no file is left"):
            if os.path.exists(path):
                self.skipTest("needs lazy file creation (library change, issue 12)")

    def test_stat_names_the_process(self):
        res, err, report = self.run_report(self.real, "p", "q", out="s.%p.trace")
        self.assertEqual(res.returncode, 3, err)
        pid = self.real_pid(res)
        path = "s.%d.trace" % pid
        self.assertTrue(report[0].startswith("gotrace: trace written to %s (pid %d, " % (path, pid)), err)
        st = subprocess.run([GOTRACE, "stat", path], capture_output=True, cwd=self.tmp, timeout=60)
        self.assertEqual(st.returncode, 0, st.stderr)
        lines = st.stdout.decode().splitlines()
        self.assertEqual(lines[0], "gotrace stat: %s" % path)
        if not has_identity(os.path.join(self.tmp, path)):
            self.skipTest("needs the process identity in every generation (library change, issue 12)")
        self.assertRegex(lines[1], r"^  process %d \(parent \d+\): %s p q$" % (pid, re.escape(self.real)))
        js = json.loads(subprocess.run([GOTRACE, "stat", "-json", path], capture_output=True,
                                       cwd=self.tmp, timeout=60).stdout)
        self.assertEqual((js["process"]["pid"], js["process"]["cmd"]), (pid, self.real + " p q"))


class StatHeapNoTraceTest(unittest.TestCase):
    """gotrace stat and heap on files that hold no complete generation: one
    line naming the file and what is wrong, exit status 2, nothing on stdout."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gotrace-notrace-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def check(self, name, content, why):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(content)
        for args in (["stat"], ["stat", "-json"], ["heap"], ["heap", "-pprof", path + ".pb.gz"]):
            with self.subTest(args=args, file=name):
                res = subprocess.run([GOTRACE] + args + [path], capture_output=True, timeout=60)
                err = res.stderr.decode()
                self.assertEqual(res.returncode, 2, err)
                self.assertEqual(res.stdout, b"")
                self.assertEqual(err, "gotrace %s: %s: holds no complete generation: %s\n" % (args[0], path, why))
                self.assertFalse(os.path.exists(path + ".pb.gz"))
        # Standard input too.
        res = subprocess.run([GOTRACE, "stat", "-"], input=content, capture_output=True, timeout=60)
        self.assertEqual((res.returncode, res.stdout), (2, b""), res.stderr)
        self.assertEqual(res.stderr.decode(),
                         "gotrace stat: (standard input): holds no complete generation: %s\n" % why)

    def test_header_only(self):
        self.check("header.trace", b"go 1.23 trace\0\0\0",
                   "the traced process ended before its first generation was written")

    def test_empty(self):
        self.check("empty.trace", b"", "the file is empty")


if __name__ == "__main__":
    unittest.main()
