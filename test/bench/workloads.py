"""workloads.py — the programs the benchmark traces, each about 1-3 s
untraced on 2 cores: five synthetic storms (test/bench/*.c) and real
programs nobody here wrote (pigz, sysbench, xz).

A Workload knows how to build itself, its command at a size (the full size
divided by `div`, for the slow peers, whose untraced partner runs at the
same reduced size), how to check a run's outcome (check returns a string
that must be the same for every run of the same size, traced or not, and
raises Failed on nonsense), its target ratio for gotrace, and which peers
apply at which divisor (PEERS_* below; a peer not listed does not apply,
for the reason in SKIP).

Synthetic workloads are built twice: plain (-O2 -g) and "nop" for uftrace:
compiled with -pg -mfentry -mnop-mcount (5-byte nops at every function
entry, which `uftrace record -P .` patches at run time) and linked without
-pg (so glibc's gprof support stays out); untraced, the nop build runs at
the plain build's speed, and the uftrace arm's untraced partner is the nop
build itself.
"""
import hashlib
import os
import re
import shlex
import subprocess

from runner import OUT, ROOT, Failed, which

CC = os.environ.get("CC", "cc")
CFLAGS = ["-O2", "-g", "-pthread", "-Wall", "-Wextra"]
NOP_CFLAGS = ["-fno-pie", "-pg", "-mfentry", "-mnop-mcount"]


class Workload:
    key = label = ""
    describe = ""         # one sentence for the report
    target = None         # gotrace (defaults) wall ratio the issue asks for, or None
    arm_targets = {}      # another arm's target: {"every": 1.5}
    warm_div = 4          # the warm-up pair (whose traces are validated) runs at 1/warm_div
    peers = {}            # peer key -> divisor of the size (1 = full size)
    skip = {}             # peer key -> why it does not apply
    needs = ()            # programs that must be installed

    def missing(self):
        for n in self.needs:
            if not which(n):
                return f"{n} is not installed (scripts/install-bench-deps.sh)"
        return None

    def build(self):
        """Returns the shell commands it ran (for the report)."""
        return []

    def argv(self, div, variant="plain"):
        raise NotImplementedError

    def stdout_path(self):
        """Where stdout goes when it is binary output to hash; None: text."""
        return None

    def size(self, div):
        """How big the run is, for the report."""
        raise NotImplementedError

    def check(self, run, div):
        """The run's outcome as a string, the same for every run of the
        same size; Failed when it makes no sense."""
        raise NotImplementedError


