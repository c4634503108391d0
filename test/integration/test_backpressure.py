"""Back-pressure (GOTRACE_BUFFER): when the trace cannot be written as fast
as the program makes events, memory stays bounded because threads wait for
the writer; nothing is dropped, the trace is complete and valid, and the
waiting is reported on stderr at exit."""
import os
import resource
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

import gtlib


class SlowReader(threading.Thread):
    """Reads a FIFO at about rate bytes per second into a file."""

    def __init__(self, fifo, dest, rate):
        super().__init__(daemon=True)
        self.fifo, self.dest, self.rate = fifo, dest, rate
        self.total = 0

    def run(self):
        step = max(4096, self.rate // 20)
        with open(self.fifo, "rb", buffering=0) as src, open(self.dest, "wb") as out:
            while True:
                data = src.read(step)
                if not data:
                    return
                out.write(data)
                self.total += len(data)
                time.sleep(0.05)


def run_with_rss(argv, env_extra):
    env = gtlib.clean_env()
    env.update(env_extra)
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    out, err = p.stdout.read().decode(), p.stderr.read().decode()
    p.stdout.close()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, out, err, usage.ru_maxrss * 1024


class BackPressureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.binary = gtlib.compile("flight")

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gotrace-bp-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_slow_output_bounds_memory_and_loses_nothing(self):
        fifo = os.path.join(self.dir, "slow.fifo")
        dest = os.path.join(self.dir, "slow.trace")
        os.mkfifo(fifo)
        reader = SlowReader(fifo, dest, rate=1024 * 1024)
        reader.start()
        args = [self.binary, "heavy", "4000"]
        rc0, out0, _, rss0 = run_with_rss(args, {})
        rc, out, err, rss = run_with_rss(args, {"LD_PRELOAD": gtlib.LIB, "GOTRACE_OUT": fifo,
                                                "GOTRACE_BUFFER": os.environ.get("BP_BUFFER", "2MB"), "GOTRACE_PERIOD": "200ms"})
        reader.join(120)
        self.assertEqual((rc, out), (rc0, out0), err)
        lines = [l for l in err.splitlines() if l.startswith("gotrace:")]
        self.assertEqual(len(lines), 1, err)
        self.assertIn("fell behind", lines[0])
        self.assertNotIn("dropped", err)
        gtlib.validate(dest)
        # The budget is 2 MB of full chunks; open chunks, tables and the
        # flusher's copy of a generation come on top, never the whole run.
        extra = (rss - rss0) / 2**20
        print("\n  slow output: %.1f MB written, RSS %.1f MB over untraced (budget 2 MB)"
              % (reader.total / 2**20, extra))
        self.assertLess(extra, 40, "RSS grew by %.1f MB" % extra)
        self.assertGreater(reader.total, 2 * 2**20, "the test needs more events than the budget")


if __name__ == "__main__":
    unittest.main()
