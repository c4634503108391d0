"""test_cli.py — the `gotrace` command: exit status and signal pass-through, errors, help.

Self-contained (no gtlib). These tests hold whether or not build/libgotrace.so
exists or works: only the lines about the trace file may differ, and the tests
that look at those lines accept both outcomes.
"""
import os
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


def trace_lines(stderr):
    """The stderr lines that talk about the trace file or the library."""
    return [l for l in stderr.splitlines()
            if "trace written" in l or "no trace written" in l or "open it with" in l
            or "libgotrace.so" in l]


def other_lines(stderr):
    return [l for l in stderr.splitlines() if l not in trace_lines(stderr)]


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

    def start_sleeper(self, own_group=False):
        """gotrace run on a shell that says "ready" and then sleeps."""
        p = subprocess.Popen([GOTRACE, "run", "-q", "-o", self.out, "--",
                              "sh", "-c", "echo ready; exec sleep 30"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=clean_env(), cwd=self.tmp, start_new_session=own_group)
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
            self.assertIn("gotrace: trace written to %s\n" % path, err)
            self.assertIn("go tool trace %s\n" % path, err)
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


if __name__ == "__main__":
    unittest.main()
