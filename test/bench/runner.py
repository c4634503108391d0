"""runner.py — running one command for the benchmark: clean environment,
wall and CPU time, peak RSS, a time limit, and its shell spelling.

Every run starts from the caller's environment minus any tracer variable
(LD_PRELOAD, GOTRACE_*, HEAPTRACK_*), plus what the run adds. Peak RSS
comes from /usr/bin/time -f %M with `env VAR=... prog` after it, so that
only the program (or the tracer launching it) is preloaded, never time
itself; both arms of a pair take the same detour. %M is the largest
resident set of the tree time waited for: for a launcher (strace, uftrace,
valgrind, heaptrack) the larger of the launcher and the program.
"""
import datetime
import os
import platform
import subprocess
import shlex
import shutil
import signal
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = "build/bench"               # relative to ROOT, the working directory of every run
LIB = "build/libgotrace.so"
GO = os.environ.get("GO", "/usr/lib/go-1.27/bin/go")
TIME = "/usr/bin/time"
LIMIT = 300                       # seconds one run may take before it is killed


class Failed(Exception):
    """A run that failed or produced something unexpected: no figure."""


def facts():
    """The machine and tree a benchmark ran on, for the report."""
    def out(cmd):
        try:
            return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).stdout.strip()
        except OSError:
            return "?"
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": out(["git", "describe", "--always", "--dirty"]),
            # the last commit that changed the library (the tree may be ahead in test/ or docs/)
            "lib_commit": out(["git", "log", "-1", "--format=%h", "--", "core", "interpose", "encoder",
                               "include", "Makefile"]),
            "lib_dirty": bool(out(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                   "core", "interpose", "encoder", "include"])),
            "dirty": bool(out(["git", "status", "--porcelain", "--untracked-files=no"])),
            "nproc": os.cpu_count(),
            "cpu": cpu, "kernel": platform.release(),
            "libc": os.confstr("CS_GNU_LIBC_VERSION"),
            "cc": (out([os.environ.get("CC", "cc"), "--version"]).splitlines() or ["?"])[0],
            "load": os.getloadavg()[0]}


def log(msg):
    print(msg, file=__import__("sys").stderr, flush=True)


def clean_env():
    return {k: v for k, v in os.environ.items()
            if k != "LD_PRELOAD" and not k.startswith(("GOTRACE_", "HEAPTRACK_"))}


def show(argv, extra=None, stdout=None):
    """The shell spelling of a run, for the report."""
    words = [f"{k}={shlex.quote(v)}" for k, v in (extra or {}).items()]
    s = " ".join(words + [shlex.join(argv)])
    if stdout:
        s += " > " + stdout
    return s


class Run:
    def __init__(self, wall, cpu, rss_kb, stdout, stderr):
        self.wall = wall        # s, spawn to reaped (plus what the arm adds, see Arm.finish)
        self.cpu = cpu          # s, user + system of the whole waited-for tree
        self.rss_kb = rss_kb    # peak RSS of the largest process, KiB
        self.stdout = stdout    # the program's stdout (text), or the path it went to
        self.stderr = stderr


def run(argv, extra=None, stdout_path=None, what="run", limit=LIMIT, binary_out=False):
    """Runs argv from ROOT with the clean environment plus extra; fails
    (Failed) on a non-zero exit, a signal or the time limit. stdout goes to
    stdout_path (kept, returned as the path when binary_out) or to a
    scratch file that is read back as text."""
    rss_file = f"{OUT}/rss.{os.getpid()}.txt"
    env_args = [f"{k}={v}" for k, v in (extra or {}).items()]
    full = [TIME, "-f", "%M", "-o", rss_file, "env"] + env_args + list(argv)
    out_path = stdout_path or f"{OUT}/stdout.txt"
    err_path = f"{OUT}/stderr.txt"
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
    ]
    if os.path.exists(rss_file):
        os.unlink(rss_file)
    killed = []

    def kill(pid):
        killed.append(True)
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    t0 = time.monotonic_ns()
    pid = os.posix_spawn(TIME, full, clean_env(), file_actions=actions, setsid=True)
    timer = threading.Timer(limit, kill, (pid,))
    timer.start()
    try:
        _, status, ru = os.wait4(pid, 0)
    finally:
        timer.cancel()
    wall = (time.monotonic_ns() - t0) / 1e9
    with open(err_path, errors="replace") as f:
        err = f.read()
    code = os.waitstatus_to_exitcode(status)
    if killed:
        raise Failed(f"{what}: killed after {limit} s: {show(argv, extra)}")
    if code != 0:
        # time reports the program's signal as "Command terminated by signal N"
        how = f"exit status {code}"
        if "terminated by signal" in err:
            how = err[err.index("terminated by signal"):].split("\n")[0]
        raise Failed(f"{what} failed ({how}): {show(argv, extra)}\n{err[-1500:]}")
    try:
        with open(rss_file) as f:
            rss = int(f.read().split()[-1])
        os.unlink(rss_file)
    except (OSError, ValueError, IndexError):
        raise Failed(f"{what}: /usr/bin/time wrote no peak RSS")
    if binary_out:
        stdout = out_path
    else:
        with open(out_path, errors="replace") as f:
            stdout = f.read()
    return Run(wall, ru.ru_utime + ru.ru_stime, rss, stdout, err)


def which(name):
    return shutil.which(name)


def path_bytes(path):
    """Size of a file, or of every file under a directory."""
    if os.path.isdir(path):
        total = 0
        for d, _, files in os.walk(path):
            for f in files:
                try:
                    total += os.path.getsize(os.path.join(d, f))
                except OSError:
                    pass
        return total
    return os.path.getsize(path) if os.path.exists(path) else 0


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.unlink(path)