def compile_c(src, exe, cflags=(), link=None):
    """Compiles src into exe; with link (a list, maybe empty), in two steps
    (compile with cflags, then link with link but without cflags)."""
    if link is None:
        cmds = [[CC] + CFLAGS + list(cflags) + ["-o", exe, src]]
    else:
        obj = exe + ".o"
        cmds = [[CC] + CFLAGS + list(cflags) + ["-c", "-o", obj, src],
                [CC, "-pthread"] + list(link) + ["-o", exe, obj]]
    for cmd in cmds:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            raise Failed(f"{shlex.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return [shlex.join(c) for c in cmds]


class Synthetic(Workload):
    src = ""              # test/bench/NAME.c
    line = None           # regex of the line it prints
    extra_cflags = ()

    @property
    def exe(self):
        return f"{OUT}/{os.path.basename(self.src)[:-2]}"

    def build(self):
        cmds = compile_c(self.src, self.exe, self.extra_cflags)
        cmds += compile_c(self.src, self.exe + "-nop", tuple(self.extra_cflags) + tuple(NOP_CFLAGS),
                          ["-no-pie"])
        return cmds

    def args(self, div):
        raise NotImplementedError

    def argv(self, div, variant="plain"):
        return [self.exe + ("-nop" if variant == "nop" else "")] + self.args(div)

    unit = ""             # what the size counts, e.g. "threads × {} rounds"

    def size(self, div):
        a = self.args(div)
        return self.unit.format(*[f"{int(x):,}" for x in a])

    def check(self, run, div):
        m = re.search(self.line, run.stdout, re.M)
        if not m:
            raise Failed(f"no result line /{self.line}/ in the output:\n{run.stdout[-500:]}")
        return m.group(0)


class MutexStorm(Synthetic):
    key, label, target = "mutex", "mutex storm", 1.5
    unit = "{} threads × {} rounds"
    src = "test/bench/mutex_storm.c"
    describe = "test/bench/mutex_storm.c: 4 threads, 4 shared mutexes picked at random, critical sections of ~50 instructions, a little work outside; size = threads, rounds per thread."
    line = r"^mutex_storm threads \d+ rounds \d+ checksum [0-9a-f]+$"
    ROUNDS = 8_000_000
    peers = {"gotrace": 1, "stacks0": 1, "lttng": 8, "uftrace": 8, "strace": 1, "ltrace": 10000,
             "helgrind": 120, "drd": 140}

    def args(self, div):
        return ["4", str(max(1, self.ROUNDS // div))]


class CondvarQueue(Synthetic):
    key, label = "condvar", "condvar producer/consumer queue"
    unit = "{} pairs × {} items"
    src = "test/bench/condvar_queue.c"
    describe = "test/bench/condvar_queue.c: 2 producers and 2 consumers on a 16-slot ring with one mutex and two condition variables; size = pairs, items per producer."
    line = r"^condvar_queue pairs \d+ items \d+ sum [0-9a-f]+$"
    ITEMS = 500_000
    peers = {"gotrace": 1, "stacks0": 1, "lttng": 1, "uftrace": 2, "strace": 6, "ltrace": 1000}

    def args(self, div):
        return ["2", str(max(1, self.ITEMS // div))]


class MallocStorm(Synthetic):
    key, label = "malloc", "malloc storm"
    arm_targets = {"every": 1.5}      # issue 13: every allocation recorded, ≤ 1.5×
    unit = "{} threads × {} ops"
    src = "test/bench/malloc_storm.c"
    describe = "test/bench/malloc_storm.c: 2 threads of malloc/calloc + free, 16 B – 4 KiB, 1 in 8 long-lived (a 4,096-slot ring), three call sites 3–8 frames deep; size = threads, operations per thread."
    line = r"^checksum [0-9a-f]+ mallocs \d+ frees \d+"
    extra_cflags = ("-fno-builtin",)
    warm_div = 20         # its default-config trace is ~40 B per op: validate a short one
    OPS = 14_000_000
    peers = {"gotrace": 1, "every": 1, "stacks0": 1, "malloc0": 1, "heaptrack": 4, "lttng": 2,
             "uftrace": 8, "strace": 1, "ltrace": 5000}

    def args(self, div):
        return ["2", str(max(1, self.OPS // div))]


class SyscallStorm(Synthetic):
    key, label, target = "syscall", "syscall storm (pipe ping-pong, short sleeps)", 1.5
    unit = "{} round trips"
    src = "test/bench/syscall_storm.c"
    describe = "test/bench/syscall_storm.c: two threads ping-pong one byte over two pipes (every read waits for the other thread), both sleeping 20 µs every 64 rounds; size = round trips."
    line = r"^syscall_storm rounds \d+ sleeps \d+ sum [0-9a-f]+$"
    ROUNDS = 150_000
    peers = {"gotrace": 1, "stacks0": 1, "uftrace": 1, "strace": 6, "ltrace": 60}
    skip = {"lttng": "its libc and pthread wrappers record no system call, sleep or pipe I/O"}

    def args(self, div):
        return [str(max(1, self.ROUNDS // div))]


class ThreadChurn(Synthetic):
    key, label = "churn", "thread churn"
    unit = "{} spawners × {} threads"
    src = "test/bench/thread_churn.c"
    describe = "test/bench/thread_churn.c: 2 spawner threads each create and join short-lived threads, 4 at a time; size = spawners, threads per spawner."
    line = r"^thread_churn spawners \d+ threads \d+ sum [0-9a-f]+$"
    THREADS = 20_000
    peers = {"gotrace": 1, "stacks0": 1, "uftrace": 3, "strace": 6, "ltrace": 100}
    skip = {"lttng": "its libc and pthread wrappers record no thread creation, start or join"}

    def args(self, div):
        return ["2", str(max(1, self.THREADS // div))]


# ---- real programs ----

def seq_file(n):
    """build/bench/seq-N.txt = `seq 1 N`, made once."""
    path = f"{OUT}/seq-{n}.txt"
    if not os.path.isfile(path):
        with open(path + ".tmp", "wb") as f:
            subprocess.run(["seq", "1", str(n)], stdout=f, check=True)
        os.rename(path + ".tmp", path)
    return path


class Compressor(Workload):
    """A compressor writing to stdout: its output is hashed."""
    LINES = 0
    tool = []

    def input(self, div):
        return seq_file(max(1000, self.LINES // div))

    def build(self):
        path = self.input(1)
        return [f"seq 1 {self.LINES} > {path}   # {os.path.getsize(path) / 1e6:.0f} MB"]

    def argv(self, div, variant="plain"):
        return self.tool + [self.input(div)]

    def stdout_path(self):
        return f"{OUT}/{self.key}.out"

    def size(self, div):
        path = self.input(div)
        return f"{os.path.getsize(path) / 1e6:.0f} MB"

    def check(self, run, div):
        h = hashlib.sha256()
        with open(run.stdout, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        os.unlink(run.stdout)
        return "sha256 " + h.hexdigest()


class Pigz(Compressor):
    key, label, target = "pigz", "`pigz -p 2 -c`", 1.03
    LINES = 23_500_000    # 200 MB
    tool = ["pigz", "-p", "2", "-c"]
    describe = "`pigz -p 2 -c` on `seq` output (size = the input); the compressed output is hashed (SHA-256) after every run and must not change."
    needs = ("pigz", "seq")
    peers = {"gotrace": 1, "stacks0": 1, "malloc0": 1, "lttng": 1, "uftrace": 1, "strace": 1,
             "ltrace": 4}


class Xz(Compressor):
    key, label = "xz", "`xz -T2 -1 -c`"
    LINES = 12_000_000    # 100 MB
    tool = ["xz", "-T2", "-1", "-c"]
    describe = "`xz -T2 -1 -c` on `seq` output (size = the input); the output is hashed after every run and must not change."
    needs = ("xz", "seq")
    peers = {"gotrace": 1, "stacks0": 1, "malloc0": 1, "lttng": 1, "uftrace": 1, "strace": 1,
             "ltrace": 40}


class Sysbench(Workload):
    needs = ("sysbench",)
    test = []
    skip = {}

    def events(self, div):
        raise NotImplementedError

    def argv(self, div, variant="plain"):
        return ["sysbench"] + self.test(div) + ["--time=0", "run"]

    def size(self, div):
        return " ".join(a.lstrip("-") for a in self.test(div)[1:] if "threads=" not in a)

    def check(self, run, div):
        m = re.search(r"total number of events:\s+(\d+)", run.stdout)
        if not m:
            raise Failed(f"no 'total number of events' in sysbench's output:\n{run.stdout[-800:]}")
        if int(m.group(1)) != self.events(div):
            raise Failed(f"sysbench counted {m.group(1)} events, not {self.events(div)}")
        return f"events {m.group(1)}"


class SysbenchThreads(Sysbench):
    key, label, target = "sysbench-threads", "`sysbench threads`", 1.2
    EVENTS = 8000
    describe = "sysbench 1.0 `threads` test: 4 threads, each event locks one of 8 mutexes, yields 100 times and unlocks; a fixed event count (`--time=0`); checked: exit status and the event count sysbench reports."
    peers = {"gotrace": 1, "stacks0": 1, "lttng": 2, "uftrace": 2, "strace": 8, "ltrace": 100}

    def events(self, div):
        return max(1, self.EVENTS // div)

    def test(self, div):
        return ["threads", "--threads=4", "--thread-yields=100", "--thread-locks=8",
                f"--events={self.events(div)}"]


class SysbenchMutex(Sysbench):
    key, label = "sysbench-mutex", "`sysbench mutex`"
    LOCKS = 100_000
    describe = "sysbench 1.0 `mutex` test: 4 threads each take one of 4,096 mutexes N times, 10,000 empty loops between (one event per thread); checked as above."
    peers = {"gotrace": 1, "stacks0": 1, "lttng": 1, "uftrace": 1, "strace": 1, "ltrace": 100}

    def events(self, div):
        return 4          # one event per thread

    def test(self, div):
        return ["mutex", "--threads=4", "--mutex-num=4096", f"--mutex-locks={self.LOCKS // div}",
                "--mutex-loops=10000"]


ALL = [MutexStorm(), CondvarQueue(), MallocStorm(), SyscallStorm(), ThreadChurn(), Pigz(),
       SysbenchThreads(), SysbenchMutex(), Xz()]
