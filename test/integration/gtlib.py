"""Shared helpers for the integration tests.

The tests trace real programs with build/libgotrace.so (LD_PRELOAD) and judge
the resulting Go execution traces with the Go toolchains installed on the
machine: the oldest supported one (Go 1.23, `go tool trace -d=1`) and the
newest one (`go tool trace -d=parsed`).  See docs in shared/docs
(go-trace-format.md, section 6) for what the tools do with the data.

Environment knobs:

    GOTRACE_TEST_PERIOD   period used by run_traced() when the caller gives
                          none (default: the library's own default, 1s)
    GOTRACE_TEST_KEEP=1   keep the trace directories of earlier runs

Everything the tests write goes under build/integration/: bin/ (the sample
programs), traces-<pid>/ (traces, -d=parsed text, profiles of one test run;
traces-latest points at the newest).  A failing check names the trace file it
judged; it stays there until a later run starts.
"""
import glob
import hashlib
import html
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, "build")
LIB = os.path.join(BUILD, "libgotrace.so")
GOTRACE = os.path.join(BUILD, "gotrace")
PROGRAMS = os.path.join(ROOT, "test", "programs")
WORK = os.path.join(BUILD, "integration")
BIN_DIR = os.path.join(WORK, "bin")
# One trace directory per test process, so that two runs in the same tree
# (say `make test` here and there) never judge each other's files; the
# directories of finished runs are removed when the next run starts, and
# build/integration/traces-latest points at the newest one.
TRACE_DIR = os.path.join(WORK, "traces-%d" % os.getpid())
TRACE_LATEST = os.path.join(WORK, "traces-latest")

CC = os.environ.get("CC", "cc")
CXX = os.environ.get("CXX", "c++")
CFLAGS = ["-O2", "-g", "-pthread", "-Wall", "-Wextra", "-Werror"]
CXXFLAGS = ["-O2", "-g", "-pthread", "-std=c++17", "-Wall", "-Wextra", "-Werror"]

# The two modes every traced test runs in: the library's default period (one
# generation for these short programs) and a short one (many generations, so
# status re-statement across generation boundaries is exercised).
STRESS_PERIOD = "5ms"
PERIODS = (None, STRESS_PERIOD)

KEEP = os.environ.get("GOTRACE_TEST_KEEP", "") not in ("", "0")



def _is_tracer_var(name):
    """Variables that must never reach a Go tool or an untraced run (in case
    the tests themselves run under the tracer)."""
    return name == "LD_PRELOAD" or (name.startswith("GOTRACE_") and not name.startswith("GOTRACE_TEST_"))


def clean_env():
    return {k: v for k, v in os.environ.items() if not _is_tracer_var(k)}


# --------------------------------------------------------------------------
# Go toolchains


def _go_version_of(path):
    m = re.search(r"/go-(\d+)\.(\d+)/bin/go$", path)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _find_gos():
    found = []
    for p in glob.glob("/usr/lib/go-1.2*/bin/go") + glob.glob("/usr/lib/go-1.[3-9]*/bin/go"):
        v = _go_version_of(p)
        if v and os.access(p, os.X_OK):
            found.append((v, p))
    found.sort()
    return found


GO_ALL = _find_gos()
GO_OLD = GO_ALL[0][1] if GO_ALL else None      # must be Go 1.23
GO_NEW = GO_ALL[-1][1] if GO_ALL else None      # the newest installed
GO_OLD_VERSION = GO_ALL[0][0] if GO_ALL else None
GO_NEW_VERSION = GO_ALL[-1][0] if GO_ALL else None


def go_label(go):
    v = _go_version_of(go)
    return "go%d.%d" % v if v else go


def go_problem():
    """None when both toolchains are usable, else a sentence saying why not."""
    if not GO_ALL:
        return "no Go toolchain found under /usr/lib/go-1.2*/bin/go (run `make deps`)"
    if GO_OLD_VERSION != (1, 23):
        return "the oldest Go toolchain is %s, expected Go 1.23 (%s)" % (go_label(GO_OLD), GO_OLD)
    if GO_NEW_VERSION <= (1, 23):
        return "only Go 1.23 is installed; the newest Go is needed too (run `make deps`)"
    return None


