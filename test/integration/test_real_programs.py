"""Trace real multi-threaded programs from Debian that nobody here wrote.

  * pigz -p 2 compressing a generated 20 MB file: the traced run must write
    exactly the bytes the untraced run writes (-n -T make pigz's output
    deterministic), the result must decompress to the input, and pigz -d
    must work traced too;
  * /usr/bin/python3 (Debian's interpreter, not a pyenv shim) running four
    threading.Thread workers that share a queue.Queue, a threading.Lock and a
    threading.Condition.

  * zstd -T2 and xz -T2 compressing the same file: compressed bytes as
    untraced, traced decompression gives the input back, xz piped into a
    reader that stops after one byte dies by SIGPIPE as untraced, with a
    valid trace;
  * 7z (Debian's /usr/bin/7z is a shell script that execs the binary)
    through `gotrace run`: the report points at the binary's trace;
  * git on a small repository: log and a threaded grep print what they
    print untraced; `git repack` through `gotrace run` points at the trace
    of the pack-objects child it starts;
  * node with two worker_threads allocating Buffers: same output, heap events
    in the trace;
  * Debian's python3 closing every descriptor (os.closerange) and then
    opening files, a pipe and a thread: numbers and bytes as untraced;
  * redis-server started traced, driven by redis-benchmark, stopped by
    SIGTERM: the same descriptors and threads (plus the tracer's writer),
    exit status 0, and the final generation written on SIGTERM;
  * what these programs showed, reduced to test/programs/real_*.c: a program
    that takes malloc's address is not told it has its own malloc, a
    retitled process is named by its title, a thread still running while
    the process exits sees no descriptor of the tracer's, a program with
    its own malloc (Chromium) ended by SIGTERM in the middle of an
    allocation dies at once.

Every trace must pass both Go parsers.  A program that is not installed is
skipped, never failed (scripts/install-deps.sh installs them all).
"""
import glob
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import time
import unittest

import gtlib

PIGZ = "/usr/bin/pigz"
PYTHON = "/usr/bin/python3"       # Debian's; a pyenv shim would exec another binary
ZSTD = "/usr/bin/zstd"
XZ = "/usr/bin/xz"
SEVENZ = "/usr/bin/7z"            # p7zip-full: a shell script that execs /usr/lib/p7zip/7z
GIT = "/usr/bin/git"
NODE = "/usr/bin/node"
REDIS = "/usr/bin/redis-server"
REDIS_BENCH = "/usr/bin/redis-benchmark"

INPUT_SIZE = 20 * 1024 * 1024


def pigz_input():
    """A deterministic, moderately compressible 20 MB file (16-letter alphabet)."""
    gtlib._ensure_dirs()
    path = os.path.join(gtlib.WORK, "pigz-input.dat")
    if os.path.exists(path) and os.path.getsize(path) == INPUT_SIZE:
        return path
    raw = random.Random(20240501).randbytes(INPUT_SIZE)
    alphabet = b"etaoinshrdlucmfw"
    table = bytes(alphabet[i % 16] for i in range(256))
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(raw.translate(table))
    os.replace(tmp, path)
    return path


class _RealProgram(gtlib.TracedTestCase):
    EXE = None

    def setUp(self):
        if not os.access(self.EXE, os.X_OK):
            self.skipTest("%s is not installed" % self.EXE)

    def where(self, run):
        return "trace %s (period %s)" % (run.trace, run.period or "default")

    def assert_valid_with_goroutines(self, run, at_least=2):
        gtlib.validate(run.trace)
        ev = gtlib.parsed_events(run.trace)
        gs = gtlib.goroutine_ids(ev)
        self.assertGreaterEqual(len(gs), at_least, "goroutines %s in %s" % (sorted(gs), self.where(run)))
        created = gtlib.goroutine_creations(ev)
        self.assertGreaterEqual(len(created), at_least - 1,
                                "GoCreate events: %d in %s" % (len(created), self.where(run)))
        return ev


@gtlib.expand
class PigzTest(_RealProgram):
    EXE = PIGZ
    FLAGS = ["-p", "2", "-n", "-T", "-c"]

    def plain(self):
        def go():
            r = gtlib.run_plain([PIGZ] + self.FLAGS + [pigz_input()], binary=True, timeout=120)
            if r.returncode != 0 or not r.stdout:
                raise AssertionError("untraced pigz failed:\n" + r.describe())
            return r
        return self.cached(("plain",), go)

    def traced(self, period):
        def go():
            self.require_tools()
            return gtlib.run_traced([PIGZ] + self.FLAGS + [pigz_input()], gtlib.trace_path("pigz", period),
                                    period=period, binary=True, timeout=180)
        return self.cached(("traced", period), go)

    def period_check_compressed_bytes_equal_untraced(self, period):
        plain, run = self.plain(), self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assertEqual(len(run.stdout), len(plain.stdout), "compressed size differs; " + run.describe())
        self.assertTrue(run.stdout == plain.stdout,
                        "compressed bytes differ (sha256 %s traced vs %s untraced); %s"
                        % (gtlib.sha256(run.stdout)[:16], gtlib.sha256(plain.stdout)[:16], run.describe()))

    def period_check_output_round_trips(self, period):
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        d = gtlib.run_plain([PIGZ, "-d", "-c"], stdin=run.stdout, binary=True, timeout=120)
        self.assertEqual(d.returncode, 0, d.describe())
        with open(pigz_input(), "rb") as f:
            data = f.read()
        self.assertTrue(d.stdout == data, "pigz -d of the traced output is not the input (%d vs %d bytes)"
                        % (len(d.stdout), len(data)))

    def period_check_trace_valid_with_threads(self, period):
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assert_valid_with_goroutines(run, at_least=3)

    def period_check_traced_decompression(self, period):
        self.require_tools()
        compressed = self.plain().stdout
        run = gtlib.run_traced([PIGZ, "-d", "-c"], gtlib.trace_path("pigz-d", period), period=period,
                               stdin=compressed, binary=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.describe())
        with open(pigz_input(), "rb") as f:
            self.assertTrue(run.stdout == f.read(), "traced pigz -d output is not the input; " + run.describe())
        gtlib.validate(run.trace)


