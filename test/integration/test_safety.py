"""Issue 12: gotrace is safe on every real program.

Hostile programs (test/programs/hostile_*.c) run untraced and traced; what
a user would check is asserted: the program's output, exit status or death
signal and the numbers of its descriptors are those of the untraced run; it
never hangs; it stays single-threaded when it needs to be; every file left in
the output directory is a trace both Go parsers accept (Go 1.23 `-d=1` and
the newest Go `-d=parsed`), or there is no file where the issue allows none;
a refusal is one clear `gotrace:` line.

One class per problem of the issue:

  DescriptorTest      1, 2  the tracer's descriptors, close-everything programs
  SingleThreadTest    3     unshare(CLONE_NEWUSER), /proc/self/task checks
  FilesTest           4     kills before the first generation, fork + close +
                            exec, wrapper scripts
  ReentryTest         6     signal handlers calling wrapped functions
  SmallStackTest      7     PTHREAD_STACK_MIN threads
  OutputPathTest      8     FIFOs, devices, symlinks, directories
  DeathTest           9     SIGPIPE (`prog | head -c1`), alarm(1), every
                            other signal whose default action ends the
                            process, the flight recorder on a full disk
  VisibilityTest      10    the flight signal, dispositions read back,
                            sleep's return value, a bad GOTRACE_CLOCK, a
                            foreign allocator first in LD_PRELOAD
  SeccompStrictTest   3     a thread in seccomp strict mode (only read, write,
                            _exit, sigreturn; rdtsc faults)
  ChromiumTest        all   chromium --headless --no-sandbox --dump-dom

Every test works in a directory of its own under the run's trace directory
(kept when GOTRACE_TEST_KEEP=1); traced runs write into its out/ folder, so
every file there is something the tracer left.
"""
import concurrent.futures
import glob
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import gtlib

JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def gotrace_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("gotrace:")]


def signame(rc):
    if rc is not None and rc < 0:
        try:
            return "killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit status %s" % rc


def run(argv, env_extra=None, timeout=60, nofile=None, cwd=None, stdin=None):
    """Runs argv (environment: clean_env() + env_extra) in a session of its
    own; on timeout the whole session is killed and the test fails saying
    so. nofile sets RLIMIT_NOFILE (soft and hard) in the child, as
    `ulimit -n` does. Returns, once argv and every process left in its
    session have ended (up to 30 s more), a gtlib.Run (returncode < 0:
    killed by that signal; elapsed: argv's own time)."""
    env = gtlib.clean_env()
    env.update(env_extra or {})

    def limit():
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=limit if nofile else None)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        raise AssertionError("HANG: %s did not finish within %ss and was killed (LD_PRELOAD=%s, GOTRACE_OUT=%s)\n"
                             "stdout so far:\n%s\nstderr so far:\n%s"
                             % (" ".join(argv), timeout, env.get("LD_PRELOAD", ""), env.get("GOTRACE_OUT", ""),
                                gtlib.head(out.decode("utf-8", "replace"), 10),
                                gtlib.head(err.decode("utf-8", "replace"), 10))) from None
    elapsed = time.monotonic() - t0
    gtlib.wait_session_done(p.pid)  # helpers that outlive argv finish their traces
    return gtlib.Run(list(argv), p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                     elapsed)


def validate_all(files):
    """Both Go parsers on every file, two files at a time; fails naming every
    rejected file."""
    def one(f):
        try:
            gtlib.validate(f)
            return None
        except gtlib.TraceRejected as e:
            return str(e)
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        errors = [e for e in ex.map(one, files) if e]
    if errors:
        raise AssertionError("%d of %d files the tracer left are not traces both Go parsers accept:\n%s"
                             % (len(errors), len(files), "\n".join(errors[:4])))


def start_functions(trace):
    """Start function of every goroutine the newest Go sees created in trace
    (the outermost frame of its creation stack)."""
    return [c.tstack[-1] if c.tstack else "" for c in gtlib.goroutine_creations(gtlib.parsed_events(trace)).values()]


# "gotrace.process pid=<pid> ppid=<ppid> [cpu_hz=<N>] cmd=<argv>": one string of the
# trace's string table (Go wire format: EvString, id, length, bytes).
_IDENTITY = re.compile(rb"gotrace\.process pid=(\d+) ppid=(\d+) (?:[a-z_]+=\S* )*cmd=(.*)", re.S)


def process_identities(trace):
    """[(pid, ppid, cmd)] of the gotrace.process strings in the trace's
    string tables (read with the length that precedes each string)."""
    with open(trace, "rb") as f:
        data = f.read()
    found = []
    for m in re.finditer(rb"gotrace\.process ", data):
        pos = m.start()
        if pos < 2:
            continue
        length = data[pos - 1]
        if length >= 0x80:
            continue
        if data[pos - 2] >= 0x80:    # a two-byte varint (strings up to 2 KiB and a bit)
            length = (data[pos - 2] & 0x7f) | (length << 7)
        s = data[pos:pos + length]
        im = _IDENTITY.fullmatch(s)
        if im:
            found.append((int(im.group(1)), int(im.group(2)), im.group(3).decode("utf-8", "replace")))
    return found