def go_env():
    env = clean_env()
    env["GOTOOLCHAIN"] = "local"
    env["GOFLAGS"] = ""
    env["BROWSER"] = "true"     # `go tool trace -http` must not start a browser
    if not (env.get("GOCACHE") or env.get("XDG_CACHE_HOME") or env.get("HOME")):
        # newer `go tool`s build trace/pprof into GOCACHE on first use
        env["GOCACHE"] = os.path.join(WORK, "gocache")
    return env


def _validator_flag(go):
    # Go 1.23's -d is an integer flag, newer tools take a mode name.
    return "-d=1" if _go_version_of(go) <= (1, 23) else "-d=parsed"


# --------------------------------------------------------------------------
# Building the sample programs


_dirs_ready = False


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def session_members(sid):
    """Pids of the processes of session sid that still run (zombies, whose
    files are written and closed, are left out: a container's init may never
    reap them)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] not in ("Z", "X") and int(fields[3]) == sid:
            pids.append(int(d))
    return pids


def wait_session_done(sid, timeout=30):
    """Wait until every process of session sid has ended, or timeout
    seconds. A multi-process program's helpers (Chromium's zygotes and
    crash handler) outlive the process the test waited for and write their
    traces as they end: a file read before then is read half written.
    Returns the pids still running."""
    deadline = time.monotonic() + timeout
    while True:
        left = session_members(sid)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _ensure_dirs():
    global _dirs_ready
    for d in (WORK, BIN_DIR, TRACE_DIR):
        os.makedirs(d, exist_ok=True)
    if _dirs_ready:
        return
    _dirs_ready = True
    for d in glob.glob(os.path.join(WORK, "traces-*")):
        m = re.search(r"traces-(\d+)$", d)
        if m and int(m.group(1)) != os.getpid() and not _pid_alive(int(m.group(1))) and not KEEP:
            shutil.rmtree(d, ignore_errors=True)
    tmp = TRACE_LATEST + ".%d" % os.getpid()
    try:
        os.symlink(os.path.basename(TRACE_DIR), tmp)
        os.replace(tmp, TRACE_LATEST)
    except OSError:
        pass


def program_source(name):
    """Path of test/programs/NAME (NAME may omit the extension)."""
    if os.path.isabs(name):
        return name
    p = os.path.join(PROGRAMS, name)
    if os.path.exists(p):
        return p
    for ext in (".c", ".cpp", ".cc"):
        if os.path.exists(p + ext):
            return p + ext
    raise FileNotFoundError("no sample program %s in %s" % (name, PROGRAMS))


def compile(src, out=None, extra=(), compiler=None):
    """Compile a C or C++ source (C: cc, C++: c++ -std=c++17; both -O2 -g
    -pthread and warnings as errors; compiler: another driver, e.g. clang)
    and return the executable's path.

    The result is cached: it is rebuilt only when the source is newer or the
    command line changed."""
    _ensure_dirs()
    src = program_source(src)
    stem = os.path.splitext(os.path.basename(src))[0]
    out = out or os.path.join(BIN_DIR, stem)
    tmp_out = "%s.tmp%d" % (out, os.getpid())
    if src.endswith((".cpp", ".cc", ".cxx")):
        cmd = [compiler or CXX] + CXXFLAGS + list(extra) + ["-o", tmp_out, src]
    else:
        cmd = [compiler or CC] + CFLAGS + list(extra) + ["-o", tmp_out, src]
    stamp = out + ".cmd"
    cmdline = json.dumps([out if a == tmp_out else a for a in cmd])
    try:
        fresh = (os.path.getmtime(out) >= os.path.getmtime(src)
                 and open(stamp).read() == cmdline)
    except OSError:
        fresh = False
    if fresh:
        return out
    env = clean_env()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env)
    if p.returncode != 0 or p.stdout.strip():
        if os.path.exists(tmp_out):
            os.unlink(tmp_out)
        raise AssertionError("compiling %s failed or warned:\n$ %s\n%s"
                             % (src, " ".join(cmd), p.stdout))
    os.replace(tmp_out, out)
    with open(stamp + ".tmp%d" % os.getpid(), "w") as f:
        f.write(cmdline)
    os.replace(stamp + ".tmp%d" % os.getpid(), stamp)
    return out


# --------------------------------------------------------------------------
# Running programs


class Run:
    """Result of one program run."""

    def __init__(self, argv, returncode, stdout, stderr, elapsed, trace=None, period=None):
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.elapsed = elapsed
        self.trace = trace
        self.period = period

    def __iter__(self):     # rc, out, err = run_traced(...)
        return iter((self.returncode, self.stdout, self.stderr))

    def describe(self):
        s = "$ %s\nexit status %s after %.2fs" % (" ".join(self.argv), self.returncode, self.elapsed)
        if self.trace:
            s += "\ntrace: %s (period %s)" % (self.trace, self.period or "default")
        err = self.stderr if isinstance(self.stderr, str) else self.stderr.decode("utf-8", "replace")
        if err.strip():
            s += "\nstderr (first lines):\n" + head(err, 20)
        return s


def head(text, n=15):
    lines = text.splitlines()
    more = "\n  ... (%d more lines)" % (len(lines) - n) if len(lines) > n else ""
    return "\n".join("  " + l for l in lines[:n]) + more


def stat_json(trace):
    """`gotrace stat -json -top 0 TRACE`, parsed; fails the test on an error."""
    rc, out, err = _run([GOTRACE, "stat", "-json", "-top", "0", trace], clean_env(), 120, None, False, None)[:3]
    if rc != 0:
        raise AssertionError("gotrace stat -json %s: exit %d\n%s" % (trace, rc, err))
    return json.loads(out)


def _run(argv, env, timeout, stdin=None, binary=False, cwd=None):
    t0 = time.monotonic()
    stdin_arg = subprocess.DEVNULL
    input_data = None
    fh = None
    if isinstance(stdin, (bytes, bytearray)):
        stdin_arg, input_data = None, bytes(stdin)
    elif isinstance(stdin, str):
        fh = open(stdin, "rb")
        stdin_arg = fh
    try:
        p = subprocess.run(argv, env=env, input=input_data, stdin=stdin_arg,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        def tail(b):
            return head((b or b"").decode("utf-8", "replace"), 10) if b else "  (nothing)"
        raise AssertionError("%s did not finish within %ss and was killed (LD_PRELOAD=%s, GOTRACE_OUT=%s)\n"
                             "stdout so far:\n%s\nstderr so far:\n%s"
                             % (" ".join(argv), timeout, env.get("LD_PRELOAD", ""), env.get("GOTRACE_OUT", ""),
                                tail(e.stdout), tail(e.stderr))) from None
    finally:
        if fh:
            fh.close()
    elapsed = time.monotonic() - t0
    out, err = p.stdout, p.stderr
    if not binary:
        out = out.decode("utf-8", "replace")
        err = err.decode("utf-8", "replace")
    return p.returncode, out, err, elapsed


def library_problem():
    """None when build/libgotrace.so exists, else a sentence saying why not."""
    if not os.path.exists(LIB):
        return "%s does not exist (run `make`)" % LIB
    return None


def effective_period(period):
    return period or os.environ.get("GOTRACE_TEST_PERIOD") or None


def run_plain(argv, env_extra=None, timeout=60, stdin=None, binary=False, cwd=None):
    """Run argv untraced; returns a Run (unpacks as rc, stdout, stderr)."""
    env = clean_env()
    env.update(env_extra or {})
    rc, out, err, el = _run(list(argv), env, timeout, stdin, binary, cwd)
    return Run(list(argv), rc, out, err, el)


def run_traced(argv, trace_path, env_extra=None, period=None, timeout=60,
               stdin=None, binary=False, cwd=None):
    """Run argv with LD_PRELOAD=build/libgotrace.so writing trace_path.

    The tracer's variables are set in the child's environment only.  period
    (e.g. "5ms") sets GOTRACE_PERIOD; without it GOTRACE_TEST_PERIOD is used
    if set, else the library's default.  Returns a Run (unpacks as rc,
    stdout, stderr) whose .trace is trace_path."""
    problem = library_problem()
    if problem:
        raise AssertionError(problem)
    _ensure_dirs()
    trace_path = os.path.abspath(trace_path)
    for stale in (trace_path, trace_path + ".parsed.txt"):
        if os.path.exists(stale):
            os.unlink(stale)
    env = clean_env()
    env["LD_PRELOAD"] = LIB
    env["GOTRACE_OUT"] = trace_path
    period = effective_period(period)
    if period:
        env["GOTRACE_PERIOD"] = period
    env.update(env_extra or {})
    rc, out, err, el = _run(list(argv), env, timeout, stdin, binary, cwd)
    run = Run(list(argv), rc, out, err, el, trace=trace_path, period=period)
    _RUNS_BY_TRACE[trace_path] = run
    return run


# The run that was to write each trace: a missing trace is reported with the
# run's exit status, time and the tracer's own lines on stderr.
_RUNS_BY_TRACE = {}


def trace_path(name, period=None):
    """A trace file name under build/integration/traces for a test."""
    _ensure_dirs()
    tag = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    if period:      # the requested mode, so that the two modes never share a file
        tag += "-p" + re.sub(r"[^A-Za-z0-9]+", "", period)
    return os.path.join(TRACE_DIR, tag + ".trace")


def discard(path):
    """Delete a (large) trace and its derived files after a passing check,
    unless GOTRACE_TEST_KEEP is set."""
    if KEEP or not path:
        return
    for p in glob.glob(glob.escape(path) + "*"):
        try:
            os.unlink(p)
        except OSError:
            pass


# --------------------------------------------------------------------------
# Judging traces with the Go tools


class TraceRejected(AssertionError):
    pass


def _go_tool(go, args, stdout=subprocess.DEVNULL, timeout=120):
    return subprocess.run([go, "tool"] + list(args), env=go_env(), stdout=stdout,
                          stderr=subprocess.PIPE, timeout=timeout)


def _check_trace_file(trace):
    if not os.path.exists(trace):
        run = _RUNS_BY_TRACE.get(os.path.abspath(trace))
        raise TraceRejected("no trace file was written: %s%s" % (trace, "\n" + run.describe() if run else ""))
    if os.path.getsize(trace) == 0:
        raise TraceRejected("the trace file is empty: %s" % trace)


def validate_with(go, trace, parsed_out=None):
    """Run one Go toolchain's full validating parse over trace."""
    _check_trace_file(trace)
    problem = go_problem()
    if problem:
        raise AssertionError(problem)
    flag = _validator_flag(go)
    if parsed_out:
        with open(parsed_out + ".tmp", "wb") as f:
            p = _go_tool(go, ["trace", flag, trace], stdout=f)
    else:
        p = _go_tool(go, ["trace", flag, trace])
    if p.returncode != 0:
        if parsed_out and os.path.exists(parsed_out + ".tmp"):
            os.unlink(parsed_out + ".tmp")
        err = p.stderr.decode("utf-8", "replace")
        raise TraceRejected("%s rejected the trace %s (kept; %d bytes), exit status %d:\n"
                            "$ GOTOOLCHAIN=local %s tool trace %s %s >/dev/null\n%s"
                            % (go_label(go), trace, os.path.getsize(trace), p.returncode,
                               go, flag, trace, head(err, 15)))
    if parsed_out:
        os.replace(parsed_out + ".tmp", parsed_out)