PY_SCRIPT = r'''
import queue
import threading

N_WORKERS = 4
N_JOBS = 400

jobs = queue.Queue(maxsize=8)
lock = threading.Lock()
done = threading.Condition()
results = {"sum": 0, "count": 0}
finished = [0]


def work(n):
    # a little CPU so that the workers contend for the GIL
    return sum(i * i for i in range(n % 97 + 50))


def worker(idx):
    while True:
        n = jobs.get()
        if n is None:
            jobs.task_done()
            break
        r = work(n)
        with lock:
            results["sum"] += r
            results["count"] += 1
        jobs.task_done()
    with done:
        finished[0] += 1
        done.notify_all()


threads = [threading.Thread(target=worker, args=(i,), name="worker-%d" % i) for i in range(N_WORKERS)]
for t in threads:
    t.start()
for n in range(N_JOBS):
    jobs.put(n)
for _ in threads:
    jobs.put(None)
with done:
    while finished[0] < N_WORKERS:
        done.wait(timeout=10)
jobs.join()
for t in threads:
    t.join()
print("jobs", results["count"])
print("sum", results["sum"])
print("workers", finished[0])
'''


@gtlib.expand
class PythonThreadsTest(_RealProgram):
    EXE = PYTHON

    def argv(self):
        return [PYTHON, "-I", "-c", PY_SCRIPT]

    def plain(self):
        def go():
            r = gtlib.run_plain(self.argv(), timeout=120)
            if r.returncode != 0 or "jobs 400" not in r.stdout:
                raise AssertionError("untraced python3 failed:\n%s\n%s" % (r.describe(), r.stdout))
            return r
        return self.cached(("plain",), go)

    def traced(self, period):
        def go():
            self.require_tools()
            return gtlib.run_traced(self.argv(), gtlib.trace_path("python3-threads", period),
                                    period=period, timeout=180)
        return self.cached(("traced", period), go)

    def period_check_output_and_status_equal_untraced(self, period):
        plain, run = self.plain(), self.traced(period)
        self.assertEqual((run.returncode, run.stdout), (plain.returncode, plain.stdout), run.describe())

    def period_check_trace_valid_with_threads(self, period):
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assert_valid_with_goroutines(run, at_least=5)

    def period_check_worker_threads_wait(self, period):
        # queue.get / Condition.wait / the GIL block in sem_wait or
        # pthread_cond_*: the workers must show sync blocks.
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        gtlib.validate(run.trace)
        ev = gtlib.parsed_events(run.trace)
        blocked = {b.goid for b in gtlib.blocks(ev, "sync")} - {1}
        self.assertTrue(blocked, "no worker goroutine ever blocked with a sync reason in %s" % self.where(run))


# --------------------------------------------------------------------------
# Helpers for the programs below


def gotrace_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("gotrace:")]


def without_gotrace_lines(stderr):
    return "\n".join(l for l in stderr.splitlines() if not l.startswith("gotrace:"))


def describe_status(rc):
    if rc is not None and rc < 0:
        try:
            return "killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit status %s" % rc