class _SafetyCase(unittest.TestCase):
    PROGRAMS = ()

    @classmethod
    def setUpClass(cls):
        problem = gtlib.library_problem() or gtlib.go_problem()
        if problem:
            raise AssertionError(problem)
        cls.bin = {name: gtlib.compile("hostile_" + name) for name in cls.PROGRAMS}

    def setUp(self):
        gtlib._ensure_dirs()
        self.dir = tempfile.mkdtemp(prefix="safety-%s-" % self._testMethodName[5:40], dir=gtlib.TRACE_DIR)
        self.out = os.path.join(self.dir, "out")
        os.mkdir(self.out)
        if not gtlib.KEEP:
            # a cleanup, not tearDown: cleanups added later (umount) run first
            self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def traced_env(self, out=None, **extra):
        env = {"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": out or os.path.join(self.out, "t.trace")}
        env.update(extra)
        return env

    def both(self, argv, out=None, env=None, traced_env=None, timeout=60, nofile=None, traced_timeout=None):
        """Runs argv untraced, then traced (GOTRACE_OUT=out, default
        out/t.trace); returns (untraced Run, traced Run)."""
        plain = run(argv, env, timeout, nofile, cwd=self.dir)
        tenv = dict(env or {})
        tenv.update(self.traced_env(out, **(traced_env or {})))
        traced = run(argv, tenv, traced_timeout or timeout, nofile, cwd=self.dir)
        return plain, traced

    def assert_same(self, plain, traced, stdout=True):
        self.assertEqual(signame(traced.returncode), signame(plain.returncode),
                         "traced: %s, untraced: %s\n%s" % (signame(traced.returncode), signame(plain.returncode),
                                                           traced.describe()))
        if stdout:
            self.assertEqual(traced.stdout, plain.stdout, "stdout differs from untraced\n" + traced.describe())

    def out_files(self, folder=None):
        """Every file the tracer left in the output folder."""
        folder = folder or self.out
        return sorted(f for f in glob.glob(os.path.join(folder, "*"))
                      if os.path.isfile(f) and not f.endswith(".parsed.txt"))

    def assert_out_files_valid(self, folder=None, allow_none=True):
        files = self.out_files(folder)
        if not allow_none:
            self.assertTrue(files, "the traced program left no trace file in %s" % (folder or self.out))
        validate_all(files)
        return files


# --------------------------------------------------------------------------
# Problems 1 and 2: descriptors


class DescriptorTest(_SafetyCase):
    PROGRAMS = ("fds",)

    def copy(self, when):
        src = os.path.join(self.dir, "src.txt")
        with open(src, "wb") as f:
            f.write(b"0123456789" * 100)
        dst = os.path.join(self.dir, "dst.txt")
        argv = [self.bin["fds"], "copy", src, dst, when]
        plain = run(argv, cwd=self.dir)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assertIn("src fd 3, dst fd 4", plain.stdout, plain.describe())
        os.unlink(dst)
        trace = os.path.join(self.out, "copy.trace")
        traced = run(argv, self.traced_env(trace), cwd=self.dir)
        with open(src, "rb") as f, open(dst, "rb") as g:
            want, got = f.read(), g.read()
        self.assertEqual(got, want, "the copy traced differs from its source (%d bytes, first %r)\n%s"
                         % (len(got), got[:16], traced.describe()))
        self.assert_same(plain, traced)
        self.assertEqual(gotrace_lines(traced.stderr), [], traced.describe())
        gtlib.validate(trace)
        self.assertEqual(start_functions(trace).count("busy_main"), 2,
                         "the threads started %s the closing are missing from %s"
                         % ("after" if when == "early" else "before", trace))

    def test_fds_program_closing_everything_at_start_copies_bytes_intact(self):
        # A daemon-like start (close loop, close_range, closefrom) while
        # single-threaded: nothing of the tracer's is closed by the loop, the
        # program's files get 3 and 4, the copy is byte for byte, tracing goes
        # on.
        self.copy("early")

    def test_fds_program_closing_everything_while_threads_run_copies_bytes_intact(self):
        self.copy("late")

    def test_fds_socketpair_dup2_onto_3_and_4_no_hang_data_intact(self):
        argv = [self.bin["fds"], "pair", "2000"]
        plain, traced = self.both(argv, timeout=30)
        self.assertIn("every reply intact", plain.stdout, plain.describe())
        self.assert_same(plain, traced)
        gtlib.validate(os.path.join(self.out, "t.trace"))

    def test_fds_first_open_numbered_as_untraced(self):
        argv = [self.bin["fds"], "first"]
        plain = run(argv, cwd=self.dir)
        self.assertTrue(plain.stdout.startswith("open 3 "), plain.describe())
        for name, extra in (("defaults", {}), ("GOTRACE_STACKS=0", {"GOTRACE_STACKS": "0"}),
                            ("GOTRACE_MALLOC=0", {"GOTRACE_MALLOC": "0"})):
            with self.subTest(name):
                trace = os.path.join(self.out, "first-%s.trace" % name.replace("=", ""))
                traced = run(argv, self.traced_env(trace, **extra), cwd=self.dir)
                self.assert_same(plain, traced)
                gtlib.validate(trace)

    def test_fds_proc_self_fd_same_numbers_as_untraced(self):
        # The set of numbers in /proc/self/fd (at the start, while threads
        # run, after the join, in a forked child, at the end of main) is the
        # untraced one: the tracer's descriptors, if any, are not there.
        argv = [self.bin["fds"], "list"]
        plain, traced = self.both(argv, out=os.path.join(self.out, "list.%p.trace"))
        self.assertEqual(plain.returncode, 0, plain.describe())
        want = dict(l.split(":", 1) for l in plain.stdout.splitlines())
        got = dict(l.split(":", 1) for l in traced.stdout.splitlines() if ":" in l)
        for when in want:
            w, g = set(want[when].split()), set(got.get(when, "").split())
            targets = [l for l in traced.stderr.splitlines() if l.startswith("hostile_fds: %s:" % when)]
            self.assertEqual(g, w, "/proc/self/fd %s: traced %s, untraced %s; traced targets:\n%s"
                             % (when, sorted(g, key=int), sorted(w, key=int), "\n".join(targets)))
        self.assert_same(plain, traced)
        self.assert_out_files_valid(allow_none=False)

    def reuse(self, nofile, period):
        argv = [self.bin["fds"], "reuse"]
        trace = os.path.join(self.out, "reuse.trace")
        extra = {"GOTRACE_PERIOD": period} if period else {}
        plain, traced = self.both(argv, out=trace, traced_env=extra, nofile=nofile)
        self.assertEqual(plain.returncode, 0, plain.describe())
        if nofile:
            self.assertIn("open with a full table: EMFILE", plain.stdout, plain.describe())
        self.assert_same(plain, traced)
        gtlib.validate(trace)
        starts = start_functions(trace)
        self.assertEqual(starts.count("after_close_main"), 2,
                         "the threads started after the program closed everything are missing from %s "
                         "(goroutines: %s)\n%s" % (trace, sorted(set(starts)), traced.describe()))
        self.assertIn("full_main", starts, "the thread started with a full descriptor table is missing from %s" % trace)

    def test_fds_trace_survives_close_all_and_dup_onto_every_number(self):
        self.reuse(None, None)

    def test_fds_trace_survives_close_all_and_dup_onto_every_number_period_1ms(self):
        self.reuse(None, "1ms")

    def test_fds_trace_survives_close_all_and_dup_onto_every_number_ulimit_64(self):
        self.reuse(64, None)

    def test_fds_trace_survives_close_all_and_dup_onto_every_number_ulimit_64_period_1ms(self):
        self.reuse(64, "1ms")


