"""peers.py — the ways a workload is traced: gotrace in three
configurations and the tools people would pick instead, one function each.

Every function returns an Arm, or a string saying why the tool cannot run
here. An Arm turns the program's argv into the traced command
(command), is told before and after every traced run (prepare, finish:
finish returns seconds to add to the wall time, e.g. LTTng's stop, which
waits until the data is written), knows where its output goes (output,
size()) and which build of a synthetic program it needs (variant: "plain",
or "nop" for uftrace: see workloads.py).
"""
import glob
import os
import re
import subprocess
import time

from runner import LIB, OUT, Failed, log, path_bytes, remove, which


class Arm:
    def __init__(self, key, tool, label, output=None, variant="plain", extra=None, prefix=None):
        self.key = key              # unique within a workload: "gotrace", "stacks0", "strace", ...
        self.tool = tool            # "gotrace" or the peer's name
        self.label = label          # how the report names it
        self.output = output        # file, directory or glob the tool writes, or None
        self.variant = variant      # which build of a synthetic workload it runs
        self.extra = extra or {}    # environment variables added for the traced run
        self.prefix = prefix or []  # launcher before the program
        self.notes = []             # per-run remarks (LTTng's discarded events)

    def command(self, argv):
        return self.prefix + list(argv), dict(self.extra)

    def prepare(self):
        for p in self.outputs():
            remove(p)

    def finish(self):
        return 0.0

    def outputs(self):
        if not self.output:
            return []
        if any(c in self.output for c in "*?["):
            return glob.glob(self.output)
        return [self.output] if os.path.lexists(self.output) else []

    def size(self):
        return sum(path_bytes(p) for p in self.outputs())

    def cleanup(self):
        for p in self.outputs():
            remove(p)


# ---- gotrace ----

# The GOTRACE_MALLOC value that records every allocation (the malloc storm's
# `every` arm and the real programs' every-allocation column). The library
# of issue 12 knows 0/1; the one that samples by default takes `all`, and
# `1` still means every allocation there.
EVERY_ALLOCATION = "1"


def gotrace(name, key="gotrace", **env):
    """gotrace with the defaults, or with GOTRACE_* variables set."""
    trace = f"{OUT}/{name}-{key}.trace"
    label = "gotrace" + "".join(f" `GOTRACE_{k}={v}`" for k, v in env.items())
    if not env:
        label += " (defaults)"
    elif env.get("MALLOC") == EVERY_ALLOCATION:
        label = f"gotrace every allocation (`GOTRACE_MALLOC={EVERY_ALLOCATION}`)"
    extra = {"LD_PRELOAD": LIB, "GOTRACE_OUT": trace}
    extra.update({f"GOTRACE_{k}": str(v) for k, v in env.items()})
    if not os.path.isfile(LIB):
        return f"{LIB} is missing (run make)"
    return Arm(key, "gotrace", label, output=trace, extra=extra)


# ---- heaptrack ----

def heaptrack(name):
    if not which("heaptrack"):
        return "heaptrack is not installed (scripts/install-bench-deps.sh)"
    base = f"{OUT}/{name}-heaptrack"
    return Arm("heaptrack", "heaptrack", "heaptrack (`heaptrack -o FILE`)", output=base + ".*",
               prefix=["heaptrack", "-o", base])


# ---- LTTng-UST ----

LTTNG_LIBS = ("liblttng-ust-libc-wrapper.so", "liblttng-ust-pthread-wrapper.so")
LTTNG_EVENTS = "lttng_ust_libc:*,lttng_ust_pthread:*"
LTTNG_CHANNEL = ["--subbuf-size=4M", "--num-subbuf=8"]


class LttngDaemon:
    """One lttng-sessiond (no kernel tracing) for the whole benchmark,
    started on first use and killed by stop() (run.py calls it in a
    finally and at exit)."""
    proc = None

    @classmethod
    def start(cls):
        if cls.proc:
            return
        if subprocess.run(["pgrep", "-x", "lttng-sessiond"], capture_output=True).returncode == 0:
            raise Failed("an lttng-sessiond not started by the benchmark is running; "
                         "stop it first (the benchmark starts and stops its own)")
        cls.proc = subprocess.Popen(["lttng-sessiond", "--no-kernel"], stdout=subprocess.DEVNULL,
                                    stderr=open(f"{OUT}/lttng-sessiond.log", "w"),
                                    start_new_session=True)
        for _ in range(100):
            if subprocess.run(["lttng", "list"], capture_output=True).returncode == 0:
                return
            if cls.proc.poll() is not None:
                break
            time.sleep(0.1)
        cls.stop()
        raise Failed(f"lttng-sessiond did not start (see {OUT}/lttng-sessiond.log)")

    @classmethod
    def stop(cls):
        if not cls.proc:
            return
        try:
            os.killpg(cls.proc.pid, 15)
            cls.proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(cls.proc.pid, 9)
            except ProcessLookupError:
                pass
            cls.proc.wait()
        cls.proc = None
        log("bench: lttng-sessiond stopped")


