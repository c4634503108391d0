"""Which program a trace is of (issue 15 item 5; core/identity.h, docs/design.md
"Output file"): every trace names its process (pid, parent, command line) in
each generation's string table, which `gotrace stat` prints, and as a UserLog
(category gotrace.process) in each generation, which both Go readers show;
a run of several processes leaves files `gotrace stat` tells apart."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import gtlib

SELF = re.compile(r"^(self|child) pid=(\d+) ppid=(\d+)$", re.M)
# fields such as cpu_hz=<N> (the CPU sampling rate) may stand before cmd=
LOG = re.compile(r'Category="gotrace\.process" Message="pid=(\d+) ppid=(\d+) (?:[a-z_]+=\S* )*cmd=')


def said(stderr):
    """{pid: (who, ppid)} from the program's own lines."""
    return {int(m.group(2)): (m.group(1), int(m.group(3))) for m in SELF.finditer(stderr)}


def old_parsed_text(trace):
    out = trace + ".d1.txt"
    gtlib.validate_with(gtlib.GO_OLD, trace, parsed_out=out)
    with open(out, encoding="utf-8", errors="replace") as f:
        return f.read()


class IdentityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prog = gtlib.compile("ident_self")

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gotrace-ident-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def test_stat_and_both_readers_name_the_process(self):
        trace = os.path.join(self.dir, "one.trace")
        args = [self.prog, "run", "30", "two words", 'a"quote', "tab\there"]
        r = gtlib.run_traced(args, trace)
        self.assertEqual(r.returncode, 0, r.describe())
        pids = said(r.stderr)
        self.assertEqual(len(pids), 1, r.stderr)
        (pid, (_, ppid)), = pids.items()
        proc = gtlib.stat_json(trace)["process"]
        self.assertEqual(proc["pid"], pid)
        self.assertEqual(proc["ppid"], ppid)
        self.assertEqual(proc["cmd"], '%s run 30 "two words" "a\\"quote" "tab\\x09here"' % self.prog)
        gtlib.validate(trace)
        for name, text in (("go 1.27 -d=parsed", gtlib.parsed_text(trace)), ("go 1.23 -d=1", old_parsed_text(trace))):
            logs = LOG.findall(text)
            self.assertTrue(logs, "%s shows no gotrace.process log" % name)
            self.assertEqual(set(logs), {(str(pid), str(ppid))}, name)

    def test_every_generation_has_the_log(self):
        trace = os.path.join(self.dir, "gens.trace")
        r = gtlib.run_traced([self.prog, "run", "300"], trace, period="20ms")
        self.assertEqual(r.returncode, 0, r.describe())
        gtlib.validate(trace)
        text = gtlib.parsed_text(trace)
        gens = sum(1 for l in text.splitlines() if " Sync " in l)
        logs = len(LOG.findall(text))
        self.assertGreaterEqual(gens, 8, "the run should span many generations")
        # the last generation may be the final one alone (the exit), with no event of a running thread
        self.assertGreaterEqual(logs, gens - 1, "a UserLog per generation: %d logs, %d generations" % (logs, gens))

    def test_flight_recorder_window_still_names_the_process(self):
        trace = os.path.join(self.dir, "flight.trace")
        r = gtlib.run_traced([self.prog, "run", "1200"], trace, period="50ms",
                             env_extra={"GOTRACE_FLIGHT": "300ms"})
        self.assertEqual(r.returncode, 0, r.describe())
        (pid, (_, ppid)), = said(r.stderr).items()
        st = gtlib.stat_json(trace)
        self.assertGreater(st["generations"]["first"], 1, "the window must have cut the first generations")
        self.assertEqual((st["process"]["pid"], st["process"]["ppid"]), (pid, ppid))
        gtlib.validate(trace)
        for name, text in (("go 1.27 -d=parsed", gtlib.parsed_text(trace)), ("go 1.23 -d=1", old_parsed_text(trace))):
            self.assertIn((str(pid), str(ppid)), LOG.findall(text), "%s: the window's log" % name)

    def files(self, base):
        return sorted(os.path.join(self.dir, f) for f in os.listdir(self.dir)
                      if f == base or (f.startswith(base + ".") and not f.endswith(".txt")))

    def test_pipeline_under_gotrace_run_leaves_files_told_apart(self):
        out = os.path.join(self.dir, "pipe.trace")
        cmd = "%s write 3000 | %s read" % (self.prog, self.prog)
        p = subprocess.run([gtlib.GOTRACE, "run", "-o", out, "--", "sh", "-c", cmd], env=gtlib.clean_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("read 3000 lines", p.stdout)
        pids = said(p.stderr)
        self.assertEqual(len(pids), 2, p.stderr)
        files = self.files("pipe.trace")
        procs = {}
        for f in files:
            proc = gtlib.stat_json(f)["process"]
            self.assertIsNotNone(proc, f)
            procs[proc["pid"]] = (f, proc)
        self.assertEqual(len(procs), len(files), "one process per file: %s" % procs)
        shell = [pid for pid, (_, pr) in procs.items() if pr["cmd"].startswith("sh -c")]
        self.assertEqual(len(shell), 1, procs)
        for pid, (_, ppid) in pids.items():
            self.assertIn(pid, procs, "no file of the process %d: %s" % (pid, files))
            f, pr = procs[pid]
            self.assertEqual(pr["ppid"], ppid)
            self.assertTrue(f.endswith(".%d" % pid), "%s should name its pid %d" % (f, pid))
            mode = "write 3000" if pr["cmd"].endswith("write 3000") else "read"
            self.assertEqual(pr["cmd"], "%s %s" % (self.prog, mode))
        self.assertEqual({procs[p][1]["cmd"].split()[-1] for p in pids}, {"3000", "read"})

    def test_forked_child_writes_its_own_named_file(self):
        trace = os.path.join(self.dir, "fork.trace")
        r = gtlib.run_traced([self.prog, "fork"], trace)
        self.assertEqual(r.returncode, 0, r.describe())
        pids = said(r.stderr)
        child = [pid for pid, (who, _) in pids.items() if who == "child"]
        parent = [pid for pid, (who, _) in pids.items() if who == "self"]
        self.assertEqual((len(child), len(parent)), (1, 1), r.stderr)
        st = gtlib.stat_json(trace)
        self.assertEqual(st["process"]["pid"], parent[0])
        cfile = "%s.%d" % (trace, child[0])
        self.assertTrue(os.path.exists(cfile), os.listdir(self.dir))
        cst = gtlib.stat_json(cfile)
        self.assertEqual((cst["process"]["pid"], cst["process"]["ppid"]), (child[0], parent[0]))
        gtlib.validate(cfile)
        self.assertIn((str(child[0]), str(parent[0])), LOG.findall(gtlib.parsed_text(cfile)))


if __name__ == "__main__":
    unittest.main()