# --------------------------------------------------------------------------
# Problem 3: single-threaded programs


class SingleThreadTest(_SafetyCase):
    PROGRAMS = ("single",)

    def test_unshare_user_namespace_runs_as_untraced(self):
        unshare = shutil.which("unshare")
        if not unshare:
            self.skipTest("unshare (util-linux) is not installed")
        argv = [unshare, "-U", "id"]
        plain = run(argv, cwd=self.dir)
        if plain.returncode != 0:
            self.skipTest("unprivileged user namespaces are not available here: untraced `unshare -U id` "
                          "fails (%s): %s" % (signame(plain.returncode), plain.stderr.strip()))
        traced = run(argv, self.traced_env(os.path.join(self.out, "unshare.%p.trace")), cwd=self.dir)
        self.assert_same(plain, traced)
        self.assertEqual(traced.returncode, 0, traced.describe())
        self.assert_out_files_valid()

    def single(self, mode, period):
        argv = [self.bin["single"], mode]
        extra = {"GOTRACE_PERIOD": period} if period else {}
        plain, traced = self.both(argv, out=os.path.join(self.out, "s.%p.trace"), traced_env=extra)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assertNotIn("not single", plain.stdout, plain.describe())
        self.assert_same(plain, traced)
        self.assert_out_files_valid(allow_none=False)

    def test_single_threaded_program_sees_one_thread_before_fork(self):
        self.single("check", None)

    def test_single_threaded_program_sees_one_thread_before_fork_period_1ms(self):
        # Generation switches every millisecond while single-threaded: they
        # must not start a thread either.
        self.single("check", "1ms")

    def test_single_threaded_again_after_joining_its_threads(self):
        self.single("joined", None)

    def test_single_threaded_again_after_joining_its_threads_period_1ms(self):
        self.single("joined", "1ms")

    def test_unshare_newuser_from_c_after_a_thread_was_joined(self):
        argv = [self.bin["single"], "unshare"]
        plain = run(argv, cwd=self.dir)
        if plain.returncode != 0:
            self.skipTest("unshare(CLONE_NEWUSER) fails untraced here: %s" % plain.stdout.strip())
        traced = run(argv, self.traced_env(os.path.join(self.out, "u.%p.trace")), cwd=self.dir)
        self.assert_same(plain, traced)
        self.assert_out_files_valid(allow_none=False)


# --------------------------------------------------------------------------
# Problems 4 and 5: every file a trace