def validate(trace):
    """Both parsers (Go 1.23 -d=1, newest Go -d=parsed) must accept trace.

    Raises TraceRejected naming the tool, the kept trace file and the first
    lines of the tool's stderr.  The newest tool's -d=parsed text is kept
    beside the trace (TRACE.parsed.txt) for parsed_events()."""
    errors = []
    for go, out in ((GO_OLD, None), (GO_NEW, trace + ".parsed.txt")):
        try:
            validate_with(go, trace, parsed_out=out)
        except TraceRejected as e:
            errors.append(str(e))
    if errors:
        raise TraceRejected("\n".join(errors))


def parsed_text(trace):
    """The newest Go's `go tool trace -d=parsed` output for trace."""
    cached = trace + ".parsed.txt"
    if not (os.path.exists(cached) and os.path.getmtime(cached) >= os.path.getmtime(trace)):
        validate_with(GO_NEW, trace, parsed_out=cached)
    with open(cached, encoding="utf-8", errors="replace") as f:
        return f.read()


class Event:
    """One event of the -d=parsed text."""
    __slots__ = ("m", "p", "g", "kind", "time", "line", "stack", "tstack", "fields")

    def __init__(self, m, p, g, kind, time_, line):
        self.m, self.p, self.g, self.kind, self.time, self.line = m, p, g, kind, time_, line
        self.stack = []     # function names, leaf first (event stack)
        self.tstack = []    # function names, leaf first (TransitionStack)
        self.fields = {}

    # state transitions: GoID=7 Running->Waiting Reason="sync"
    @property
    def goid(self):
        v = self.fields.get("GoID")
        return int(v) if v is not None else None

    @property
    def transition(self):
        return self.fields.get("from"), self.fields.get("to")

    @property
    def reason(self):
        return self.fields.get("Reason")

    def __repr__(self):
        s = self.line
        if self.tstack:
            s += " TransitionStack=[%s]" % " <- ".join(self.tstack)
        if self.stack:
            s += " Stack=[%s]" % " <- ".join(self.stack)
        return s


