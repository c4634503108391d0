"""Bad output paths, crashes, kills, fork and exec: the program behaves as if
untraced, problems get one clear line on stderr, and every trace file that is
written holds only complete generations the Go parsers accept."""
import ctypes
import ctypes.util
import glob
import os
import select
import struct
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import gtlib

GO_NEW = gtlib.GO_NEW


def gotrace_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("gotrace:")]


IN_MODIFY, IN_MOVED_TO, IN_CREATE = 0x2, 0x80, 0x100


def watch_appearance(directory, name, proc, on_appear, timeout=60):
    """Watch directory (inotify) while proc runs: when a file called name
    appears (created, linked or moved there) call on_appear() at once.
    Returns how many writes to name the kernel reported after it appeared
    (until proc ended), or None if it never appeared."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")
    appeared, writes = False, 0
    try:
        if libc.inotify_add_watch(fd, directory.encode(), IN_CREATE | IN_MOVED_TO | IN_MODIFY) < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")
        deadline = time.monotonic() + timeout
        ended = None
        while time.monotonic() < deadline:
            if ended is None and proc.poll() is not None:
                ended = time.monotonic()
            if ended is not None and time.monotonic() > ended + 0.2:
                break
            ready, _, _ = select.select([fd], [], [], 0.01)
            if not ready:
                continue
            buf = os.read(fd, 65536)
            off = 0
            while off < len(buf):
                _, mask, _, n = struct.unpack_from("iIII", buf, off)
                got = buf[off + 16:off + 16 + n].split(b"\0", 1)[0].decode()
                off += 16 + n
                if got != name:
                    continue
                if mask & (IN_CREATE | IN_MOVED_TO) and not appeared:
                    appeared = True
                    on_appear()
                elif mask & IN_MODIFY and appeared:
                    writes += 1
        return writes if appeared else None
    finally:
        os.close(fd)


class RobustnessTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = gtlib.compile("robust")

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gotrace-robust-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def same_as_untraced(self, args, out_path, env=None):
        """Runs untraced and traced (GOTRACE_OUT=out_path, given as is: never
        removed first, it may be a symlink or a device) and compares."""
        plain = gtlib.run_plain([self.binary] + args)
        extra = {"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": out_path}
        extra.update(env or {})
        traced = gtlib.run_plain([self.binary] + args, env_extra=extra)
        self.assertEqual(traced.returncode, plain.returncode, traced.describe())
        self.assertEqual(traced.stdout, plain.stdout, traced.describe())
        return traced

    def test_missing_directory(self):
        r = self.same_as_untraced(["work", "50"], os.path.join(self.dir, "no/such/dir/t.trace"))
        lines = gotrace_lines(r.stderr)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("cannot write the trace file", lines[0])
        self.assertIn("No such file or directory", lines[0])

    def test_symlink_is_not_followed(self):
        target = os.path.join(self.dir, "target")
        with open(target, "w") as f:
            f.write("keep me")
        link = os.path.join(self.dir, "link.trace")
        os.symlink(target, link)
        r = self.same_as_untraced(["work", "50"], link)
        self.assertEqual(len(gotrace_lines(r.stderr)), 1, r.stderr)
        with open(target) as f:
            self.assertEqual(f.read(), "keep me")

    def test_full_disk(self):
        # /dev/full fails every write with ENOSPC.
        r = self.same_as_untraced(["work", "100"], "/dev/full")
        lines = gotrace_lines(r.stderr)
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("No space left", lines[0])

    def test_kill_9_keeps_complete_generations(self):
        path = os.path.join(self.dir, "killed.trace")
        env = gtlib.clean_env()
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": path, "GOTRACE_PERIOD": "20ms"})
        p = subprocess.Popen([self.binary, "work", "5000"], env=env, stdout=subprocess.DEVNULL)
        time.sleep(0.6)
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.assertEqual(p.returncode, -signal.SIGKILL)
        r = subprocess.run([GO_NEW, "tool", "trace", "-d=parsed", path], env=gtlib.go_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        gens = sum(1 for l in r.stdout.splitlines() if " Sync " in l)
        self.assertGreaterEqual(gens, 5, "only %d generations readable: %s" % (gens, r.stderr[:300]))

    def test_the_file_appears_only_as_a_complete_trace(self):
        # A reader that opens the trace the moment its name appears (a
        # script polling for it, `go tool trace` on a helper process still
        # exiting), and a SIGKILL at that very moment (a parent killing its
        # children at shutdown): both meet a trace the parsers accept.
        # Before, the name appeared with the file still empty and a kill
        # then left a file no parser reads.
        path = os.path.join(self.dir, "appear.trace")
        env = gtlib.clean_env()
        # A first generation of a few MB (200,000 recorded mallocs and
        # frees), written at exit: a write that takes milliseconds.
        env.update({"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": path, "GOTRACE_PERIOD": "60s",
                    "GOTRACE_MALLOC": "all"})
        p = subprocess.Popen([gtlib.compile("hotpath"), "malloc", "200000"], env=env, stdout=subprocess.DEVNULL)
        seen = []

        def read_and_kill():
            with open(path, "rb") as f:
                seen.append(f.read())
            p.send_signal(signal.SIGKILL)
        try:
            writes = watch_appearance(self.dir, os.path.basename(path), p, read_and_kill)
        finally:
            p.wait()
        self.assertIsNotNone(writes, "the traced program wrote no %s" % path)
        # A one-generation trace is complete when its name appears: the
        # kernel reports no write to it after that.
        self.assertEqual(writes, 0, "%s was written %d times after its name appeared" % (path, writes))
        seen = seen[0]
        with open(path, "rb") as f:
            left = f.read()
        gtlib.validate(path)   # what the kill left
        if left != seen:
            copy = os.path.join(self.dir, "as-seen.trace")
            with open(copy, "wb") as f:
                f.write(seen)
            gtlib.validate(copy)   # what the reader read at once

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("unshare"), "needs root to hide /proc")
    def test_without_proc_the_file_is_made_by_name(self):
        # No /proc (a chroot, a sandbox): an unnamed file cannot be named,
        # so the first generation is written again into a file made by its
        # name, and later generations are appended to it.
        path = os.path.join(self.dir, "noproc.trace")
        plain = gtlib.run_plain([self.binary, "work", "200"])
        inner = "mount -t tmpfs none /proc && exec env LD_PRELOAD=%s GOTRACE_OUT=%s GOTRACE_PERIOD=20ms %s work 200" \
            % (gtlib.LIB, path, self.binary)
        r = gtlib.run_plain(["unshare", "-m", "sh", "-c", inner])
        self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout), r.describe())
        self.assertEqual(gotrace_lines(r.stderr), [], r.stderr)
        self.assertEqual(os.listdir(self.dir), ["noproc.trace"])
        gtlib.validate(path)
        out = subprocess.run([GO_NEW, "tool", "trace", "-d=parsed", path], env=gtlib.go_env(),
                             stdout=subprocess.PIPE, universal_newlines=True).stdout
        self.assertGreaterEqual(sum(1 for l in out.splitlines() if " Sync " in l), 3, path)

    def test_segv_dies_the_same_and_keeps_the_trace(self):
        path = os.path.join(self.dir, "segv.trace")
        r = self.same_as_untraced(["segv"], path)
        self.assertEqual(r.returncode, -signal.SIGSEGV)
        gtlib.validate(path)

    def test_program_handling_segv_keeps_working(self):
        path = os.path.join(self.dir, "handled.trace")
        r = self.same_as_untraced(["handled"], path)
        self.assertIn("recovered 3", r.stdout)
        gtlib.validate(path)

    def test_fork_children_get_their_own_traces(self):
        pattern = os.path.join(self.dir, "fork.%p.trace")
        r = self.same_as_untraced(["fork"], pattern)
        files = sorted(glob.glob(os.path.join(self.dir, "fork.*.trace")))
        self.assertEqual(len(files), 4, "want the parent's and three children's traces, got %s" % files)
        for f in files:
            gtlib.validate(f)

    def test_exec_writes_a_new_file_and_keeps_the_old(self):
        # The first image writes a generation before it execs (short
        # period): the new image writes a file of its own next to it.
        path = os.path.join(self.dir, "exec.trace")
        self.same_as_untraced(["exec"], path, env={"GOTRACE_PERIOD": "1ms"})
        files = sorted(glob.glob(path + "*"))
        self.assertEqual(len(files), 2, files)
        for f in files:
            gtlib.validate(f)

    def test_exec_before_the_first_generation_hands_the_name_over(self):
        # A wrapper that execs at once (shell script, launcher, shim)
        # leaves no file: the program it becomes writes the name given.
        path = os.path.join(self.dir, "handover.trace")
        self.same_as_untraced(["exec"], path)
        files = sorted(glob.glob(path + "*"))
        self.assertEqual(files, [path])
        gtlib.validate(path)
        with open(path, "rb") as f:
            data = f.read()
        self.assertIn(b"cmd=" + self.binary.encode() + b" work 50", data)


if __name__ == "__main__":
    unittest.main()