class FilesTest(_SafetyCase):
    PROGRAMS = ("work",)

    def test_kill_9_before_first_generation_leaves_no_broken_file(self):
        # `sh -c 'kill -9 $$'`: no file, or a valid trace.
        argv = ["/bin/sh", "-c", "kill -9 $$"]
        plain, traced = self.both(argv, out=os.path.join(self.out, "k.trace"))
        self.assert_same(plain, traced)
        self.assert_out_files_valid()

    def test_sigkill_soon_after_start_leaves_valid_files_or_none(self):
        argv = [self.bin["work"], "forever"]
        for delay in (0.001, 0.005, 0.02, 0.1):
            with self.subTest(delay=delay):
                folder = os.path.join(self.out, "d%g" % delay)
                os.mkdir(folder)
                env = gtlib.clean_env()
                env.update(self.traced_env(os.path.join(folder, "f.trace")))
                p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, cwd=self.dir)
                time.sleep(delay)
                p.kill()
                _, err = p.communicate(timeout=30)
                self.assertEqual(p.returncode, -signal.SIGKILL)
                self.assert_out_files_valid(folder)

    def test_fork_close_all_exec_children_leave_valid_files(self):
        # Forked children that close every descriptor (all of them, stdio
        # included, for one) and exec: every file is a valid trace, and the
        # work of the parent and of both exec'd copies is in them.
        argv = [self.bin["work"], "forkexec", self.bin["work"]]
        plain, traced = self.both(argv, out=os.path.join(self.out, "fe.trace"))
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assert_same(plain, traced)
        files = self.assert_out_files_valid(allow_none=False)
        with_work = [f for f in files if "work_main" in start_functions(f)]
        self.assertGreaterEqual(len(with_work), 3, "the parent's and the two exec'd children's work_main threads "
                                "should be in three files; files with them: %s (all: %s)" % (with_work, files))

    def wrapper(self, body):
        script = os.path.join(self.dir, "wrapper.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n" + body.replace("PROG", self.bin["work"]))
        os.chmod(script, 0o755)
        plain, traced = self.both([script], out=os.path.join(self.out, "w.trace"))
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assert_same(plain, traced)
        files = self.assert_out_files_valid(allow_none=False)
        with_work = [f for f in files if start_functions(f).count("work_main") == 2]
        self.assertEqual(len(with_work), 1, "one file should hold the program's two work_main threads: %s (all: %s)"
                         % (with_work, files))

    def test_wrapper_script_that_execs_leaves_only_valid_traces(self):
        self.wrapper('exec "PROG" work 50\n')

    def test_wrapper_script_that_forks_leaves_only_valid_traces(self):
        self.wrapper('"PROG" work 50\necho wrapper done\n')


# --------------------------------------------------------------------------
# Problem 3: a thread in seccomp strict mode


class SeccompStrictTest(_SafetyCase):
    """A thread that enters SECCOMP_MODE_STRICT may make only read, write,
    _exit and sigreturn system calls (any other kills the process with
    SIGKILL), and rdtsc faults on it. Untraced the program runs on; traced
    it must too: the same output and status, with the CPU sampler on, at
    the default period and at 1 ms (generations switch all the time); the
    trace holds everything up to the mode (the thread's last event is the
    tracer's log entry saying so) and both Go parsers accept it."""
    PROGRAMS = ("seccomp",)
    LINES = 20000

    def strict(self, how, period):
        argv = [self.bin["seccomp"], how, str(self.LINES)]
        trace = os.path.join(self.out, "s.trace")
        extra = {"GOTRACE_PERIOD": period} if period else {}
        plain, traced = self.both(argv, out=trace, traced_env=extra)
        self.assertEqual(plain.returncode, 0 if how == "thread" else 7, plain.describe())
        self.assert_same(plain, traced)
        self.assertTrue(traced.stdout.endswith("line %d\n" % (self.LINES - 1) if how != "thread" else "main done\n"),
                        traced.describe())
        files = self.assert_out_files_valid(allow_none=False)
        text = gtlib.parsed_text(trace)
        logs = re.findall(r'^M=\d+ P=-?\d+ G=(\d+) Log .*Category="gotrace" Message="([^"]*)"', text, re.M)
        self.assertTrue(any("seccomp strict mode" in m for _, m in logs),
                        "no log entry of the tracer about seccomp strict mode in %s: %s" % (files, logs))
        if how == "thread":
            # the worker's goroutine ends there; main's own events go on
            g = [g for g, m in logs if "seccomp strict mode" in m][0]
            self.assertRegex(text, r"GoID=%s Running->NotExist" % g)
            self.assertIn("GoID=1 ", text[text.index("seccomp strict mode"):])

    def test_prctl_strict_mode_on_the_only_thread(self):
        self.strict("prctl", None)

    def test_prctl_strict_mode_on_the_only_thread_period_1ms(self):
        self.strict("prctl", "1ms")

    def test_seccomp_syscall_strict_mode_on_the_only_thread(self):
        self.strict("syscall", None)

    def test_strict_mode_on_one_thread_of_two(self):
        self.strict("thread", None)

    def test_strict_mode_on_one_thread_of_two_period_1ms(self):
        self.strict("thread", "1ms")


# --------------------------------------------------------------------------
# Problem 6: re-entrancy


class ReentryTest(_SafetyCase):
    """An ITIMER_REAL handler calling a wrapped function at a high rate while
    main creates and joins 3 000 threads: the program finishes (timeout 20x
    untraced, at least 30 s) with a valid trace, at the default period and at
    1 ms (generation switches all the time)."""
    PROGRAMS = ("reentry",)
    INTERVAL_US = {"malloc": 50, "lock": 50, "write": 50, "sleep": 200}

    def handler(self, kind, period, kick=False):
        argv = [self.bin["reentry"], kind, "3000", str(self.INTERVAL_US[kind])] + (["kick"] if kick else [])
        plain = run(argv, timeout=120, cwd=self.dir)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assertEqual(plain.stdout, "threads 3000 of 3000, handler ran\n", plain.describe())
        trace = os.path.join(self.out, "r.trace")
        extra = {"GOTRACE_PERIOD": period} if period else {}
        traced = run(argv, self.traced_env(trace, **extra), timeout=max(30, 20 * plain.elapsed), cwd=self.dir)
        self.assert_same(plain, traced)
        gtlib.validate(trace)