_EV_HEAD = re.compile(r"^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(-?\d+)(.*)$")
_KV_QUOTED = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
_KV_PLAIN = re.compile(r'(\w+)=([^\s"]+)')
_TRANS = re.compile(r"(GoID|ProcID)=(\d+) (\w+)->(\w+)")


def _unquote(s):
    try:
        return json.loads('"%s"' % s)
    except ValueError:
        return s


def parse_events(text):
    """Parse -d=parsed text into a list of Event."""
    events = []
    cur = None
    target = None
    for line in text.splitlines():
        if line.startswith("M="):
            m = _EV_HEAD.match(line)
            if not m:
                cur = None
                continue
            cur = Event(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4),
                        int(m.group(5)), line)
            rest = m.group(6)
            t = _TRANS.search(rest)
            if t:
                cur.fields[t.group(1)] = t.group(2)
                cur.fields["from"], cur.fields["to"] = t.group(3), t.group(4)
                rest = rest[:t.start()] + rest[t.end():]
            for k, v in _KV_QUOTED.findall(rest):
                cur.fields[k] = _unquote(v)
            for k, v in _KV_PLAIN.findall(_KV_QUOTED.sub("", rest)):
                cur.fields.setdefault(k, v)
            events.append(cur)
            target = None
        elif cur is None:
            continue
        elif line == "TransitionStack=":
            target = cur.tstack
        elif line == "Stack=":
            target = cur.stack
        elif line.startswith("\t\t") or not line.strip():
            continue
        elif line.startswith("\t") and target is not None:
            fn = line[1:].rsplit(" @ ", 1)[0]
            target.append(fn)
    return events


