"""The tracer's own stack unwinder inside programs that trouble one
(test/programs/unwind_zoo.c): the program owns descriptors 3 and 4 while it
allocates through code without CFI and in signal handlers; a thread runs on
a PTHREAD_STACK_MIN stack; a plugin is loaded and unloaded while another
thread unwinds.  Judged from the outside: the program's output and exit
status are those of an untraced run, the system calls its threads make are
those of an untraced run (strace), traces pass both Go parsers, and stacks
reach the frames they should."""
import collections
import os
import re
import shutil
import subprocess
import unittest

import gtlib

STRACE = shutil.which("strace")
# The calls libunwind made on the capture path: a validation pipe (pipe2,
# write/read), mincore, and signal masks around its caches.
WATCHED = ("read", "write", "mincore", "rt_sigprocmask", "pipe2")
MESSAGES = 3000


def strace_counts(strace_file, stdout):
    """{(role, syscall): calls} from an `strace -f -o` file, the roles named
    by the program's "tid ROLE TID" lines ("other": any other thread, the
    tracer's included)."""
    roles = {}
    for line in stdout.splitlines():
        m = re.match(r"tid (\w+) (\d+)$", line)
        if m:
            roles[m.group(2)] = m.group(1)
    counts = collections.Counter()
    with open(strace_file, errors="replace") as f:
        for line in f:
            m = re.match(r"^(\d+)\s+(\w+)\(", line)  # a call's start ("resumed" lines are not)
            if m:
                counts[(roles.get(m.group(1), "other"), m.group(2))] += 1
    return counts


class UnwindTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.problem = gtlib.library_problem() or gtlib.go_problem()
        if cls.problem:
            return
        cls.zoo = gtlib.compile("unwind_zoo")
        cls.plugin = gtlib.compile("unwind_plugin.c", out=os.path.join(gtlib.BIN_DIR, "libunwind_plugin.so"),
                                   extra=("-shared", "-fPIC", "-fomit-frame-pointer"))

    def setUp(self):
        if self.problem:
            self.fail(self.problem)

    def traced(self, args, name, env=None, timeout=120):
        path = gtlib.trace_path("unwind-" + name)
        # every allocation recorded: each one unwinds (through code without
        # CFI, in signal handlers), not one in a sample
        run = gtlib.run_traced([self.zoo] + args, path, env_extra=dict({"GOTRACE_MALLOC": "all"}, **(env or {})),
                               timeout=timeout)
        self.assertEqual(run.returncode, 0, run.describe())
        gtlib.validate(path)
        return run

    def test_program_owning_fds_3_and_4(self):
        """A socketpair dup2'd onto 3 and 4: every byte comes back intact,
        no hang, while another thread allocates through generated code
        without CFI and in a signal handler."""
        plain = gtlib.run_plain([self.zoo, "fds", str(MESSAGES)], timeout=120)
        self.assertEqual(plain.returncode, 0, plain.describe())
        run = self.traced(["fds", str(MESSAGES)], "fds", env={"GOTRACE_PERIOD": "20ms"})
        ok = [l for l in run.stdout.splitlines() if l.startswith("fds ok")]
        self.assertEqual(ok, [l for l in plain.stdout.splitlines() if l.startswith("fds ok")], run.describe())
        # The threads' waits on the socket carry their whole stacks.
        stacks = [e.stack for e in gtlib.blocks(gtlib.parsed_events(run.trace)) if "read_full" in e.stack]
        self.assertTrue(stacks, "no wait in read_full in %s" % run.trace)
        self.assertTrue(any(s[-1] in ("echo", "main") for s in stacks),
                        "no stack of a wait reaches its thread's start: %s" % stacks[:3])

    def test_no_pipe_mincore_or_signal_mask_on_the_capture_path(self):
        """strace: the program's threads make exactly the read, write,
        mincore, rt_sigprocmask and pipe2 calls they make untraced, and the
        traced process makes no mincore or pipe2 call at all."""
        if not STRACE:
            self.skipTest("strace is not installed (Debian package `strace`)")
        runs = {}
        for mode in ("untraced", "traced"):
            out = gtlib.trace_path("unwind-strace-" + mode) + ".strace"
            argv = [STRACE, "-f", "-e", "trace=" + ",".join(WATCHED), "-o", out, self.zoo, "fds", str(MESSAGES)]
            if mode == "untraced":
                run = gtlib.run_plain(argv, timeout=180)
            else:
                run = gtlib.run_traced(argv, gtlib.trace_path("unwind-strace"), timeout=180,
                                       env_extra={"GOTRACE_MALLOC": "all"})  # a stack per allocation
            self.assertEqual(run.returncode, 0, run.describe())
            runs[mode] = (strace_counts(out, run.stdout), out)
        plain, traced = runs["untraced"][0], runs["traced"][0]
        for role in ("echo", "alloc"):
            for call in WATCHED:
                # A thread starts with its signals blocked and sets its own
                # mask once at the start (interpose/thread.c): one call, not
                # on the capture path.
                extra = 1 if call == "rt_sigprocmask" else 0
                self.assertEqual(traced[(role, call)], plain[(role, call)] + extra,
                                 "the %s thread made %d %s calls traced, %d untraced (strace files: %s, %s)"
                                 % (role, traced[(role, call)], call, plain[(role, call)],
                                    runs["untraced"][1], runs["traced"][1]))
        for call in ("mincore", "pipe2"):
            n = sum(v for (role, c), v in traced.items() if c == call)
            self.assertEqual(n, 0, "the traced process made %d %s calls (%s)" % (n, call, runs["traced"][1]))
        self.assertGreaterEqual(traced[("alloc", "write")] + traced[("echo", "read")], MESSAGES)

    def test_pthread_stack_min_thread_survives(self):
        """A thread on a PTHREAD_STACK_MIN stack recursing 30 frames of ~200
        bytes, then usleep and malloc: runs as untraced, with its whole stack
        in the trace."""
        plain = gtlib.run_plain([self.zoo, "small"])
        self.assertEqual(plain.returncode, 0, plain.describe())
        run = self.traced(["small"], "small")
        self.assertEqual(run.stdout, plain.stdout)
        # With room for every frame, the stack ends at the thread's start.
        run = self.traced(["small"], "small-64", env={"GOTRACE_STACKS": "64"})
        self.assertEqual(run.stdout, plain.stdout)
        sleeps = [e for e in gtlib.blocks(gtlib.parsed_events(run.trace), "sleep") if "deep200" in e.stack]
        self.assertTrue(sleeps, "no sleep block in deep200 in %s" % run.trace)
        self.assertGreaterEqual(sleeps[0].stack.count("deep200"), 31,
                                "the stack of usleep stops early: %s" % sleeps[0])
        self.assertEqual(sleeps[0].stack[-1], "small_main", "the stack does not end at the thread's start: %s"
                         % sleeps[0])

    def test_plugin_loaded_and_unloaded(self):
        """dlopen, call through the plugin's frames (CFI only, no frame
        pointer), dlclose, 30 times while another thread unwinds; then once
        more without dlclose: the stack reaches from the callback through
        the plugin to the program."""
        run = self.traced(["plugin", self.plugin, "30"], "plugin", env={"GOTRACE_PERIOD": "10ms"})
        self.assertIn("plugin ok", run.stdout)
        sleeps = [e.stack for e in gtlib.blocks(gtlib.parsed_events(run.trace), "sleep")
                  if "plugin_callback" in e.stack]
        self.assertTrue(sleeps, "no sleep in plugin_callback in %s" % run.trace)
        through = [s for s in sleeps if "plugin_round" in s]
        self.assertGreaterEqual(len(through), len(sleeps) // 2,
                                "few stacks cross the plugin's frames into plugin_round; e.g. %s" % sleeps[0])
        last = through[-1] if through else sleeps[-1]
        self.assertIn("plugin_fn", last, "the loaded plugin's frames are not named: %s" % last)


if __name__ == "__main__":
    unittest.main()