for _kind in ReentryTest.INTERVAL_US:
    for _period in (None, "1ms"):
        def _test(self, _kind=_kind, _period=_period):
            self.handler(_kind, _period)
        _test.__name__ = "test_signal_handler_calling_%s_during_thread_churn_finishes%s" % (
            _kind, "_period_1ms" if _period else "")
        setattr(ReentryTest, _test.__name__, _test)
    # the handler also sent to every new thread as it starts (registration,
    # first events) and exits
    if _kind == "malloc":
        def _test(self, _kind=_kind):
            self.handler(_kind, "1ms", kick=True)
        _test.__name__ = "test_signal_handler_calling_%s_on_starting_threads_finishes" % _kind
        setattr(ReentryTest, _test.__name__, _test)
del _kind, _period, _test


# --------------------------------------------------------------------------
# Problem 7: small stacks


class SmallStackTest(_SafetyCase):
    PROGRAMS = ("stack",)
    _depth = None

    def deepest_untraced(self):
        """The largest recursion depth the PTHREAD_STACK_MIN thread survives
        untraced (checked twice)."""
        cls = type(self)
        if cls._depth is None:
            binary = self.bin["stack"]
            depth = None
            for n in range(0, 400):
                if run([binary, str(n)], cwd=self.dir).returncode != 0:
                    depth = n - 1
                    break
            self.assertIsNotNone(depth, "the small-stack thread never overflowed untraced (400 frames)")
            self.assertGreater(depth, 4, "the small-stack thread overflows untraced at depth %d" % (depth + 1))
            for _ in range(2):
                r = run([binary, str(depth)], cwd=self.dir)
                self.assertEqual(r.returncode, 0, "untraced depth %d is not repeatable:\n%s" % (depth, r.describe()))
            cls._depth = depth
            print("safety: PTHREAD_STACK_MIN thread: deepest untraced recursion %d frames of ~200 B" % depth)
        return cls._depth

    def small_stack(self, extra):
        n = self.deepest_untraced() - 2
        argv = [self.bin["stack"], str(n)]
        trace = os.path.join(self.out, "stack.trace")
        plain, traced = self.both(argv, out=trace, traced_env=extra)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assert_same(plain, traced)
        gtlib.validate(trace)

    def test_min_stack_thread_survives_traced_at_untraced_depth_minus_2(self):
        self.small_stack({})

    def test_min_stack_thread_survives_traced_at_untraced_depth_minus_2_stacks_0(self):
        self.small_stack({"GOTRACE_STACKS": "0"})

    def test_min_stack_thread_survives_traced_at_untraced_depth_minus_2_malloc_0(self):
        self.small_stack({"GOTRACE_MALLOC": "0"})

    def test_min_stack_thread_survives_traced_at_untraced_depth_minus_2_malloc_all(self):
        # every allocation recorded: the deepest allocation unwinds for sure
        self.small_stack({"GOTRACE_MALLOC": "all"})


# --------------------------------------------------------------------------
# Problem 8: output paths


class OutputPathTest(_SafetyCase):
    PROGRAMS = ("work",)
    ARGS = ["work", "100"]

    def against_untraced(self, out, timeout=30):
        argv = [self.bin["work"]] + self.ARGS
        plain = run(argv, cwd=self.dir)
        traced = run(argv, {"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": out}, timeout=timeout, cwd=self.dir)
        self.assert_same(plain, traced)
        return traced

    def assert_refused_as_symlink(self, traced):
        # "... is a symbolic link; gotrace does not follow links for its
        # output": the substring "symbolic link" alone would accept the old
        # "Too many levels of symbolic links" (ELOOP), which says nothing
        # about why.
        lines = gotrace_lines(traced.stderr)
        self.assertEqual(len(lines), 1, traced.describe())
        self.assertIn("is a symbolic link", lines[0], traced.describe())
        self.assertNotIn("Too many levels", lines[0], traced.describe())

    def test_out_fifo_without_reader_does_not_hang(self):
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        traced = self.against_untraced(fifo)
        lines = gotrace_lines(traced.stderr)
        self.assertEqual(len(lines), 1, "want one warning line about the FIFO without a reader\n" + traced.describe())
        self.assertIn(fifo, lines[0], traced.describe())

    def test_out_fifo_with_reader_works_or_is_refused_clearly(self):
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        data = []
        done = threading.Event()

        def read_all():
            while True:
                ready, _, _ = select.select([rfd], [], [], 0.05)
                chunk = b""
                if ready:
                    try:
                        chunk = os.read(rfd, 1 << 16)
                    except BlockingIOError:
                        chunk = b""
                if chunk:
                    data.append(chunk)
                elif done.is_set():
                    return
        reader = threading.Thread(target=read_all)
        reader.start()
        try:
            traced = self.against_untraced(fifo)
        finally:
            time.sleep(0.2)
            done.set()
            reader.join()
            os.close(rfd)
        got = b"".join(data)
        lines = gotrace_lines(traced.stderr)
        if not got:
            self.assertEqual(len(lines), 1, "nothing came through the FIFO and nothing was said\n" + traced.describe())
            self.assertIn(fifo, lines[0])
            return
        self.assertLessEqual(len(lines), 1, traced.describe())
        copy = os.path.join(self.out, "fifo.trace")
        with open(copy, "wb") as f:
            f.write(got)
        gtlib.validate(copy)

    def test_out_dev_null_runs_as_untraced(self):
        traced = self.against_untraced("/dev/null")
        self.assertLessEqual(len(gotrace_lines(traced.stderr)), 1, traced.describe())

    def test_out_symlink_refused_with_clear_message(self):
        target = os.path.join(self.dir, "target")
        with open(target, "w") as f:
            f.write("keep me")
        link = os.path.join(self.out, "link.trace")
        os.symlink(target, link)
        traced = self.against_untraced(link)
        self.assert_refused_as_symlink(traced)
        with open(target) as f:
            self.assertEqual(f.read(), "keep me")

    def test_out_dev_stdout_refused_as_a_symlink_and_output_untouched(self):
        traced = self.against_untraced("/dev/stdout")
        self.assert_refused_as_symlink(traced)

    def test_out_directory_refused(self):
        traced = self.against_untraced(self.out)
        self.assertEqual(len(gotrace_lines(traced.stderr)), 1, traced.describe())
        self.assertEqual(os.listdir(self.out), [], "files written into the directory given as GOTRACE_OUT")

    def test_out_in_missing_directory_refused(self):
        traced = self.against_untraced(os.path.join(self.dir, "no", "such", "dir", "t.trace"))
        self.assertEqual(len(gotrace_lines(traced.stderr)), 1, traced.describe())