def parsed_events(trace):
    """The newest Go's view of the trace as a list of Event (see parse_events)."""
    return parse_events(parsed_text(trace))


def goroutine_creations(events):
    """{goid: Event} of GoCreate-like transitions (NotExist->Runnable/Waiting)."""
    return {e.goid: e for e in events
            if e.kind == "StateTransition" and e.goid is not None and e.transition[0] == "NotExist"}


def goroutine_ids(events):
    return {e.goid for e in events if e.kind == "StateTransition" and e.goid is not None}


def blocks(events, reason=None):
    """GoBlock-like transitions (Running->Waiting), optionally with a reason
    that contains `reason` (or equals it when reason starts with '=')."""
    out = []
    for e in events:
        if e.kind != "StateTransition" or e.goid is None or e.transition != ("Running", "Waiting"):
            continue
        r = e.reason or ""
        if reason is None or (reason[1:] == r if reason.startswith("=") else reason in r):
            out.append(e)
    return out


def labels(events):
    """{goid: [label, ...]} from Label events."""
    out = {}
    for e in events:
        if e.kind == "Label":
            m = re.search(r"Goroutine\((\d+)\)", e.fields.get("Resource", "") or e.line)
            g = int(m.group(1)) if m else e.g
            out.setdefault(g, []).append(e.fields.get("Label"))
    return out


