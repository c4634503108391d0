"""`gotrace view` and the progress line (issue 18).

`gotrace view` is run against fake `go` commands (shell scripts that answer
`go env GOVERSION` with a version of our choosing and record every other call:
its arguments and GOTOOLCHAIN), so these tests check what gotrace asks Go to
do, not Go's viewer (test_viewer.py covers that):

  * `gotrace view T` runs `go tool trace T` with GOTOOLCHAIN=local under the
    newest Go found (PATH, then GOTRACE_GO_SEARCH), and when Go says where it
    serves, says it too: "gotrace: open URL in a browser";
  * `-pprof=sync` makes the profile with `go tool trace -pprof=sync T` and
    opens it with `go tool pprof -http=...`; the temporary profile is gone
    afterwards; `-http=ADDR` reaches Go;
  * a Go too old for the trace, or none at all, is one line that names the
    Debian package to install, and exit status 1; a file that is no trace is
    a clear error;
  * `gotrace run --view -- CMD` traces CMD, then opens its trace, and exits
    with CMD's status;
  * the progress line: on a terminal, `gotrace stat` and `gotrace heap` show
    "reading the trace: X of Y (P %)" (GOTRACE_PROGRESS=always: without the
    one-second wait), and `gotrace view` shows how far Go has read the trace;
    with stderr not a terminal nothing is shown.
"""
import os
import pty
import select
import shutil
import stat
import subprocess
import tempfile
import time
import unittest

import gtlib

FAKE_GO = r"""#!/bin/sh
if [ "$1" = env ] && [ "$2" = GOVERSION ]; then echo "%(version)s"; exit 0; fi
log=%(log)s
printf 'ARGS' >> "$log"; for a in "$@"; do printf ' [%%s]' "$a" >> "$log"; done; echo >> "$log"
echo "GOTOOLCHAIN=$GOTOOLCHAIN GO=%(version)s" >> "$log"
echo "BROWSER=$BROWSER" >> "$log"
case "$2 $3" in
"trace -pprof="*) printf 'PROFILE' ;;
"pprof "*) echo "Serving web UI on http://localhost:5151" >&2 ;;
"trace "*)
  if [ -n "$SLOW_READ" ]; then
    # Read the first 1000 bytes, then wait: gotrace should show the position.
    for t in "$@"; do :; done
    { dd bs=100 count=10 status=none of=/dev/null; sleep "$SLOW_READ"; } < "$t"
  fi
  echo "2026/11/26 12:00:00 Opening browser. Trace viewer is listening on http://127.0.0.1:4242" >&2 ;;
esac
exit ${FAKE_STATUS:-0}
"""


class ViewTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gotrace-view-")
        cls.log = os.path.join(cls.tmp, "calls.log")
        cls.trace = gtlib.trace_path("view-mutex_wait")
        binary = gtlib.compile("mutex_wait.c")
        cls.traced = gtlib.run_traced([binary], cls.trace)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        if os.path.exists(self.log):
            os.unlink(self.log)

    def fake_go(self, where, version):
        d = os.path.join(self.tmp, where)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "go")
        with open(path, "w") as f:
            f.write(FAKE_GO % {"version": version, "log": self.log})
        os.chmod(path, 0o755)
        return path

    def env(self, path_dirs=(), search="/nonexistent/go-*/bin/go", **extra):
        env = gtlib.clean_env()
        # PATH: the fake gos first, then only what the scripts need (no real go).
        env["PATH"] = ":".join(list(path_dirs) + ["/usr/bin", "/bin"])
        env["GOTRACE_GO_SEARCH"] = search
        env["TMPDIR"] = self.tmp
        for name in ("GOTOOLCHAIN", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
            env.pop(name, None)
        env.update(extra)
        return env

    def view(self, *args, env, timeout=60):
        return subprocess.run([gtlib.GOTRACE, "view"] + list(args), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout, cwd=self.tmp)

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def test_opens_the_trace_with_go_tool_trace(self):
        go = self.fake_go("path1", "go1.99.2")
        res = self.view(self.trace, env=self.env([os.path.dirname(go)]))
        self.assertEqual(res.returncode, 0, res.stderr)
        # No display: Go's browser choice is `true`, which starts nothing.
        self.assertEqual(self.calls(), ["ARGS [tool] [trace] [%s]" % self.trace,
                                        "GOTOOLCHAIN=local GO=go1.99.2", "BROWSER=true"])
        self.assertIn("gotrace: open http://127.0.0.1:4242 in a browser", res.stderr)
        self.assertIn("go1.99.2", res.stderr.splitlines()[0])

    def test_newest_go_wins(self):
        old = self.fake_go("old", "go1.24.1")
        self.fake_go("search/go-1.99/bin", "go1.99.0")
        self.fake_go("search/go-1.25/bin", "go1.25.3")
        env = self.env([os.path.dirname(old)], search=os.path.join(self.tmp, "search/go-*/bin/go"))
        res = self.view(self.trace, env=env)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("GOTOOLCHAIN=local GO=go1.99.0", self.calls())
        # GOTRACE_GO names the one to use.
        os.unlink(self.log)
        res = self.view(self.trace, env=dict(env, GOTRACE_GO=old))
        self.assertIn("GOTOOLCHAIN=local GO=go1.24.1", self.calls())

    def test_profile_in_pprof(self):
        go = self.fake_go("path2", "go1.27.4")
        res = self.view("-pprof=sync", "-http=127.0.0.1:5151", self.trace, env=self.env([os.path.dirname(go)]))
        self.assertEqual(res.returncode, 0, res.stderr)
        calls = self.calls()
        self.assertEqual(calls[0], "ARGS [tool] [trace] [-pprof=sync] [%s]" % self.trace)
        self.assertEqual(calls[1], "GOTOOLCHAIN=local GO=go1.27.4")
        self.assertTrue(calls[3].startswith("ARGS [tool] [pprof] [-http=127.0.0.1:5151] [-no_browser] [%s/"
                                            % self.tmp), calls)
        profile = calls[3].rsplit("[", 1)[1].rstrip("]")
        self.assertFalse(os.path.exists(profile), "the temporary profile %s stays behind" % profile)
        self.assertIn("gotrace: open http://localhost:5151 in a browser", res.stderr)
        self.assertEqual([f for f in os.listdir(self.tmp) if f.endswith(".pb")], [])

    def test_profile_on_a_free_port_and_a_display(self):
        go = self.fake_go("path6", "go1.27.4")
        res = self.view("-pprof=sched", self.trace, env=self.env([os.path.dirname(go)], DISPLAY=":0"))
        self.assertEqual(res.returncode, 0, res.stderr)
        calls = [c for c in self.calls() if c.startswith("ARGS")]
        self.assertRegex(calls[1], r"^ARGS \[tool\] \[pprof\] \[-http=localhost:[1-9]\d*\] \[%s/" % self.tmp)
        # With a display Go may start a browser: BROWSER stays the user's.
        self.assertIn("BROWSER=", self.calls())
        # Without one, pprof is told not to.
        os.unlink(self.log)
        res = self.view("-pprof=sched", self.trace, env=self.env([os.path.dirname(go)]))
        self.assertIn("] [-no_browser] [", [c for c in self.calls() if c.startswith("ARGS")][1])

    def test_bad_profile_kind(self):
        res = self.view("-pprof=heap", self.trace, env=self.env())
        self.assertEqual(res.returncode, 2)
        self.assertIn("-pprof takes sync, net, syscall or sched", res.stderr)

    def test_no_go_at_all(self):
        res = self.view(self.trace, env=self.env())
        self.assertEqual(res.returncode, 1)
        lines = res.stderr.splitlines()
        self.assertEqual(len(lines), 1, res.stderr)
        self.assertRegex(lines[0], r"^gotrace: no Go found to open the trace .*install golang-1\.23-go")
        self.assertEqual(self.calls(), [])

    def test_go_too_old(self):
        go = self.fake_go("ancient", "go1.22.9")
        res = self.view(self.trace, env=self.env([os.path.dirname(go)]))
        self.assertEqual(res.returncode, 1)
        self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
        self.assertIn("is a Go 1.23 trace; the newest Go found, go1.22.9", res.stderr)
        self.assertIn("install golang-1.23-go", res.stderr)

    def test_not_a_trace(self):
        bogus = os.path.join(self.tmp, "notes.txt")
        with open(bogus, "w") as f:
            f.write("hello, world\n")
        go = self.fake_go("path3", "go1.27.4")
        res = self.view(bogus, env=self.env([os.path.dirname(go)]))
        self.assertEqual(res.returncode, 2)
        self.assertIn("is not a Go execution trace", res.stderr)
        res = self.view(os.path.join(self.tmp, "missing.trace"), env=self.env([os.path.dirname(go)]))
        self.assertEqual(res.returncode, 2)
        self.assertIn("No such file or directory", res.stderr)

    def test_run_then_view(self):
        go = self.fake_go("path4", "go1.27.4")
        trace = gtlib.trace_path("view-run")
        env = self.env([os.path.dirname(go)])
        res = subprocess.run([gtlib.GOTRACE, "run", "--view", "-o", trace, "--", "sh", "-c", "echo hi; exit 3"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                             timeout=60)
        self.assertEqual(res.returncode, 3, res.stderr)
        self.assertEqual(res.stdout, "hi\n")
        self.assertEqual(self.calls()[0], "ARGS [tool] [trace] [%s]" % trace)
        self.assertIn("gotrace: open http://127.0.0.1:4242 in a browser", res.stderr)
        gtlib.discard(trace)

    # -- progress ---------------------------------------------------------------

    def on_terminal(self, argv, env, timeout=60):
        """Run argv with stderr on a pseudo-terminal; return (status, what it showed)."""
        master, slave = pty.openpty()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=slave, env=env, cwd=self.tmp)
        os.close(slave)
        out = b""
        deadline = time.time() + timeout
        while time.time() < deadline:
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                out += data
            elif p.poll() is not None:
                break
        os.close(master)
        return p.wait(timeout=timeout), out.decode("utf-8", "replace")

    def test_stat_and_heap_progress_on_a_terminal_only(self):
        size = os.path.getsize(self.trace)
        for cmd in ("stat", "heap"):
            status, shown = self.on_terminal([gtlib.GOTRACE, cmd, self.trace],
                                             dict(gtlib.clean_env(), GOTRACE_PROGRESS="always"))
            self.assertEqual(status, 0, shown)
            self.assertRegex(shown, r"\rgotrace: reading the trace: .* of %s \(\d+ %%\)"
                             % gtlib.re.escape(human(size)), cmd)
            self.assertTrue(shown.endswith("\r\x1b[K"), "the line is cleared at the end: %r" % shown[-40:])
            # The default waits a second: this small trace shows nothing.
            status, shown = self.on_terminal([gtlib.GOTRACE, cmd, self.trace], gtlib.clean_env())
            self.assertNotIn("reading the trace", shown)
            # Not a terminal: nothing, even asked to.
            res = subprocess.run([gtlib.GOTRACE, cmd, self.trace], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, universal_newlines=True,
                                 env=dict(gtlib.clean_env(), GOTRACE_PROGRESS="always"))
            self.assertEqual(res.returncode, 0)
            self.assertNotIn("reading the trace", res.stderr)

    def test_view_shows_how_far_go_has_read(self):
        go = self.fake_go("path5", "go1.27.4")
        env = self.env([os.path.dirname(go)], GOTRACE_PROGRESS="always", SLOW_READ="2")
        status, shown = self.on_terminal([gtlib.GOTRACE, "view", self.trace], env)
        self.assertEqual(status, 0, shown)
        self.assertIn("go tool trace is reading the trace: 1000 B of %s" % human(os.path.getsize(self.trace)),
                      shown)
        self.assertIn("gotrace: open http://127.0.0.1:4242 in a browser", shown)


def human(n):
    """tools/units.c's tool_human_bytes."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    if n < 1024:
        return "%d B" % n
    v, u = float(n), 0
    while v >= 1024 and u < len(units) - 1:
        v /= 1024
        u += 1
    return "%.1f %s" % (v, units[u])


if __name__ == "__main__":
    unittest.main()