# --------------------------------------------------------------------------
# Problem 9: deaths


class DeathTest(_SafetyCase):
    PROGRAMS = ("death", "work", "signals")
    # Longer than the programs live: only the tracer's handling of the death
    # can write what they recorded (at the default 1 s the alarm(1) death
    # comes after a generation the flusher wrote anyway).
    PERIOD = {"GOTRACE_PERIOD": "10s"}

    def check_trace(self, trace, live, traced):
        gtlib.validate(trace)
        starts = start_functions(trace)
        self.assertEqual(starts.count("before_death_main"), 2,
                         "the threads that worked before the signal are missing from %s (goroutines %s)\n%s"
                         % (trace, sorted(set(starts)), traced.describe()))
        if live:
            self.assertIn("still_blocked_main", starts, trace)

    def pipe_death(self, env_extra):
        """`prog | head -c1`: the reader takes one byte and goes."""
        env = gtlib.clean_env()
        env.update(env_extra)
        p = subprocess.Popen(self.argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, cwd=self.dir, start_new_session=True)
        errs = []
        t = threading.Thread(target=lambda: errs.append(p.stderr.read()))
        t.start()
        first = p.stdout.read(1)
        p.stdout.close()
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            t.join()
            raise AssertionError("HANG: %s did not die within 30 s of its reader going away\n%s"
                                 % (" ".join(self.argv), errs[0].decode(errors="replace") if errs else ""))
        t.join()
        return gtlib.Run(self.argv, p.returncode, first.decode(), errs[0].decode("utf-8", "replace"), 0)

    def sigpipe(self, live):
        self.argv = [self.bin["death"], "pipe", live]
        plain = self.pipe_death({})
        self.assertEqual(plain.returncode, -signal.SIGPIPE, plain.describe())
        trace = os.path.join(self.out, "pipe.trace")
        traced = self.pipe_death(self.traced_env(trace, **self.PERIOD))
        self.assert_same(plain, traced)
        self.check_trace(trace, live == "live", traced)

    def test_sigpipe_death_keeps_the_trace_multi_threaded(self):
        self.sigpipe("live")

    def test_sigpipe_death_keeps_the_trace_single_threaded(self):
        self.sigpipe("joined")

    def sigalrm(self, live):
        argv = [self.bin["death"], "alarm", live]
        trace = os.path.join(self.out, "alarm.trace")
        plain, traced = self.both(argv, out=trace, traced_env=self.PERIOD, timeout=30)
        self.assertEqual(plain.returncode, -signal.SIGALRM, plain.describe())
        self.assert_same(plain, traced)
        self.check_trace(trace, live == "live", traced)

    def test_sigalrm_death_keeps_the_trace_multi_threaded(self):
        self.sigalrm("live")

    def test_sigalrm_death_keeps_the_trace_single_threaded(self):
        self.sigalrm("joined")

    def raised(self, name):
        argv = [self.bin["signals"], "raise", name]
        trace = os.path.join(self.out, "raise.trace")
        plain, traced = self.both(argv, out=trace, traced_env=self.PERIOD, timeout=30)
        self.assertLess(plain.returncode, 0, "untraced, SIG%s does not kill the program\n%s" % (name, plain.describe()))
        self.assert_same(plain, traced)
        gtlib.validate(trace)
        starts = start_functions(trace)
        self.assertEqual(starts.count("work_main"), 2, "the threads that worked before SIG%s are missing from %s "
                         "(goroutines %s)\n%s" % (name, trace, sorted(set(starts)), traced.describe()))

    def test_flight_recorder_on_full_disk_leaves_valid_trace_or_none(self):
        mnt = os.path.join(self.dir, "small-fs")
        os.mkdir(mnt)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "gotrace-safety", mnt],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode != 0:
            self.skipTest("cannot mount a small tmpfs here (%s): the full-disk flight recorder is not tested"
                          % r.stdout.strip())
        self.addCleanup(subprocess.run, ["umount", "-l", mnt])
        argv = [self.bin["work"], "alloc", "3"]
        plain, traced = self.both(argv, out=os.path.join(mnt, "flight.trace"),
                                  traced_env={"GOTRACE_FLIGHT": "10s", "GOTRACE_PERIOD": "100ms"})
        self.assert_same(plain, traced)
        # judged off the full file system (the parsers' output goes beside the copy)
        copies = []
        for f in self.out_files(mnt):
            copy = os.path.join(self.out, os.path.basename(f))
            shutil.copyfile(f, copy)
            copies.append(copy)
        validate_all(copies)