def stat_process_line(trace):
    """The `process PID (parent PPID): CMD` line of `gotrace stat TRACE`."""
    p = subprocess.run([gtlib.GOTRACE, "stat", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=gtlib.clean_env(), timeout=120)
    if p.returncode != 0:
        raise AssertionError("gotrace stat %s: exit status %d\n%s" % (trace, p.returncode, p.stderr))
    for line in p.stdout.splitlines():
        if line.strip().startswith("process "):
            return line.strip()
    raise AssertionError("gotrace stat %s names no process:\n%s" % (trace, gtlib.head(p.stdout, 8)))


def gotrace_run(argv, out, env_extra=None, timeout=120, cwd=None):
    """`gotrace run -o OUT -- argv` (a gtlib.Run; its stderr holds the report)."""
    problem = gtlib.library_problem()
    if problem:
        raise AssertionError(problem)
    for stale in glob.glob(glob.escape(out) + "*"):
        os.unlink(stale)
    return gtlib.run_plain([gtlib.GOTRACE, "run", "-o", out, "--"] + list(argv), env_extra=env_extra,
                           timeout=timeout, cwd=cwd)


def open_it_with(run):
    """The file `gotrace run`'s report says to open."""
    m = re.search(r"^gotrace: open it with: go tool trace (.+)$", run.stderr, re.M)
    if not m:
        raise AssertionError("gotrace run's report names no file to open\n" + run.describe())
    return m.group(1).strip()


def trace_files(out):
    """OUT and OUT.<pid>... a run left (derived files of the tests left out)."""
    return sorted(f for f in glob.glob(glob.escape(out) + "*")
                  if re.fullmatch(re.escape(out) + r"(\.\d+)*", f))


# --------------------------------------------------------------------------
# zstd, xz and 7z


class _Compressor(_RealProgram):
    """EXE COMPRESS... INPUT > out, EXE DECOMPRESS... < out, traced and not."""
    NAME = None
    COMPRESS = ()
    DECOMPRESS = ()
    MIN_GOROUTINES = 3      # main and at least two workers

    def plain(self):
        def go():
            r = gtlib.run_plain([self.EXE] + list(self.COMPRESS) + [pigz_input()], binary=True, timeout=120)
            if r.returncode != 0 or not r.stdout:
                raise AssertionError("untraced %s failed:\n%s" % (self.NAME, r.describe()))
            return r
        return self.cached(("plain",), go)

    def traced(self, period):
        def go():
            self.require_tools()
            return gtlib.run_traced([self.EXE] + list(self.COMPRESS) + [pigz_input()],
                                    gtlib.trace_path(self.NAME, period), period=period, binary=True, timeout=180)
        return self.cached(("traced", period), go)

    def period_check_compressed_bytes_equal_untraced(self, period):
        plain, run = self.plain(), self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assertTrue(run.stdout == plain.stdout,
                        "%s: compressed bytes differ (%d bytes, sha256 %s traced; %d bytes, %s untraced); %s"
                        % (self.NAME, len(run.stdout), gtlib.sha256(run.stdout)[:16], len(plain.stdout),
                           gtlib.sha256(plain.stdout)[:16], run.describe()))
        self.assertEqual(without_gotrace_lines(run.stderr.decode("utf-8", "replace")),
                         without_gotrace_lines(plain.stderr.decode("utf-8", "replace")), run.describe())

    def period_check_trace_valid_with_worker_threads(self, period):
        run = self.traced(period)
        self.assertEqual(run.returncode, 0, run.describe())
        self.assert_valid_with_goroutines(run, at_least=self.MIN_GOROUTINES)

    def period_check_traced_decompression_gives_the_input(self, period):
        self.require_tools()
        run = gtlib.run_traced([self.EXE] + list(self.DECOMPRESS), gtlib.trace_path(self.NAME + "-d", period),
                               period=period, stdin=self.plain().stdout, binary=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.describe())
        with open(pigz_input(), "rb") as f:
            self.assertTrue(run.stdout == f.read(), "traced %s %s output is not the input; %s"
                            % (self.NAME, " ".join(self.DECOMPRESS), run.describe()))
        gtlib.validate(run.trace)


@gtlib.expand
class ZstdTest(_Compressor):
    EXE = ZSTD
    NAME = "zstd"
    COMPRESS = ("-q", "-T2", "-3", "-c")
    DECOMPRESS = ("-q", "-d", "-c")


@gtlib.expand
class XzTest(_Compressor):
    EXE = XZ
    NAME = "xz"
    COMPRESS = ("-T2", "-1", "-c")      # -1: 3 MiB blocks, so both workers compress
    DECOMPRESS = ("-T2", "-d", "-c")

    def piped_into_one_byte_reader(self, env_extra):
        """`xz -c big | head -c1`: (first byte, status, stderr)."""
        env = gtlib.clean_env()
        env.update(env_extra)
        p = subprocess.Popen([XZ] + list(self.COMPRESS) + [pigz_input()], env=env,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        first = p.stdout.read(1)
        p.stdout.close()
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise AssertionError("HANG: xz did not end within 60 s of its reader closing the pipe (%s)"
                                 % env_extra) from None
        err = p.stderr.read().decode("utf-8", "replace")
        p.stderr.close()
        return first, rc, err

    def test_piped_into_a_reader_of_one_byte_dies_by_sigpipe_with_a_valid_trace(self):
        # head exits after one byte, xz's next write raises SIGPIPE, which
        # kills it; traced the same death, and the trace holds what xz did
        # until then.
        self.require_tools()
        first, rc, err = self.piped_into_one_byte_reader({})
        self.assertEqual((len(first), describe_status(rc)), (1, "killed by SIGPIPE"), "untraced\n" + err)
        trace = gtlib.trace_path("xz-sigpipe")
        if os.path.exists(trace):
            os.unlink(trace)
        first, rc, err = self.piped_into_one_byte_reader({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace})
        self.assertEqual((len(first), describe_status(rc)), (1, "killed by SIGPIPE"), "traced\n" + err)
        gtlib.validate(trace)


@unittest.skipUnless(os.access(SEVENZ, os.X_OK), "%s is not installed (p7zip-full)" % SEVENZ)
class SevenZipTest(gtlib.TracedTestCase):
    def test_gotrace_run_points_at_the_binary_the_wrapper_script_execs(self):
        # /usr/bin/7z is `exec /usr/lib/p7zip/7z "$@"`: the shell writes no
        # trace of its own and hands its name to the binary, so the file the
        # report names is the archiver's, and the archive is sound.
        self.require_tools()
        work = os.path.join(gtlib.TRACE_DIR, "7z")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        archive = os.path.join(work, "a.7z")
        out = os.path.join(work, "7z.trace")
        run = gotrace_run([SEVENZ, "a", "-mx1", "-mmt2", archive, pigz_input()], out, cwd=work)
        self.assertEqual(run.returncode, 0, run.describe() + "\n" + gtlib.head(run.stdout))
        self.assertEqual(open_it_with(run), out, run.describe())
        self.assertEqual(trace_files(out), [out], "the wrapper script left a trace of its own\n" + run.describe())
        gtlib.validate(out)
        self.assertRegex(stat_process_line(out), r": /usr/lib/p7zip/7z a ", "%s is not the archiver's trace" % out)
        t = gtlib.run_plain([SEVENZ, "t", archive], timeout=120)
        self.assertEqual(t.returncode, 0, "7z t of the archive 7z wrote traced failed\n" + t.describe())
        self.assertIn("Everything is Ok", t.stdout)
        gtlib.discard(archive)


# --------------------------------------------------------------------------
# git


GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "C O Mitter", "GIT_COMMITTER_EMAIL": "committer@example.com",
    "LC_ALL": "C", "TZ": "UTC",
}


@unittest.skipUnless(os.access(GIT, os.X_OK), "%s is not installed" % GIT)
class GitTest(gtlib.TracedTestCase):
    """A repository of 120 commits over 60 files, built once, untraced: big
    enough that pack-objects' trace outweighs repack's own (gotrace run's
    report names the child's file when it is 4 times the command's)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        gtlib._ensure_dirs()
        cls.repo = os.path.join(gtlib.TRACE_DIR, "git-repo")
        home = os.path.join(gtlib.TRACE_DIR, "git-home")
        shutil.rmtree(cls.repo, ignore_errors=True)
        os.makedirs(os.path.join(cls.repo, "src"))
        os.makedirs(home, exist_ok=True)
        cls.env = dict(GIT_ENV, HOME=home)

        def git(*args, **kw):
            r = gtlib.run_plain([GIT] + list(args), env_extra=dict(cls.env, **kw), cwd=cls.repo, timeout=60)
            if r.returncode != 0:
                raise AssertionError("untraced git %s failed:\n%s" % (" ".join(args), r.describe()))
        git("init", "-q", "-b", "main")
        rnd = random.Random(12)
        words = ["alpha", "beta", "gamma", "delta", "mutex", "thread", "trace", "lock", "wait", "yield"]
        for c in range(120):
            for _ in range(4):
                with open(os.path.join(cls.repo, "src", "f%02d.c" % rnd.randrange(60)), "a") as f:
                    for _ in range(20):
                        f.write("int %s_%d(void) { return %d; } /* %s */\n"
                                % (rnd.choice(words), rnd.randrange(10**6), c, rnd.choice(words)))
            git("add", "-A")
            date = "2024-01-%02dT12:%02d:00Z" % (1 + c % 28, c % 60)
            git("commit", "-q", "-m", "change %d" % c, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)

    def both(self, args, name):
        argv = [GIT] + list(args)
        plain = gtlib.run_plain(argv, env_extra=self.env, cwd=self.repo, timeout=60)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.require_tools()
        run = gtlib.run_traced(argv, gtlib.trace_path(name), env_extra=self.env, cwd=self.repo, timeout=120)
        self.assertEqual((describe_status(run.returncode), run.stdout),
                         (describe_status(plain.returncode), plain.stdout), run.describe())
        self.assertEqual(without_gotrace_lines(run.stderr), without_gotrace_lines(plain.stderr), run.describe())
        gtlib.validate(run.trace)
        return plain, run

    def test_log_stat_same_as_untraced(self):
        plain, _ = self.both(["log", "--stat", "--format=%H %an %ad %s"], "git-log")
        self.assertIn("change 119", plain.stdout)

    def test_threaded_grep_same_as_untraced(self):
        plain, _ = self.both(["grep", "-n", "--threads=2", "mutex_"], "git-grep")
        self.assertIn("mutex_", plain.stdout)

    def test_repack_through_gotrace_run_points_at_pack_objects(self):
        # `git repack` forks `git pack-objects`, which does the work with
        # pack.threads threads: gotrace run lists both files and says to
        # open the child's; the repository stays sound.
        self.require_tools()
        out = gtlib.trace_path("git-repack")
        run = gotrace_run([GIT, "-c", "pack.threads=2", "repack", "-a", "-d", "-f", "-q"], out,
                          env_extra=self.env, cwd=self.repo)
        self.assertEqual(run.returncode, 0, run.describe())
        files = trace_files(out)
        self.assertGreaterEqual(len(files), 2, "repack and pack-objects should each leave a trace: %s\n%s"
                                % (files, run.describe()))
        for f in files:
            gtlib.validate(f)
        opened = open_it_with(run)
        self.assertIn(opened, files, run.describe())
        self.assertIn("pack-objects", stat_process_line(opened),
                      "the report says to open %s, which is not pack-objects' trace\n%s" % (opened, run.describe()))
        fsck = gtlib.run_plain([GIT, "fsck", "--no-progress"], env_extra=self.env, cwd=self.repo, timeout=60)
        self.assertEqual(fsck.returncode, 0, "git fsck after the traced repack:\n" + fsck.describe())


# --------------------------------------------------------------------------
# node


NODE_SCRIPT = r"""
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
if (isMainThread) {
  const results = [];
  let pending = 2;
  for (let i = 0; i < 2; i++) {
    const w = new Worker(__filename, { workerData: i });
    w.on('message', (m) => { results[i] = m; });
    w.on('exit', (code) => { if (--pending === 0) console.log('workers', JSON.stringify(results)); });
  }
  const kept = [];
  for (let i = 0; i < 2000; i++) kept.push(Buffer.alloc(4096 + i));   // native (malloc'd) memory
  console.log('main buffers', kept.length, kept.reduce((s, b) => s + b.length, 0));
} else {
  let s = 0;
  const bufs = [];
  for (let i = 0; i < 1000; i++) { bufs.push(Buffer.alloc(2048 + i)); s += bufs[bufs.length - 1].length; }
  for (let i = 0; i < 1e6; i++) s = (s * 31 + i) % 1000003;
  parentPort.postMessage(s + workerData);
}
"""


@unittest.skipUnless(os.access(NODE, os.X_OK), "%s is not installed (nodejs)" % NODE)
class NodeWorkersTest(gtlib.TracedTestCase):
    def runs(self):
        def go():
            self.require_tools()
            gtlib._ensure_dirs()
            script = os.path.join(gtlib.TRACE_DIR, "node-workers.js")
            with open(script, "w") as f:
                f.write(NODE_SCRIPT)
            argv = [NODE, script]
            plain = gtlib.run_plain(argv, timeout=60)
            if plain.returncode != 0 or "workers [" not in plain.stdout:
                raise AssertionError("untraced node failed:\n" + plain.describe())
            return plain, gtlib.run_traced(argv, gtlib.trace_path("node-workers"), timeout=120)
        return self.cached(("runs",), go)

    def test_output_and_status_same_as_untraced(self):
        plain, run = self.runs()
        self.assertEqual((describe_status(run.returncode), run.stdout),
                         (describe_status(plain.returncode), plain.stdout), run.describe())
        self.assertEqual(without_gotrace_lines(run.stderr), without_gotrace_lines(plain.stderr), run.describe())

    def test_trace_valid_with_worker_threads_and_heap_events(self):
        _, run = self.runs()
        self.assertEqual(run.returncode, 0, run.describe())
        gtlib.validate(run.trace)
        # the -d=parsed text read line by line (gtlib.parsed_events is too
        # slow for node's million heap events)
        goroutines, allocs = set(), 0
        for line in gtlib.parsed_text(run.trace).splitlines():
            if " StateTransition " in line:
                m = re.search(r" GoID=(\d+) ", line)
                if m:
                    goroutines.add(int(m.group(1)))
            elif "Name=HeapObjectAlloc" in line:
                allocs += 1
        # main, two workers, libuv's and V8's platform threads
        self.assertGreaterEqual(len(goroutines), 5, "goroutines %s in %s" % (sorted(goroutines), run.trace))
        self.assertGreater(allocs, 1000, "no heap events in %s" % run.trace)


# --------------------------------------------------------------------------
# python3 closing every descriptor


PY_CLOSE_ALL = r"""
import os, threading
os.closerange(3, 65536)                     # as daemons and sandboxes do at start
fds = [os.open("/etc/hostname", os.O_RDONLY) for _ in range(3)]
r, w = os.pipe()
def writer():
    os.write(w, b"0123456789" * 100)
t = threading.Thread(target=writer)
t.start()
t.join()
got = os.read(r, 4096)
copy = os.path.join(os.environ["WORKDIR"], "copy")
with open(copy, "wb") as f:
    f.write(got)
with open(copy, "rb") as f:
    same = f.read() == b"0123456789" * 100
print("fds", fds, "pipe", r, w, "bytes intact", same)
print("table", sorted(int(x) for x in os.listdir("/proc/self/fd")))
print("next", os.open("/dev/null", os.O_RDONLY))
"""


@unittest.skipUnless(os.access(PYTHON, os.X_OK), "%s is not installed" % PYTHON)
class PythonCloseEverythingTest(gtlib.TracedTestCase):
    def test_descriptors_and_bytes_as_untraced(self):
        # The tracer keeps no descriptor in the program's table: after
        # os.closerange(3, 65536) the files, the pipe and /proc/self/fd
        # are numbered as untraced, and the trace survives.
        self.require_tools()
        work = os.path.join(gtlib.TRACE_DIR, "py-close-all")
        os.makedirs(work, exist_ok=True)
        argv = [PYTHON, "-I", "-c", PY_CLOSE_ALL]
        plain = gtlib.run_plain(argv, env_extra={"WORKDIR": work}, timeout=60)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.assertIn("bytes intact True", plain.stdout)
        for period in (None, "1ms"):
            run = gtlib.run_traced(argv, gtlib.trace_path("py-close-all", period), period=period,
                                   env_extra={"WORKDIR": work}, timeout=60)
            self.assertEqual((run.returncode, run.stdout), (plain.returncode, plain.stdout), run.describe())
            gtlib.validate(run.trace)


# --------------------------------------------------------------------------
# redis-server


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def redis_command(port, *words, timeout=5):
    """One command in RESP; the reply, read until it is complete (simple
    replies and bulk strings only)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(("*%d\r\n" % len(words) + "".join("$%d\r\n%s\r\n" % (len(w), w) for w in words)).encode())
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
            if data.endswith(b"\r\n") and (not data.startswith(b"$") or data.startswith(b"$-1")
                                           or data.count(b"\r\n") >= 2):
                break
        return data.decode("utf-8", "replace")


def fd_table(pid):
    """{number: what} of /proc/PID/fd (socket and pipe inode numbers left out)."""
    out = {}
    for n in os.listdir("/proc/%d/fd" % pid):
        try:
            out[int(n)] = re.sub(r"\[\d+\]$", "", os.readlink("/proc/%d/fd/%s" % (pid, n)))
        except OSError:
            pass
    return out


def settled_fd_table(pid, listeners=1, timeout=5):
    """fd_table(pid) once the server has closed the connections of clients
    that have gone (it notices their end a moment later): at most LISTENERS
    sockets left, or the last table read after TIMEOUT seconds."""
    deadline = time.monotonic() + timeout
    while True:
        table = fd_table(pid)
        if sum(1 for v in table.values() if v.startswith("socket:")) <= listeners or time.monotonic() > deadline:
            return table
        time.sleep(0.02)


def thread_names(pid):
    names = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return sorted(names)


class RedisServer:
    """redis-server on a free port of 127.0.0.1, in a directory of its own,
    its output in WORK/stdout."""

    def __init__(self, work, env_extra=None):
        self.port = free_port()
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        env = gtlib.clean_env()
        env.update(env_extra or {})
        self.log = open(os.path.join(work, "stdout"), "w+b")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", work, "--daemonize", "no"],
                                     env=env, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                     cwd=work, start_new_session=True)
        deadline = time.monotonic() + 20
        while True:
            try:
                if redis_command(self.port, "PING").startswith("+PONG"):
                    break
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError("redis-server did not answer PING on port %d (%s):\n%s"
                                     % (self.port, describe_status(self.proc.returncode), self.output()))
            time.sleep(0.05)

    def output(self):
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def benchmark(self, requests=20000):
        r = gtlib.run_plain([REDIS_BENCH, "-p", str(self.port), "-q", "-n", str(requests), "-c", "8", "-P", "4",
                             "-t", "set,get,incr,lpush"], timeout=120)
        if r.returncode != 0:
            raise AssertionError("redis-benchmark failed:\n" + r.describe())
        return r.stdout.replace("\r", "\n")

    def stop(self, timeout=30):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("HANG: redis-server did not stop within %ss of SIGTERM:\n%s"
                                 % (timeout, self.output())) from None

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.wait()