# --------------------------------------------------------------------------
# Profiles: go tool trace -pprof=KIND, read back with go tool pprof -raw

_RAW_LOC = re.compile(r"^\s*(\d+): 0x[0-9a-fA-F]+ (?:M=\d+ )?(?:\[F\] )?(.*)$")
_RAW_LINE = re.compile(r"^(.*) (\S*):(-?\d+)(?::-?\d+)? s=-?\d+(?:\(.*\))?$")


def _parse_pprof_raw(text):
    """Parse `go tool pprof -raw` output: ([(value_ns, [loc ids])], {loc: [funcs]})."""
    samples, locs = [], {}
    section = None
    value_index = -1
    last_loc = None
    for line in text.splitlines():
        s = line.strip()
        if s == "Samples:":
            section = "samples"
            continue
        if s == "Locations":
            section = "locations"
            continue
        if s == "Mappings":
            section = "mappings"
            continue
        if section == "samples":
            if not s:
                continue
            if ":" not in s:
                # header: "contentions/count delay/nanoseconds"
                units = s.split()
                for i, u in enumerate(units):
                    if u.endswith("/nanoseconds"):
                        value_index = i
                continue
            vals, ids = s.split(":", 1)
            vals = vals.split()
            ids = ids.split()
            try:
                samples.append((int(vals[value_index]), [int(i) for i in ids]))
            except (ValueError, IndexError):
                # label lines ("label: ...") of the previous sample
                continue
        elif section == "locations":
            m = _RAW_LOC.match(line)
            if m and not line.startswith("              "):
                last_loc = int(m.group(1))
                rest = m.group(2)
                locs[last_loc] = []
            elif last_loc is not None:
                rest = line.strip()
            else:
                continue
            lm = _RAW_LINE.match(rest.strip())
            if lm:
                locs[last_loc].append(lm.group(1))
            elif rest.strip() and rest.strip() != "??":
                locs[last_loc].append(rest.strip())
    return samples, locs


def pprof_top(trace, kind, go=None):
    """Profile of KIND (sync, net, syscall, sched) computed by one Go
    toolchain (default: the newest): {function: (flat_seconds, cum_seconds)}.

    Flat is attributed to the leaf frame of each sample, cum to every
    function on the sample's stack (once per sample), as `pprof -top` does."""
    go = go or GO_NEW
    _check_trace_file(trace)
    pb = "%s.%s.%s.pb" % (trace, kind, go_label(go))
    with open(pb, "wb") as f:
        p = _go_tool(go, ["trace", "-pprof=" + kind, trace], stdout=f)
    if p.returncode != 0:
        raise AssertionError("%s: go tool trace -pprof=%s %s failed (exit %d):\n%s"
                             % (go_label(go), kind, trace, p.returncode,
                                head(p.stderr.decode("utf-8", "replace"))))
    if os.path.getsize(pb) == 0:
        return {}
    p = _go_tool(go, ["pprof", "-raw", pb], stdout=subprocess.PIPE)
    if p.returncode != 0:
        raise AssertionError("%s: go tool pprof -raw %s failed (exit %d):\n%s"
                             % (go_label(go), pb, p.returncode, head(p.stderr.decode("utf-8", "replace"))))
    samples, locs = _parse_pprof_raw(p.stdout.decode("utf-8", "replace"))
    flat, cum = {}, {}
    for value, ids in samples:
        funcs = []
        for i in ids:
            funcs.extend(locs.get(i, []))
        if not funcs:
            continue
        flat[funcs[0]] = flat.get(funcs[0], 0) + value
        for fn in set(funcs):
            cum[fn] = cum.get(fn, 0) + value
    return {fn: (flat.get(fn, 0) / 1e9, cum[fn] / 1e9) for fn in cum}


