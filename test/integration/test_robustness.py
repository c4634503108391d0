"""Bad output paths, crashes, kills, fork and exec: the program behaves as if
untraced, problems get one clear line on stderr, and every trace file that is
written holds only complete generations the Go parsers accept."""
import glob
import os
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
