"""real_servers.py — the servers of the real-program benchmark: MariaDB
driven by sysbench oltp_read_write, redis-server --io-threads 2 driven by
redis-benchmark, memcached driven by memaslap.

A ServerRow knows how to set up its private state once (setup), put it
back before every run (reset), start the server (argv; a tool's launcher
and environment come from the arm), tell when it serves (ready), drive it
with a fixed amount of work (drive: returns requests or transactions per
second as the client reports them), say what the server holds afterwards
(check: a string that must be the same for every run, traced or not) and
stop it (SIGTERM to the server process itself, found under a launcher
such as heaptrack's shell script, then wait4 on the launcher: the server's
CPU time, and the trace's final generation written).

Everything lives under build/bench/real/ROW/: data directories, sockets,
logs; servers listen on 127.0.0.1 (a free port) or a private Unix socket,
never on a shared one.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import time

from runner import OUT, ROOT, Failed, clean_env, log, show, which
from server_bench import free_port

LIMIT = 300            # seconds for one client run


def children(pid):
    """Every descendant of pid (from /proc/PID/task/*/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    for c in f.read().split():
                        out.append(int(c))
                        todo.append(int(c))
        except OSError:
            pass
    return out


def exe_of(pid):
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return ""


class Process:
    """A server (maybe under a launcher) in a session of its own."""

    def __init__(self, argv, extra, log_path, exe_name):
        # the server binary's file name (redis-server is a symlink to
        # redis-check-rdb), to find the server under a launcher
        self.exe_name = os.path.basename(os.path.realpath(which(exe_name) or exe_name))
        env = clean_env()
        env.update(extra)
        self.log_path = log_path
        actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
                   (os.POSIX_SPAWN_DUP2, 1, 2)]
        path = argv[0] if "/" in argv[0] else which(argv[0])
        self.pid = os.posix_spawn(path, argv, env, file_actions=actions, setsid=True)
        self.status = None
        self.rusage = None

    def alive(self):
        if self.status is not None:
            return False
        pid, status, ru = os.wait4(self.pid, os.WNOHANG)
        if pid == self.pid:
            self.status, self.rusage = status, ru
            return False
        return True

    def server_pid(self):
        """The server process: the launched process itself or, under a
        launcher, the descendant running the server's binary."""
        if exe_of(self.pid) == self.exe_name:
            return self.pid
        for c in children(self.pid):
            if exe_of(c) == self.exe_name:
                return c
        return None

    def log_tail(self, n=1500):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-n:]
        except OSError:
            return ""

    def stop(self, timeout=120):
        """SIGTERM to the server, then waits for the launched process;
        returns its CPU seconds (user + system, its reaped children
        included). Failed on a non-zero exit or a timeout."""
        target = self.server_pid()
        if target is None and self.alive():
            raise Failed(f"no {self.exe_name} process under pid {self.pid}")
        if target is not None:
            try:
                os.kill(target, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() > deadline:
                self.kill()
                raise Failed(f"{self.exe_name} did not end within {timeout} s of SIGTERM")
            time.sleep(0.02)
        code = os.waitstatus_to_exitcode(self.status)
        if code != 0:
            raise Failed(f"{self.exe_name} ended with status {code} after SIGTERM:\n{self.log_tail()}")
        return self.rusage.ru_utime + self.rusage.ru_stime

    def kill(self):
        if self.status is None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, self.status, self.rusage = os.wait4(self.pid, 0)


def client(argv, what, timeout=LIMIT):
    """Runs a client to completion; its stdout (text). Failed on an error."""
    try:
        p = subprocess.run(argv, cwd=ROOT, env=clean_env(), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failed(f"{what}: {argv[0]} did not finish within {timeout} s")
    out = p.stdout.decode("utf-8", "replace").replace("\r", "\n")
    if p.returncode != 0:
        raise Failed(f"{what}: {show(argv)} exited {p.returncode}:\n{out[-1500:]}")
    return out


class ServerRow:
    key = label = describe = ""
    exe = ""                  # the server binary
    needs = ()                # programs that must be installed
    unit = "requests/s"       # what drive() returns
    target = None             # gotrace defaults' throughput ratio the issue asks for (at least)
    ready_timeout = 90
    pairs = 3             # timed pairs unless BENCH_PAIRS says otherwise (a run takes 5-15 s)

    @property
    def dir(self):
        return f"{OUT}/real/{self.key}"

    def missing(self):
        for n in self.needs:
            if not which(n):
                return f"{n} is not installed (scripts/install-bench-deps.sh)"
        return None

    def setup(self):
        """Once per benchmark; returns the shell commands it ran."""
        os.makedirs(self.dir, exist_ok=True)
        return []

    def reset(self):
        """Before every run: the state every run starts from."""

    def argv(self):
        raise NotImplementedError

    def ready(self):
        """True once the server answers."""
        raise NotImplementedError

    def drive(self):
        """Runs the client; returns (throughput, client output)."""
        raise NotImplementedError

    def check(self):
        """What the server holds after the client's work, as a string."""
        raise NotImplementedError

    def client_commands(self):
        return []

    def start(self, prefix, extra, tag):
        self.reset()
        p = Process(list(prefix) + self.argv(), extra, f"{self.dir}/{tag}.log", self.exe)
        deadline = time.monotonic() + self.ready_timeout
        while True:
            if not p.alive():
                raise Failed(f"{self.exe} exited at start (status "
                             f"{os.waitstatus_to_exitcode(p.status)}):\n{p.log_tail()}")
            try:
                if self.ready():
                    return p
            except OSError:
                pass
            if time.monotonic() > deadline:
                p.kill()
                raise Failed(f"{self.exe} did not answer within {self.ready_timeout} s:\n{p.log_tail()}")
            time.sleep(0.05)


# ---- MariaDB + sysbench oltp_read_write ----

class Mariadb(ServerRow):
    key, label = "real-mariadb", "MariaDB + sysbench `oltp_read_write`"
    exe = "mariadbd"
    unit = "transactions/s"
    target = 0.9
    needs = ("mariadbd", "mariadb-install-db", "mariadb", "sysbench")
    THREADS = 8
    TABLE_SIZE = 10_000
    EVENTS = 6_000
    describe = (f"`mariadbd` on a private data directory and Unix socket (no TCP), "
                f"`--innodb-buffer-pool-size=128M --innodb-flush-log-at-trx-commit=2` (no fsync per "
                f"commit: the figure is CPU, not this VM's disk); sysbench 1.0 `oltp_read_write "
                f"--threads={THREADS}` on one table of {TABLE_SIZE:,} rows, {EVENTS:,} transactions "
                f"(`--events={EVENTS} --time=0`); every run starts from a copy of the same prepared "
                f"data directory. Checked after every run: `CHECK TABLE` is OK and the table still has "
                f"{TABLE_SIZE:,} rows (oltp_read_write deletes and re-inserts the same ids).")

    @property
    def sock(self):
        return os.path.abspath(f"{self.dir}/mysqld.sock")

    def server_args(self, datadir):
        a = ["--no-defaults", f"--datadir={os.path.abspath(datadir)}", f"--socket={self.sock}",
             "--skip-networking", f"--pid-file={os.path.abspath(self.dir)}/mysqld.pid",
             f"--log-error={os.path.abspath(self.dir)}/mysqld.err",
             "--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=2",
             "--max-connections=100"]
        if os.geteuid() == 0:
            a.append("--user=root")
        return a

    def argv(self):
        return ["mariadbd"] + self.server_args(f"{self.dir}/data")

    def sysbench(self, *more):
        return ["sysbench", "oltp_read_write", "--db-driver=mysql", f"--mysql-socket={self.sock}",
                "--mysql-user=root", "--mysql-db=sbtest", "--tables=1",
                f"--table-size={self.TABLE_SIZE}"] + list(more)

    def sql(self, query):
        return client(["mariadb", f"--socket={self.sock}", "-uroot", "-N", "-B", "-e", query], "mariadb")

    def setup(self):
        super().setup()
        pristine = f"{self.dir}/pristine"
        stamp = f"{pristine}/.prepared-{self.TABLE_SIZE}"
        install = ["mariadb-install-db", "--no-defaults", f"--datadir={os.path.abspath(pristine)}",
                   "--auth-root-authentication-method=normal", "--skip-test-db"] + \
            (["--user=root"] if os.geteuid() == 0 else [])
        prepare = self.sysbench("prepare")
        cmds = [show(install), show(["mariadbd"] + self.server_args(pristine)),
                show(["mariadb", f"--socket={self.sock}", "-uroot", "-e", "CREATE DATABASE sbtest"]),
                show(prepare), "kill -TERM $(cat mysqld.pid)"]
        if os.path.exists(stamp):
            return cmds
        shutil.rmtree(pristine, ignore_errors=True)
        client(install, "mariadb-install-db")
        p = Process(["mariadbd"] + self.server_args(pristine), {}, f"{self.dir}/setup.log", self.exe)
        try:
            deadline = time.monotonic() + self.ready_timeout
            while not self.ready():
                if not p.alive() or time.monotonic() > deadline:
                    raise Failed(f"mariadbd did not start on {pristine}:\n{p.log_tail()}")
                time.sleep(0.1)
            self.sql("CREATE DATABASE sbtest")
            client(prepare, "sysbench prepare")
            p.stop()
        finally:
            p.kill()
        open(stamp, "w").close()
        return cmds

    def reset(self):
        data = f"{self.dir}/data"
        shutil.rmtree(data, ignore_errors=True)
        subprocess.run(["cp", "-a", "--reflink=auto", f"{self.dir}/pristine", data], check=True)
        for f in (self.sock, self.sock + ".lock"):
            if os.path.lexists(f):
                os.unlink(f)

    def ready(self):
        if not os.path.exists(self.sock):
            return False
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        try:
            s.connect(self.sock)
            hello = s.recv(64)
            return len(hello) > 5 and hello[4] == 10      # protocol version 10: the server greets
        finally:
            s.close()

    def run_args(self):
        return [f"--threads={self.THREADS}", f"--events={self.EVENTS}", "--time=0", "run"]

    def drive(self):
        out = client(self.sysbench(*self.run_args()), "sysbench")
        m = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out)
        if not m:
            raise Failed(f"no transactions line in sysbench's output:\n{out[-1000:]}")
        if int(m.group(1)) != self.EVENTS:
            raise Failed(f"sysbench did {m.group(1)} transactions, not {self.EVENTS}")
        return float(m.group(2)), out

    def check(self):
        out = self.sql("CHECK TABLE sbtest.sbtest1; SELECT COUNT(*) FROM sbtest.sbtest1")
        status = re.search(r"sbtest\.sbtest1\s+check\s+status\s+(\S+)", out)
        rows = out.strip().splitlines()[-1].strip()
        if not status or status.group(1) != "OK" or rows != str(self.TABLE_SIZE):
            raise Failed(f"after the run: {out.strip()!r}")
        return f"check table OK, {rows} rows"

    def client_commands(self):
        return [show(self.sysbench(*self.run_args())),
                show(["mariadb", f"--socket={self.sock}", "-uroot", "-e",
                      "CHECK TABLE sbtest.sbtest1; SELECT COUNT(*) FROM sbtest.sbtest1"])]


# ---- redis ----

def resp(port, *words):
    """One redis command over RESP; the reply's first line."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        msg = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
        s.sendall(msg.encode())
        data = b""
        while not data.endswith(b"\r\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        if data.startswith(b"$") and not data.startswith(b"$-1"):
            n = int(data[1:data.index(b"\r\n")])
            while len(data) < data.index(b"\r\n") + 2 + n + 2:
                data += s.recv(4096)
            start = data.index(b"\r\n") + 2
            return data[start:start + n].decode()
        return data.decode().strip()


class Redis(ServerRow):
    key, label = "real-redis", "redis-server `--io-threads 2` + redis-benchmark"
    exe = "redis-server"
    target = 0.95
    needs = ("redis-server", "redis-benchmark")
    N = 1_000_000
    TESTS = "set,get,incr,lpush,hset"
    describe = (f"`redis-server --io-threads 2` on 127.0.0.1 (no persistence), driven by "
                f"`redis-benchmark -n {N:,} -c 50 -P 16 -t {TESTS}` (pipelined: without it the client "
                f"and the I/O threads' busy-waiting share this VM's two vCPUs and requests/s swings "
                f"by 2×); figure = all requests over the sum of the five tests' times. Checked after "
                f"every run: the key count and the `incr` counter and `lpush` list lengths "
                f"({N:,} each).")

    def setup(self):
        super().setup()
        self.port = free_port()
        return []

    def argv(self):
        return ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", os.path.abspath(self.dir), "--io-threads", "2",
                "--daemonize", "no"]

    def reset(self):
        self.port = free_port()

    def ready(self):
        return resp(self.port, "PING") == "+PONG"

    def bench_argv(self, port="PORT"):
        return ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-n", str(self.N), "-c", "50",
                "-P", "16", "-t", self.TESTS, "--csv"]

    def drive(self):
        out = client(self.bench_argv(self.port), "redis-benchmark")
        rates = re.findall(r'^"([A-Z_]+)[^"]*","([\d.]+)"', out, re.M)
        if len(rates) != len(self.TESTS.split(",")):
            raise Failed(f"redis-benchmark printed {len(rates)} results:\n{out[-1000:]}")
        seconds = sum(self.N / float(r) for _, r in rates)
        return self.N * len(rates) / seconds, out

    def check(self):
        got = (resp(self.port, "DBSIZE"), resp(self.port, "GET", "counter:__rand_int__"),
               resp(self.port, "LLEN", "mylist"))
        want = (":4", str(self.N), f":{self.N}")
        if got != want:
            raise Failed(f"after the run: DBSIZE, GET counter, LLEN mylist = {got}, not {want}")
        return f"dbsize {got[0][1:]} counter {got[1]} mylist {got[2][1:]}"

    def client_commands(self):
        return [show(self.bench_argv()), "redis-cli -p PORT DBSIZE; GET counter:__rand_int__; LLEN mylist"]


# ---- memcached ----

class Memcached(ServerRow):
    key, label = "real-memcached", "memcached + memaslap"
    exe = "memcached"
    target = 0.95
    needs = ("memcached",)
    N = 300_000

    describe = (f"`memcached -t 2` on 127.0.0.1, driven by memaslap (`memcaslap` in Debian's "
                f"libmemcached-tools) `-T 2 -c 16 -x {N:,}` (90% get, 10% set); figure = memaslap's "
                f"TPS. Checked after every run: memcached's own `cmd_get` / `cmd_set` counters.")

    def missing(self):
        return super().missing() or (None if self.memaslap() else
                                     "memcaslap is not installed (libmemcached-tools; "
                                     "scripts/install-bench-deps.sh)")

    @staticmethod
    def memaslap():
        return which("memcaslap") or which("memaslap")

    def setup(self):
        super().setup()
        self.port = free_port()
        return []

    def argv(self):
        a = ["memcached", "-p", str(self.port), "-U", "0", "-t", "2", "-l", "127.0.0.1"]
        if os.geteuid() == 0:
            a += ["-u", "root"]
        return a

    def reset(self):
        self.port = free_port()

    def ready(self):
        socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        return True

    def slap_argv(self, port="PORT"):
        return [self.memaslap() or "memcaslap", "-s", f"127.0.0.1:{port}", "-T", "2", "-c", "16",
                "-x", str(self.N)]

    def drive(self):
        out = client(self.slap_argv(self.port), "memaslap")
        m = re.search(r"Run time:\s*[\d.]+s\s+Ops:\s*(\d+)\s+TPS:\s*(\d+)", out)
        if not m or int(m.group(1)) != self.N:
            raise Failed(f"memaslap did not report {self.N} ops:\n{out[-1000:]}")
        return float(m.group(2)), out

    def check(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"stats\r\n")
            data = b""
            while not data.endswith(b"END\r\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        stats = dict(re.findall(r"STAT (\w+) (\S+)", data.decode()))
        gets, sets = int(stats.get("cmd_get", -1)), int(stats.get("cmd_set", -1))
        if gets + sets != self.N:
            raise Failed(f"after the run: memcached counted {gets} gets + {sets} sets, not {self.N}")
        return f"cmd_get {gets} cmd_set {sets}"

    def client_commands(self):
        return [show(self.slap_argv()), "printf 'stats\\r\\n' | nc 127.0.0.1 PORT   # cmd_get, cmd_set"]


ALL = [Mariadb(), Redis(), Memcached()]
