"""Leaf frames name the application's call, never gotrace's own source
(issue 15, item 4).

A wrapper's frame stands for the libc call the program made: it reads as
the C library's own frames do — the function's name, the library the real
function lives in as its file (libc.so.6), no line — never
`pthread_mutex_lock interpose/mutex.c:29`. Traced in the default period and
a 5 ms one: sync_zoo (every blocking family: mutexes, rwlocks, condition
variables, barriers, semaphores, sleeps, joins, spin locks, yields),
signal_waits (signal waits, select/poll sleeps) and io_pipe_wait (kernel
I/O waits): every frame of every stack in the newest Go parser's view
(`go tool trace -d=parsed`, which prints each frame's file:line) is
checked: no file is one of gotrace's sources (interpose/…, core/…,
encoder/…) nor the tracer's library, and the interposed calls' leaves name
libc.so.6 with line 0. heap_zoo with GOTRACE_MALLOC=all (every allocation
function): the same for every location of `gotrace heap -pprof`'s profile
(`go tool pprof -raw`).
"""
import os
import re
import subprocess
import unittest

import gtlib

OWN = re.compile(r"^(\.\./)*(interpose|core|encoder|include)/|/gotrace[^/]*/(interpose|core|encoder)/|libgotrace\.so")
FRAME = re.compile(r"^\t(?P<func>.+) @ 0x[0-9a-f]+$")
WHERE = re.compile(r"^\t\t(?P<file>.*):(?P<line>\d+)$")


def frames(text):
    """(func, file, line) of every frame of every stack in -d=parsed text."""
    out = []
    func = None
    for line in text.splitlines():
        m = FRAME.match(line)
        if m:
            func = m.group("func")
            continue
        w = WHERE.match(line)
        if w and func is not None:
            out.append((func, w.group("file"), int(w.group("line"))))
        func = None
    return out


@gtlib.expand
class OwnFramesTest(gtlib.TracedTestCase):

    PROGRAMS = {
        "sync_zoo": ("sync_zoo.c", (), {}, []),
        "signal_waits": ("signal_waits.c", (), {}, []),
        "io_pipe_wait": ("io_pipe_wait.c", (), {}, []),
    }
    MODES = {name: 0 for name in PROGRAMS}

    def traced(self, name, period):
        def go():
            self.require_tools()
            src, extra, env, args = self.PROGRAMS[name]
            binary = gtlib.compile(src, extra=extra)
            run = gtlib.run_traced([binary] + args, gtlib.trace_path("own-" + name, period),
                                   env_extra=env, period=period, timeout=60)
            self.assertEqual(run.returncode, 0, run.describe())
            gtlib.validate(run.trace)
            return run, frames(gtlib.parsed_text(run.trace))
        return self.cached((name, period), go)

    def mode_check_no_frame_names_gotrace_source(self, name, period):
        run, fr = self.traced(name, period)
        self.assertGreater(len(fr), 30, "trace %s: too few frames" % run.trace)
        own = sorted({f for f in fr if OWN.search(f[1])})
        self.assertEqual(own, [], "frames naming gotrace's own files in %s" % run.trace)

    def mode_check_interposed_leaves_read_as_libc(self, name, period):
        run, fr = self.traced(name, period)
        want = {"sync_zoo": {"pthread_mutex_lock", "pthread_cond_wait", "sem_wait", "nanosleep",
                             "pthread_join", "pthread_create", "pthread_barrier_wait"},
                "signal_waits": {"sigwait", "pause", "select", "poll"},
                "io_pipe_wait": {"read"}}[name]
        seen = {}
        for func, file, line in fr:
            if func in want:
                seen.setdefault(func, set()).add((os.path.basename(file), line))
        where = "trace %s: %s" % (run.trace, seen)
        self.assertLessEqual(want, set(seen), where)
        for func, places in seen.items():
            self.assertEqual(places, {("libc.so.6", 0)}, "%s: %s" % (func, where))


class HeapFramesTest(gtlib.TracedTestCase):

    def test_heap_profile_names_no_gotrace_source(self):
        self.require_tools()
        binary = gtlib.compile("heap_zoo", extra=["-fno-builtin"])
        run = gtlib.run_traced([binary, "churn"], gtlib.trace_path("own-heap_zoo"),
                               env_extra={"GOTRACE_MALLOC": "all"}, timeout=60)
        self.assertEqual(run.returncode, 0, run.describe())
        pb = run.trace + ".heap.pb.gz"
        p = subprocess.run([gtlib.GOTRACE, "heap", "-pprof", pb, run.trace],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        raw = subprocess.run([gtlib.GO_NEW, "tool", "pprof", "-raw", pb], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True,
                             env=gtlib.go_env()).stdout
        files = re.findall(r"^\s+\d+: 0x[0-9a-f]+ M=\d+ .* (\S+):\d+:\d+ s=\d+", raw, re.M)
        self.assertGreater(len(files), 20, raw[:2000])
        own = sorted({f for f in files if OWN.search(f)})
        self.assertEqual(own, [], "trace %s" % run.trace)


if __name__ == "__main__":
    unittest.main()