# Every signal whose default action ends the process (issue 12, deliverable
# 11), sent by the program to itself after two threads worked.
for _sig in ("HUP", "PIPE", "ALRM", "USR1", "USR2", "VTALRM", "PROF", "XCPU", "XFSZ", "IO", "PWR", "RTMIN", "RTMIN+3",
             "RTMAX"):
    def _test(self, _sig=_sig):
        self.raised(_sig)
    _test.__name__ = "test_death_by_sig%s_keeps_the_trace" % _sig.lower().replace("+", "_plus_")
    setattr(DeathTest, _test.__name__, _test)
del _sig, _test


# --------------------------------------------------------------------------
# Problem 10: what the program can see


class VisibilityTest(_SafetyCase):
    PROGRAMS = ("signals", "work")

    def flight_signal_refused(self, value, raised):
        argv = [self.bin["signals"], "raise", raised]
        plain, traced = self.both(argv, traced_env={"GOTRACE_FLIGHT": "10s", "GOTRACE_FLIGHT_SIGNAL": value})
        self.assertNotIn("survived", plain.stdout, plain.describe())
        self.assert_same(plain, traced)
        lines = [l for l in gotrace_lines(traced.stderr) if "GOTRACE_FLIGHT_SIGNAL" in l]
        self.assertEqual(len(lines), 1, "want one line refusing GOTRACE_FLIGHT_SIGNAL=%s\n%s" % (value, traced.describe()))

    def test_flight_signal_pipe_refused_program_still_dies_by_sigpipe(self):
        self.flight_signal_refused("PIPE", "PIPE")

    def test_flight_signal_alrm_refused_program_still_dies_by_sigalrm(self):
        self.flight_signal_refused("ALRM", "ALRM")

    def test_flight_signal_term_refused_program_still_dies_by_sigterm(self):
        self.flight_signal_refused("TERM", "TERM")

    def test_flight_signal_0_refused(self):
        self.flight_signal_refused("0", "TERM")

    def test_program_handler_for_the_flight_signal_still_runs(self):
        argv = [self.bin["signals"], "own", "USR2"]
        plain, traced = self.both(argv, traced_env={"GOTRACE_FLIGHT": "10s"})
        self.assertIn("handler ran", plain.stdout, plain.describe())
        self.assert_same(plain, traced)

    def test_interrupted_sleep_and_waits_return_as_untraced(self):
        # sleep(1) interrupted after 50 ms returns 0 (glibc truncates),
        # sleep(3) after 300 ms 2; usleep, nanosleep, clock_nanosleep and read
        # return EINTR with the time left.
        argv = [self.bin["signals"], "sleep"]
        plain, traced = self.both(argv)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assert_same(plain, traced)

    def test_signal_dispositions_read_back_as_the_program_set_them(self):
        # For every signal: what sigaction reports at start, as the old
        # action and after SIG_DFL, a handler and SIG_IGN is what the program
        # set (or the default), whatever the tracer installs for itself.
        argv = [self.bin["signals"], "dispositions"]
        plain, traced = self.both(argv)
        self.assertEqual(plain.returncode, 0, plain.describe())
        want, got = plain.stdout.splitlines(), traced.stdout.splitlines()
        diff = ["traced %r, untraced %r" % (g, w) for g, w in zip(got, want) if g != w]
        if diff:
            self.fail("%d of %d dispositions read back differ from untraced, first ones:\n  %s"
                      % (len(diff), len(want), "\n  ".join(diff[:8])))
        self.assert_same(plain, traced)

    def test_bad_clock_value_gets_one_warning_line(self):
        argv = [self.bin["work"], "work", "30"]
        plain, traced = self.both(argv, traced_env={"GOTRACE_CLOCK": "garbage"})
        self.assert_same(plain, traced)
        lines = gotrace_lines(traced.stderr)
        self.assertEqual(len(lines), 1, "want one line naming GOTRACE_CLOCK\n" + traced.describe())
        self.assertIn("GOTRACE_CLOCK", lines[0])

    @unittest.skipUnless(os.path.exists(JEMALLOC), "jemalloc is not installed (scripts/install-deps.sh installs it)")
    def test_jemalloc_first_in_preload_traced_or_named(self):
        argv = [self.bin["work"], "alloc", "0.3"]
        trace = os.path.join(self.out, "je.trace")
        plain = run(argv, cwd=self.dir)
        traced = run(argv, {"LD_PRELOAD": "%s:%s" % (JEMALLOC, gtlib.LIB), "GOTRACE_OUT": trace}, cwd=self.dir)
        self.assert_same(plain, traced)
        gtlib.validate(trace)
        allocs = sum(1 for l in gtlib.parsed_text(trace).splitlines() if "Name=HeapObjectAlloc" in l)
        lines = gotrace_lines(traced.stderr)
        if allocs == 0:
            self.assertEqual(len(lines), 1, "no heap event recorded and no line saying why\n" + traced.describe())
            self.assertIn("jemalloc", lines[0], traced.describe())


# --------------------------------------------------------------------------
# Everything at once: Chromium


PAGE = """<!doctype html>
<html><head><title>gotrace safety</title></head>
<body><p id="x">static text</p>
<script>document.getElementById('x').textContent += ', changed by script';</script>
</body></html>
"""


def kill_left_behind(marker):
    """SIGKILL, by pid, every process whose command line holds marker (a
    test's own directory): Chromium's helpers may leave the test's session."""
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if marker.encode() in cmd:
            try:
                os.kill(int(d), signal.SIGKILL)
            except OSError:
                pass