def pprof_top_all(trace, kind):
    """{go label: pprof_top(trace, kind, go)} for the oldest and newest Go."""
    return {go_label(go): pprof_top(trace, kind, go) for go in (GO_OLD, GO_NEW)}


def format_profile(prof, n=12):
    rows = sorted(prof.items(), key=lambda kv: -kv[1][1])[:n]
    return "\n".join("  flat %8.3fs  cum %8.3fs  %s" % (f, c, fn) for fn, (f, c) in rows) or "  (empty profile)"


# --------------------------------------------------------------------------
# Goroutine analysis page of the web UI


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


_GROUP_ROW = re.compile(
    r'<tr>\s*<td>\s*<code>\s*<a href="[^"]*">(.*?)</a>\s*</code>\s*</td>\s*<td>\s*(\d+)\s*</td>',
    re.S)
INACTIVE = "(Inactive, no stack trace sampled)"


def _serve_and_fetch(go, trace, path, timeout):
    """Start `go tool trace -http` on a free port, fetch path once the tool
    says it is listening, always stop the tool.  Returns the body, or None
    when the port was taken meanwhile (the caller retries)."""
    addr = "127.0.0.1:%d" % _free_port()
    listening = ("listening on http://%s" % addr).encode()
    logpath = trace + ".http-%s.log" % go_label(go)
    with open(logpath, "w+b") as log:
        proc = subprocess.Popen([go, "tool", "trace", "-http=" + addr, trace], env=go_env(),
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            # Wait for the tool's own "listening on" line: another process
            # that happens to serve on the same port must not answer for it.
            while True:
                log.seek(0)
                text = log.read()
                if listening in text:
                    break
                if proc.poll() is not None:
                    if b"address already in use" in text:
                        return None
                    raise AssertionError("%s: go tool trace -http %s exited with %s:\n%s"
                                         % (go_label(go), trace, proc.returncode,
                                            head(text.decode("utf-8", "replace"))))
                if time.monotonic() > deadline:
                    raise AssertionError("%s: go tool trace -http %s did not start serving within %ss:\n%s"
                                         % (go_label(go), trace, timeout, head(text.decode("utf-8", "replace"))))
                time.sleep(0.1)
            last_err = None
            while time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen("http://%s%s" % (addr, path), timeout=30) as r:
                        return r.read().decode("utf-8", "replace")
                except OSError as e:
                    last_err = e
                    time.sleep(0.2)
            raise AssertionError("%s: go tool trace -http %s did not answer %s within %ss (%s)"
                                 % (go_label(go), trace, path, timeout, last_err))
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()


def goroutine_groups(trace, go=None, timeout=90):
    """{start location: goroutine count} from /goroutines of
    `go tool trace -http` (default: the newest Go).  Goroutines without any
    stack are listed under the key "" (the UI shows them as INACTIVE)."""
    go = go or GO_NEW
    _check_trace_file(trace)
    body = None
    for _ in range(3):
        body = _serve_and_fetch(go, trace, "/goroutines", timeout)
        if body is not None:
            break
    if body is None:
        raise AssertionError("%s: go tool trace -http %s: no free port in three tries" % (go_label(go), trace))
    groups = {}
    for name, n in _GROUP_ROW.findall(body):
        name = html.unescape(name)
        if name == INACTIVE:
            name = ""
        groups[name] = groups.get(name, 0) + int(n)
    if not groups:
        page = "%s.goroutines-%s.html" % (trace, go_label(go))
        with open(page, "w") as f:
            f.write(body)
        raise AssertionError("%s: no goroutine groups found in /goroutines of %s (page saved as %s):\n%s"
                             % (go_label(go), trace, page, head(body[body.find("<table"):], 30)))
    return groups


# --------------------------------------------------------------------------
# unittest glue


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class TracedTestCase(unittest.TestCase):
    """Base class: skips nothing, fails clearly when the library or the Go
    toolchains are missing, and caches runs per (key, period)."""

    maxDiff = 4000
    _runs = None

    @classmethod
    def setUpClass(cls):
        cls._runs = {}

    def require_tools(self):
        problem = library_problem() or go_problem()
        if problem:
            self.fail(problem)

    def cached(self, key, fn):
        if key not in self._runs:
            try:
                self._runs[key] = ("ok", fn())
            except Exception as e:      # remember failures too: every test that needs it reports it
                self._runs[key] = ("error", e)
        status, value = self._runs[key]
        if status == "error":
            if getattr(value, "_gt_reported", False) and isinstance(value, AssertionError):
                # already reported with its traceback by the first test that needed it
                raise type(value)(*value.args) from None
            value._gt_reported = True
            raise value
        return value

    @staticmethod
    def period_name(period):
        return effective_period(period) or "default"


def period_tag(period):
    return "p" + re.sub(r"[^A-Za-z0-9]+", "", period) if period else "pdefault"


def expand(cls):
    """Class decorator: turn parameterised checks into plain test methods
    (one per case, so every case is counted and can be selected with -k):

        period_check_NAME(self, period)        -> test_NAME_pdefault, test_NAME_p5ms
        mode_check_NAME(self, mode, period)    -> test_NAME_MODE_pdefault, ... for MODE in cls.MODES
        go_check_NAME(self, go, period)        -> test_NAME_go1_27_pdefault, ... for the two Go tools
    """
    def add(name, fn, *args):
        def test(self):
            return fn(self, *args)
        test.__name__ = name
        test.__qualname__ = "%s.%s" % (cls.__name__, name)
        test.__doc__ = fn.__doc__
        setattr(cls, name, test)

    for attr in dir(cls):
        fn = getattr(cls, attr)
        if attr.startswith("period_check_"):
            for period in PERIODS:
                add("test_%s_%s" % (attr[len("period_check_"):], period_tag(period)), fn, period)
        elif attr.startswith("mode_check_"):
            for mode in getattr(cls, "MODES", {None: 0}):
                for period in PERIODS:
                    parts = [attr[len("mode_check_"):]] + ([mode] if mode else []) + [period_tag(period)]
                    add("test_" + "_".join(parts), fn, mode, period)
        elif attr.startswith("go_check_"):
            for go in (GO_NEW, GO_OLD):
                for period in PERIODS:
                    label = go_label(go).replace(".", "_") if go else "go_missing"
                    add("test_%s_%s_%s" % (attr[len("go_check_"):], label, period_tag(period)), fn, go, period)
    return cls

def block_durations(events, goid, reason=None):
    """Seconds goroutine goid spent in each of its blocks (matching reason as
    in blocks()) until it became runnable again; open blocks are left out."""
    out = []
    start = None
    for e in events:
        if e.kind != "StateTransition" or e.goid != goid:
            continue
        if e.transition == ("Running", "Waiting"):
            r = e.reason or ""
            match = reason is None or (reason[1:] == r if reason.startswith("=") else reason in r)
            start = e.time if match else None
        elif e.transition[0] == "Waiting" and e.transition[1] != "Waiting" and start is not None:
            # (Waiting->Waiting is a status re-stated at a generation boundary)
            out.append((e.time - start) / 1e9)
            start = None
    return out
