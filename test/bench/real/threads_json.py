"""python3: two threads building dicts and JSON. Each thread builds rounds of
dicts of small records, serializes them to JSON, reads them back and folds
the result into a digest; deterministic (each thread its own seeded
random.Random). Prints one line that must not change."""
import hashlib
import json
import random
import threading

ROUNDS = 10
RECORDS = 12000


def work(seed, out):
    rnd = random.Random(seed)
    h = hashlib.sha256()
    for r in range(ROUNDS):
        d = {}
        for i in range(RECORDS):
            d["key-%d-%d" % (r, i)] = {"id": i, "name": "n%d" % rnd.randrange(1 << 20),
                                       "vals": [rnd.randrange(1000) for _ in range(4)],
                                       "flag": bool(i & 1)}
        text = json.dumps(d, sort_keys=True)
        back = json.loads(text)
        s = sum(v["vals"][0] for v in back.values())
        h.update(("%d:%d:%d" % (len(text), len(back), s)).encode())
    out[seed] = h.hexdigest()


out = {}
ts = [threading.Thread(target=work, args=(s, out)) for s in (1, 2)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("RESULT python", out[1][:16], out[2][:16])
