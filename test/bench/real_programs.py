"""real_programs.py — the programs of the real-program benchmark that run
to completion: node (two scripts), python3, OpenJDK 17 and ripgrep.

Each is a Workload (workloads.py) of fixed size: argv, an outcome that must
not change between runs (check) and what must be installed. The scripts
they run are in test/bench/real/; ripgrep searches a corpus generated once
from a fixed seed (build/bench/real/corpus), so that its answer does not
depend on what is installed in /usr/share.
"""
import hashlib
import os
import random
import re

from runner import OUT, Failed, which
from workloads import Workload

HERE = "test/bench/real"


def result_line(run, prefix="RESULT "):
    """The program's one result line (heaptrack adds its own lines to
    stdout: they are not the program's)."""
    lines = [l for l in run.stdout.splitlines() if l.startswith(prefix)]
    if len(lines) != 1:
        raise Failed(f"expected one '{prefix.strip()}' line in the output:\n{run.stdout[-800:]}")
    return lines[0]


class Script(Workload):
    pairs = 5             # timed pairs unless BENCH_PAIRS says otherwise
    interpreter = []
    script = ""

    def argv(self, div=1, variant="plain"):
        return self.interpreter + [f"{HERE}/{self.script}"]

    def size(self, div=1):
        return f"`{self.script}`"

    def check(self, run, div=1):
        return result_line(run)


class NodePbkdf2(Script):
    key, label, target = "real-node-pbkdf2", "node: `crypto.pbkdf2Sync` script", 1.3
    interpreter, script, needs = ["node"], "pbkdf2.js", ("node",)
    pairs = 9             # 0.15 s untraced: more pairs against the noise
    describe = ("node 4 × `crypto.pbkdf2Sync(…, 20000, 64, 'sha512')` (test/bench/real/pbkdf2.js): "
                "OpenSSL allocates and frees a digest context per iteration, ~770,000 allocations "
                "from deep stacks in ~0.15 s; prints a hash of the keys.")


class NodeAlloc(Script):
    key, label, target = "real-node-alloc", "node: objects, JSON, Maps + pbkdf2", 1.3
    interpreter, script, needs = ["node"], "alloc.js", ("node",)
    describe = ("node building Maps of small objects, JSON round trips and strings (20 rounds of "
                "40,000 objects), then 2 × `pbkdf2Sync` (test/bench/real/alloc.js), ~1 s untraced; "
                "prints a digest of what it computed.")


class Python(Script):
    key, label, target = "real-python", "python3: two threads, dicts and JSON", 1.2
    interpreter, script = ["/usr/bin/python3"], "threads_json.py"
    needs = ("/usr/bin/python3",)
    describe = ("Debian's /usr/bin/python3 (not a pyenv shim, which is a shell script) with two "
                "threads each building 10 dicts of 12,000 records, `json.dumps` and `json.loads` "
                "(test/bench/real/threads_json.py), ~1.3 s untraced; prints each thread's digest.")


class Java(Script):
    key, label, target = "real-java", "OpenJDK 17: `java Locks.java`, 8 threads", 1.3
    interpreter, script = ["java"], "Locks.java"
    needs = ("java",)
    describe = ("OpenJDK 17 in source-file mode, `java Locks.java` (compiled in memory, then run; "
                "test/bench/real/Locks.java): 8 threads × 40,000 rounds of a `synchronized` counter "
                "among 4 and allocation (maps, lists, strings), ~0.7 s untraced (the JVM's own "
                "threads included: G1, JIT compilers); prints a checksum.")

    def missing(self):
        if not which("java"):
            return "java is not installed (openjdk-17-jdk-headless; scripts/install-bench-deps.sh)"
        return None


# ---- ripgrep on a generated corpus ----

CORPUS_VERSION = 1
WORDS = ("the of and to in is that for it as was with be by on not he this are or his from at which "
         "but have an they you were her she there been one all we their has would when if so no will "
         "thread mutex lock heap trace alloc free buffer value index table system kernel").split()


def corpus():
    """build/bench/real/corpus: 24 × 24 directories of 20–90 text files of
    128 B – 64 KiB (~31,000 files, ~400 MB), a .gitignore in every eighth;
    made once from a fixed seed (a stamp names the version)."""
    root = f"{OUT}/real/corpus"
    stamp = f"{root}/.complete-{CORPUS_VERSION}"
    if os.path.exists(stamp):
        return root
    rnd = random.Random(1313)
    # text comes from slices of one pool, so that generating is quick
    pool = " ".join(rnd.choice(WORDS) for _ in range(400_000))
    pool = "\n".join(pool[i:i + 72] for i in range(0, len(pool), 72))
    for a in range(24):
        for b in range(24):
            d = f"{root}/d{a:02d}/e{b:02d}"
            os.makedirs(d, exist_ok=True)
            if b % 8 == 0:
                with open(f"{d}/.gitignore", "w") as f:
                    f.write(f"*.tmp\nbuild-{b}/\n!keep.tmp\n")
            for c in range(rnd.randrange(20, 90)):
                size = int(2 ** rnd.uniform(7, 16))
                at = rnd.randrange(0, len(pool) - size)
                ext = rnd.choice([".txt", ".md", ".c", ".py", ".tmp", ".html"])
                with open(f"{d}/f{c:03d}{ext}", "w") as f:
                    f.write(pool[at:at + size] + "\n")
    open(stamp, "w").close()
    return root


class Ripgrep(Workload):
    key, label, target = "real-ripgrep", "ripgrep: `rg -c the CORPUS`", 1.3
    pairs = 7             # 0.25 s untraced
    needs = ("rg",)
    describe = ("ripgrep 13 `rg -c the DIR` (its default threads) over a generated corpus "
                "(build/bench/real/corpus: ~31,000 text files, ~400 MB in 576 directories, made once "
                "from a fixed seed, so that the answer does not depend on /usr/share); the "
                "`path:count` lines, sorted (rg's threads print in any order), are hashed and must "
                "not change.")

    def build(self):
        corpus()
        return [f"python3 -c 'import real_programs; real_programs.corpus()'   # {OUT}/real/corpus, once"]

    def argv(self, div=1, variant="plain"):
        return ["rg", "-c", "the", f"{OUT}/real/corpus"]

    def size(self, div=1):
        return "~31,000 files"

    def check(self, run, div=1):
        root = f"{OUT}/real/corpus/"
        lines = sorted(l for l in run.stdout.splitlines() if l.startswith(root))
        if len(lines) < 1000:
            raise Failed(f"rg printed {len(lines)} matching files:\n{run.stdout[-500:]}")
        total = 0
        for l in lines:
            m = re.search(r":(\d+)$", l)
            if not m:
                raise Failed(f"rg printed {l!r}")
            total += int(m.group(1))
        h = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
        return f"files {len(lines)} matches {total} sha256 {h}"


ALL = [NodePbkdf2(), NodeAlloc(), Python(), Java(), Ripgrep()]