@unittest.skipUnless(os.access(CHROMIUM, os.X_OK), "chromium is not installed (scripts/install-deps.sh installs it)")
class ChromiumTest(_SafetyCase):
    def test_chromium_dump_dom_same_as_untraced_every_file_valid_and_named(self):
        # `chromium --headless --no-sandbox --dump-dom URL`, no other flag
        # (untraced it finishes in a few seconds here without any): the same
        # DOM traced; every file it leaves is a valid trace that says which
        # process wrote it (gotrace.process pid= ... cmd= ...).
        page = os.path.join(self.dir, "page.html")
        with open(page, "w") as f:
            f.write(PAGE)
        url = "file://" + page

        def argv(profile):
            return [CHROMIUM, "--headless", "--no-sandbox", "--user-data-dir=" + os.path.join(self.dir, profile),
                    "--dump-dom", url]
        self.addCleanup(kill_left_behind, self.dir)
        plain = run(argv("profile-plain"), timeout=120, cwd=self.dir)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assertIn("changed by script", plain.stdout, plain.describe())
        traced = run(argv("profile-traced"), self.traced_env(os.path.join(self.out, "chromium.%p.trace")),
                     timeout=max(120, 10 * plain.elapsed), cwd=self.dir)
        self.assert_same(plain, traced)
        files = self.out_files()
        self.assertTrue(files, "Chromium traced left no trace file")
        t0 = time.monotonic()
        validate_all(files)
        named = {}
        for f in files:
            ids = process_identities(f)
            self.assertTrue(ids, "%s does not say which process wrote it (no gotrace.process string)" % f)
            pids = {pid for pid, _, _ in ids}
            self.assertEqual(len(pids), 1, "%s names several processes: %s" % (f, sorted(pids)))
            m = re.match(r"chromium\.(\d+)\.trace", os.path.basename(f))
            if m:   # %p is the writer's pid (an exec'd image keeps it)
                self.assertEqual(pids, {int(m.group(1))}, "%s says it was written by pid %s" % (f, pids))
            named[f] = ids[0]
        types = {}
        for f, (pid, ppid, cmd) in named.items():
            m = re.search(r"--type=([\w-]+)", cmd)
            # the launcher script's helpers (findmnt, ...) are "other"
            kind = m.group(1) if m else "browser" if "chromium" in cmd.split(" ")[0] else "other"
            types.setdefault(kind, []).append(os.path.basename(f))
        print("safety: chromium: untraced %.1fs, traced %.1fs; %d trace files, %.1f MB, validated in %.1fs; "
              "processes: %s" % (plain.elapsed, traced.elapsed, len(files),
                                 sum(os.path.getsize(f) for f in files) / 1e6, time.monotonic() - t0,
                                 ", ".join("%s x%d" % (k, len(v)) for k, v in sorted(types.items()))))
        self.assertIn("renderer", types, "no renderer's trace (processes: %s)" % types)
        self.assertIn("browser", types, "no browser's trace (processes: %s)" % types)

    def test_chromium_with_its_sandbox_sees_no_tracer(self):
        # As a user (its sandbox refuses root): the zygote and renderers
        # enter namespaces and seccomp-bpf, trapping forbidden system calls
        # with SIGSYS. Traced, the same DOM, no complaint of the sandbox
        # that the untraced run does not make (it checks SIGSYS's action
        # with the raw system call: a handler of the tracer's there was
        # "Existing signal handler when trying to install SIGSYS" in every
        # sandboxed process), and every file left is a valid trace.
        setpriv = shutil.which("setpriv")
        if not setpriv or os.geteuid() != 0:
            self.skipTest("needs root and setpriv to run Chromium as another user")
        page = os.path.join(self.dir, "page.html")
        with open(page, "w") as f:
            f.write(PAGE)
        for d in (self.dir, self.out):
            os.chmod(d, 0o777)
        home = os.path.join(self.dir, "home")
        os.mkdir(home)
        os.chmod(home, 0o777)
        url = "file://" + page

        def argv(profile, traced):
            tracer = ["LD_PRELOAD=" + gtlib.LIB, "GOTRACE_OUT=" + os.path.join(self.out, "sandboxed.%p.trace")]
            return ([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=" + home]
                    + (tracer if traced else [])
                    + [CHROMIUM, "--headless", "--user-data-dir=" + os.path.join(home, profile), "--dump-dom", url])
        self.addCleanup(kill_left_behind, self.dir)
        plain = run(argv("profile-plain", False), timeout=120, cwd=self.dir)
        if plain.returncode != 0 or "changed by script" not in plain.stdout:
            self.skipTest("Chromium's sandbox does not run here as nobody:\n" + plain.describe())
        traced = run(argv("profile-traced", True), timeout=max(120, 10 * plain.elapsed), cwd=self.dir)
        self.assert_same(plain, traced)

        def sandbox_lines(stderr):
            # Chromium's lines; the tracer's own (a sandboxed process
            # cannot open its trace file: "gotrace: cannot write ...") are
            # its report to the user, not the program's behaviour
            return {re.sub(r"^\[[^\]]*\]", "", l) for l in stderr.splitlines()
                    if not l.startswith("gotrace:") and re.search(r"sandbox|seccomp|SIGSYS", l, re.I)}
        self.assertEqual(sandbox_lines(traced.stderr) - sandbox_lines(plain.stderr), set(),
                         "the sandbox complained traced only\n" + traced.describe())
        files = self.out_files()
        self.assertTrue(files, "Chromium traced left no trace file")
        validate_all(files)


if __name__ == "__main__":
    unittest.main()