@unittest.skipUnless(os.access(REDIS, os.X_OK) and os.access(REDIS_BENCH, os.X_OK),
                     "redis-server / redis-benchmark are not installed (redis-server, redis-tools)")
class RedisServerTest(gtlib.TracedTestCase):
    """redis-server untraced, then traced with a 60 s period: no generation is
    due while it runs, so the whole run is in the final generation, written
    when SIGTERM ends the server."""

    def runs(self):
        def go():
            self.require_tools()
            gtlib._ensure_dirs()
            out = {}
            for mode in ("plain", "traced"):
                work = os.path.join(gtlib.TRACE_DIR, "redis-" + mode)
                trace = os.path.join(work, "redis.trace")
                env = {}
                if mode == "traced":
                    env = {"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace, "GOTRACE_PERIOD": "60s"}
                srv = RedisServer(work, env)
                try:
                    pid = srv.proc.pid
                    # the output file's path names the mode: say WORK instead
                    r = {"trace": trace, "threads idle": thread_names(pid),
                         "fds idle": {n: v.replace(work, "WORK") for n, v in settled_fd_table(pid).items()}}
                    r["bench"] = srv.benchmark()
                    r["set"] = redis_command(srv.port, "SET", "gotrace-key", "value-" + mode)
                    r["get"] = redis_command(srv.port, "GET", "gotrace-key")
                    r["fds busy"] = {n: v.replace(work, "WORK") for n, v in settled_fd_table(pid).items()}
                    r["threads busy"] = thread_names(pid)
                    r["alive"] = time.monotonic() - srv.t0
                    r["rc"] = srv.stop()
                    r["output"] = srv.output()
                finally:
                    if srv.proc.poll() is None:
                        srv.kill()
                    srv.log.close()
                out[mode] = r
            return out
        return self.cached(("runs",), go)

    def test_serves_and_stops_on_sigterm_as_untraced(self):
        runs = self.runs()
        plain, traced = runs["plain"], runs["traced"]
        self.assertEqual((traced["set"], traced["get"]), ("+OK\r\n", "$12\r\nvalue-traced\r\n"))
        for name in ("SET", "GET", "INCR", "LPUSH"):
            self.assertRegex(traced["bench"], r"%s: [\d.]+ requests per second" % name, traced["bench"])
        self.assertEqual(describe_status(traced["rc"]), describe_status(plain["rc"]), traced["output"])
        self.assertEqual(traced["rc"], 0, traced["output"])
        self.assertIn("ready to exit, bye bye", traced["output"])
        self.assertNotIn("gotrace:", traced["output"])

    def test_same_descriptors_as_untraced(self):
        runs = self.runs()
        for when in ("fds idle", "fds busy"):
            self.assertEqual(runs["traced"][when], runs["plain"][when],
                             "redis-server's descriptors (%s) traced differ from untraced" % when)

    def test_only_the_tracer_writer_thread_added(self):
        runs = self.runs()
        for when in ("threads idle", "threads busy"):
            plain, traced = runs["plain"][when], runs["traced"][when]
            self.assertEqual(traced.count("gotrace-flush"), 1, "%s traced: %s" % (when, traced))
            # every thread but the tracer's, as many of each (jemalloc starts a
            # background thread per arena in use: the tracer must use none)
            rest = list(traced)
            rest.remove("gotrace-flush")
            self.assertEqual(rest, plain, "%s traced %s, untraced %s" % (when, traced, plain))

    def test_trace_names_the_server_by_its_title(self):
        # redis-server retitles itself "redis-server 127.0.0.1:PORT" over
        # its argument area (see RetitledProcessTest)
        traced = self.runs()["traced"]
        cmd = stat_process_line(traced["trace"]).split("): ", 1)[1]
        self.assertIn("redis-server", cmd)
        self.assertNotIn('""', cmd, "redis-server is named with empty arguments: %s" % cmd[:200])

    def test_final_generation_written_on_sigterm(self):
        # The file exists only because the final generation was written when
        # SIGTERM ended the server; it spans the run, the benchmark's network
        # waits included.
        traced = self.runs()["traced"]
        trace = traced["trace"]
        gtlib.validate(trace)
        # the -d=parsed text read line by line: the heap events make the
        # trace too big for gtlib.parsed_events within the time of a test
        times, net = [], 0
        for line in gtlib.parsed_text(trace).splitlines():
            m = re.match(r"M=-?\d+ P=-?\d+ G=-?\d+ \w+ Time=(\d+)", line)
            if m:
                times.append(int(m.group(1)))
                if "Running->Waiting" in line and 'Reason="network"' in line:
                    net += 1
        span = (max(times) - min(times)) / 1e9
        self.assertGreaterEqual(span, 0.8 * traced["alive"],
                                "the trace spans %.2fs of a server that ran %.2fs before SIGTERM: %s"
                                % (span, traced["alive"], trace))
        self.assertGreater(net, 100, "the benchmark's waits are missing from %s (%d network blocks)" % (trace, net))


# --------------------------------------------------------------------------
# What tracing Debian's programs showed, reduced to small programs
# (test/programs/real_*.c) so that the tests do not depend on the packages


HEAP_NOT_RECORDED = "heap events are not recorded"


def heap_alloc_count(trace):
    return sum(1 for l in gtlib.parsed_text(trace).splitlines() if "Name=HeapObjectAlloc" in l)


class MallocAddressTest(gtlib.TracedTestCase):
    """pigz, node and Debian's /usr/bin/python3 take malloc's address in code
    built without PIC: their executables carry a canonical PLT entry for
    malloc, which dlsym(RTLD_DEFAULT, "malloc") returns. They have no
    allocator of their own, and every allocation is recorded; a line that
    says otherwise sends the user looking for a problem that is not there."""

    def check(self, argv, name, stdin=None, min_allocs=100):
        plain = gtlib.run_plain(argv, timeout=60, stdin=stdin, binary=True)
        self.assertEqual(plain.returncode, 0, plain.describe())
        self.require_tools()
        # every allocation (the counts below); sampled recording has the
        # same wrappers
        run = gtlib.run_traced(argv, gtlib.trace_path(name), timeout=120, stdin=stdin, binary=True,
                               env_extra={"GOTRACE_MALLOC": "all"})
        self.assertEqual((run.returncode, run.stdout == plain.stdout), (0, True), run.describe())
        gtlib.validate(run.trace)
        allocs = heap_alloc_count(run.trace)
        said = [l for l in gotrace_lines(run.stderr.decode("utf-8", "replace")) if HEAP_NOT_RECORDED in l]
        self.assertEqual(said, [], "%s: %d allocations are in the trace, but gotrace said they are not recorded"
                         % (name, allocs))
        self.assertGreaterEqual(allocs, min_allocs, "%s: allocations not recorded in %s" % (name, run.trace))

    def test_program_taking_mallocs_address_no_pie(self):
        exe = gtlib.compile("real_malloc_address", extra=["-fno-pic", "-no-pie"])
        self.check([exe], "malloc-address")

    @unittest.skipUnless(os.access(PIGZ, os.X_OK), "%s is not installed" % PIGZ)
    def test_pigz(self):
        self.check([PIGZ, "-p", "2", "-c"], "malloc-address-pigz", stdin=b"0123456789abcdef" * 65536, min_allocs=10)

    @unittest.skipUnless(os.access(PYTHON, os.X_OK), "%s is not installed" % PYTHON)
    def test_debian_python3(self):
        self.check([PYTHON, "-I", "-c", "print(sum(len(str(i) * 50) for i in range(5000)))"], "malloc-address-python3")


def cmd_of(process_line):
    """CMD of `process PID (parent PPID): CMD`."""
    return process_line.split("): ", 1)[1]


class RetitledProcessTest(gtlib.TracedTestCase):
    """redis-server and every PostgreSQL process write a title over their
    argument area and clear the rest with NUL bytes; /proc/self/cmdline is
    then the title and a run of NULs. The trace's process identity (read by
    `gotrace stat`, `gotrace run` and, as a log, by `go tool trace`) must
    name the process by its title, not by the title and dozens of empty
    arguments (`"redis-server *:6379" "" "" "" ...`)."""

    def test_identity_is_the_title_without_empty_arguments(self):
        self.require_tools()
        exe = gtlib.compile("real_retitle")
        run = gtlib.run_traced([exe, "server: main", "a" * 40, "b" * 40, "c" * 40],
                               gtlib.trace_path("retitle"), period="20ms", timeout=60)
        self.assertEqual((run.returncode, run.stdout), (0, "done\n"), run.describe())
        gtlib.validate(run.trace)
        cmd = cmd_of(stat_process_line(run.trace))
        self.assertIn("server: main", cmd)
        self.assertNotIn('""', cmd, "the process is named with empty arguments: %s" % cmd)


class ExitWhileThreadsRunTest(gtlib.TracedTestCase):
    """A thread that opens files while main returns from main (exit): the
    numbers it gets are those it gets untraced, so the tracer's writing of
    its last generation uses no descriptor of the program's table."""

    # The worker must run while the process exits: on a machine busy with
    # other work it may not get a CPU then, so the test tries several times.
    RUNS = 20

    def test_thread_at_exit_sees_no_descriptor_of_the_tracer(self):
        self.require_tools()
        exe = gtlib.compile("real_exit_fds")
        for _ in range(self.RUNS):
            plain = gtlib.run_plain([exe], timeout=30)
            self.assertEqual((plain.returncode, plain.stdout, plain.stderr), (0, "ok\n", ""), plain.describe())
        seen = []
        for i in range(self.RUNS):
            run = gtlib.run_traced([exe], gtlib.trace_path("exit-fds-%d" % i), timeout=30)
            self.assertEqual((run.returncode, run.stdout), (0, "ok\n"), run.describe())
            lines = [l for l in run.stderr.splitlines() if l.startswith("worker:")]
            if lines:
                seen.append("run %d: %s" % (i, lines[0]))
        gtlib.validate(run.trace)
        self.assertEqual(seen, [], "in %d of %d traced runs the worker's open() returned a number other than "
                         "untraced while the process exited:\n%s" % (len(seen), self.RUNS, "\n".join(seen)))



class OwnMallocDeathTest(gtlib.TracedTestCase):
    """Chromium's renderers are sometimes ended by SIGTERM while they hold
    PartitionAlloc's lock; traced, the tracer's last generation then needs
    the program's malloc (Chromium's, the first in the process's symbol
    scope): `chromium --dump-dom | cat` waited 4 s for a renderer in about
    one run of five. real_own_malloc_death reduces it: it must die by
    SIGTERM as fast as untraced, leaving a valid trace or none."""

    def check(self, mode):
        exe = gtlib.compile("real_own_malloc_death")
        plain = gtlib.run_plain([exe, mode], timeout=30)
        self.assertEqual(describe_status(plain.returncode), "killed by SIGTERM", plain.describe())
        self.require_tools()
        trace = gtlib.trace_path("own-malloc-death-" + mode)
        if os.path.exists(trace):
            os.unlink(trace)
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": trace})
        t0 = time.monotonic()
        p = subprocess.Popen([exe, mode], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            self.fail("HANG: traced `real_own_malloc_death %s` was still alive 10 s after it raised SIGTERM "
                      "holding its allocator's lock (untraced it dies in %.2fs)" % (mode, plain.elapsed))
        elapsed = time.monotonic() - t0
        self.assertEqual(describe_status(p.returncode), "killed by SIGTERM", out)
        self.assertEqual(out.decode(), plain.stdout)
        self.assertLess(elapsed, plain.elapsed + 1.5, "traced it took %.2fs to die by SIGTERM, untraced %.2fs"
                        % (elapsed, plain.elapsed))
        if os.path.exists(trace):
            gtlib.validate(trace)

    def test_sigterm_holding_its_allocator_lock_with_threads(self):
        self.check("threads")

    def test_sigterm_holding_its_allocator_lock_single_threaded(self):
        self.check("single")


if __name__ == "__main__":
    unittest.main()