def lttng_cmd(*args):
    r = subprocess.run(["lttng"] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise Failed(f"lttng {' '.join(args)} failed: {(r.stderr or r.stdout).strip()[-500:]}")
    return r.stdout + r.stderr


class LttngArm(Arm):
    def __init__(self, name, libs):
        super().__init__("lttng", "lttng", "LTTng-UST (libc + pthread wrappers)",
                         output=f"{OUT}/{name}-lttng", extra={"LD_PRELOAD": ":".join(libs)})
        self.session = f"gotrace-bench-{os.getpid()}"
        self.discarded = []

    def prepare(self):
        super().prepare()
        LttngDaemon.start()
        subprocess.run(["lttng", "destroy", self.session], capture_output=True)
        lttng_cmd("create", self.session, f"--output={os.path.abspath(self.output)}")
        lttng_cmd("enable-channel", "-u", "-s", self.session, *LTTNG_CHANNEL, "bench")
        lttng_cmd("enable-event", "-u", "-s", self.session, "-c", "bench", LTTNG_EVENTS)
        lttng_cmd("start", self.session)

    def finish(self):
        t0 = time.monotonic()
        out = lttng_cmd("stop", self.session)
        waited = time.monotonic() - t0
        lttng_cmd("destroy", self.session)
        m = re.search(r"([0-9]+) events were discarded", out)
        self.discarded.append(int(m.group(1)) if m else 0)
        return waited


def lttng(name):
    for tool in ("lttng", "lttng-sessiond"):
        if not which(tool):
            return f"{tool} is not installed (lttng-tools; scripts/install-bench-deps.sh)"
    libs = []
    for lib in LTTNG_LIBS:
        found = glob.glob(f"/usr/lib/*/{lib}") + glob.glob(f"/usr/lib/{lib}")
        if not found:
            return f"{lib} is not installed (liblttng-ust-dev; scripts/install-bench-deps.sh)"
        libs.append(found[0])
    return LttngArm(name, libs)


# ---- uftrace ----

class UftraceArm(Arm):
    def command(self, argv):
        # A synthetic workload's "nop" build has 5-byte nops at every
        # function entry that -P . patches at run time (functions and
        # library calls); any other binary gets library calls only (--force).
        how = ["-P", "."] if argv[0].endswith("-nop") else ["--force"]
        return ["uftrace", "record", "-d", self.output] + how + list(argv), {}


def uftrace(name):
    if not which("uftrace"):
        return "uftrace is not installed (scripts/install-bench-deps.sh)"
    return UftraceArm("uftrace", "uftrace", "uftrace record", output=f"{OUT}/{name}-uftrace.data",
                      variant="nop")


# ---- strace, ltrace ----

def strace(name):
    if not which("strace"):
        return "strace is not installed (scripts/install-bench-deps.sh)"
    out = f"{OUT}/{name}-strace.txt"
    return Arm("strace", "strace", "`strace -f`", output=out, prefix=["strace", "-f", "-o", out])


def ltrace(name):
    if not which("ltrace"):
        return "ltrace is not installed (scripts/install-bench-deps.sh)"
    out = f"{OUT}/{name}-ltrace.txt"
    return Arm("ltrace", "ltrace", "`ltrace -f`", output=out, prefix=["ltrace", "-f", "-o", out])


# ---- Valgrind ----

def valgrind_tool(name, tool):
    if not which("valgrind"):
        return "valgrind is not installed (scripts/install-bench-deps.sh)"
    out = f"{OUT}/{name}-{tool}.log"
    label = {"helgrind": "Valgrind Helgrind", "drd": "Valgrind DRD"}[tool]
    return Arm(tool, tool, label, output=out,
               prefix=["valgrind", f"--tool={tool}", f"--log-file={out}"])


def helgrind(name):
    return valgrind_tool(name, "helgrind")


def drd(name):
    return valgrind_tool(name, "drd")


# key -> function(workload name): Arm or a reason it cannot run
PEERS = {
    "gotrace": lambda name: gotrace(name),
    "every": lambda name: gotrace(name, "every", MALLOC=EVERY_ALLOCATION),
    "stacks0": lambda name: gotrace(name, "stacks0", STACKS=0),
    "malloc0": lambda name: gotrace(name, "malloc0", MALLOC=0),
    "heaptrack": heaptrack,
    "lttng": lttng,
    "uftrace": uftrace,
    "strace": strace,
    "ltrace": ltrace,
    "helgrind": helgrind,
    "drd": drd,
}
