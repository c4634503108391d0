/* heap_sites_sample.c — turns a trace with every allocation recorded into
 * the trace a sampled recording would have written, for the tests of
 * `gotrace heap` (test_heap_tool.py) while, or where, the library does not
 * sample itself:
 *
 *   heap_sites_sample IN OUT MEAN SEED
 *
 * Every HeapObjectAlloc of s bytes is kept with probability
 * p(s) = 1 - exp(-s/MEAN) (a fixed generator seeded with SEED), the others
 * are dropped with their HeapObjectFree (and their HeapObject in the
 * live-heap snapshots: a snapshot restates the kept live objects only),
 * and the frees of objects never allocated in the trace are dropped too: what the library's Poisson
 * sampling by bytes records (each allocation independently with p(s); the
 * frees of recorded objects only). Allocations and frees are decided in
 * time order over all threads, so an object freed by another thread
 * pairs up. Every generation's string table gets the statement
 * `gotrace.heap sample_bytes=MEAN` (tools/heap_sample.h). Everything else
 * is copied byte for byte; event batches that lose events are written
 * again with the same times.
 *
 * Built by the tests with the encoder sources and tools/heap_map.c. Exit status 0,
 * or 1 with a message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/reader.h"
#include "encoder/varint.h"
#include "encoder/writer.h"
#include "tools/heap_map.h"

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "heap_sites_sample: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	p = realloc(p, c * size);
	if (!p)
		die("out of memory", NULL);
	*cap = c;
	return p;
}

/* What a generation holds: its types, address rule, largest string id. */
struct gen {
	uint64_t gen;
	struct tool_hmap types; /* type id -> size */
	bool info;
	uint64_t min_addr, align;
	uint64_t max_string;
	bool unstated; /* pass 2: its statement is still to be written */
};
static struct gen *gens;
static size_t ngens, cap_gens;

static struct gen *gen_of(uint64_t g)
{
	if (ngens && gens[ngens - 1].gen == g)
		return &gens[ngens - 1];
	for (size_t i = 0; i < ngens; i++)
		if (gens[i].gen == g)
			return &gens[i];
	gens = grow(gens, &cap_gens, ngens + 1, sizeof *gens);
	struct gen *n = &gens[ngens++];
	memset(n, 0, sizeof *n);
	n->gen = g;
	tool_hmap_init(&n->types);
	return n;
}

/* A heap object event, in the order of the replay. */
struct hev {
	uint64_t ts, offset;
	uint64_t gen, id, type;
	bool alloc;
	bool snap; /* HeapObject: a live-heap snapshot's (docs/heap.md) */
};
static struct hev *evs;
static size_t nevs, cap_evs;

static int by_time(const void *a, const void *b)
{
	const struct hev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static uint64_t rng;
static double uniform(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static uint8_t *in;
static size_t in_len;

static struct gt_reader *open_reader(FILE **f)
{
	static struct gt_reader r;
	*f = fmemopen(in, in_len, "rb");
	if (!*f || gt_reader_init(&r, *f))
		die("cannot read the trace", *f ? r.err : NULL);
	return &r;
}

static uint64_t uv(const uint8_t *p, size_t len, size_t *pos)
{
	uint64_t v;
	int n = gt_get_uvarint(p + *pos, len - *pos, &v);
	if (n <= 0)
		die("malformed AllocFree batch", NULL);
	*pos += (size_t)n;
	return v;
}

/* pass1 collects the generations' tables and the heap object events. */
static void pass1(void)
{
	FILE *f;
	struct gt_reader *r = open_reader(&f);
	struct gt_rbatch b;
	int rc;
	while ((rc = gt_reader_next(r, &b)) > 0) {
		if (b.kind == GT_BATCH_END_OF_GEN)
			continue;
		struct gen *g = gen_of(b.gen);
		if (b.kind == GT_BATCH_STRINGS) {
			struct gt_string_cursor c;
			struct gt_string s;
			if (gt_strings_begin(&c, &b))
				die("bad string table", c.at.err);
			while (gt_strings_next(&c, &s) > 0)
				if (s.id > g->max_string)
					g->max_string = s.id;
		} else if (b.kind == GT_BATCH_EXPERIMENTAL && b.exp == GT_EXP_ALLOCFREE && b.len > 0) {
			size_t pos = 1;
			if (b.data[0] == GT_ALLOCFREE_INFO && !g->info) {
				g->info = true;
				g->min_addr = uv(b.data, b.len, &pos);
				uv(b.data, b.len, &pos);
				g->align = uv(b.data, b.len, &pos);
			} else if (b.data[0] == GT_ALLOCFREE_TYPES) {
				while (pos < b.len) {
					uint64_t id = uv(b.data, b.len, &pos), stack = uv(b.data, b.len, &pos);
					uint64_t size = uv(b.data, b.len, &pos), ptr = uv(b.data, b.len, &pos);
					uint64_t nlen = uv(b.data, b.len, &pos);
					(void)stack, (void)ptr;
					if (nlen > b.len - pos)
						die("malformed AllocFree type", NULL);
					pos += (size_t)nlen;
					bool fresh;
					struct tool_hmap_entry *e = tool_hmap_put(&g->types, id, &fresh);
					if (!e)
						die("out of memory", NULL);
					if (fresh)
						e->val = size;
				}
			}
		} else if (b.kind == GT_BATCH_EVENTS) {
			struct gt_event_cursor c;
			struct gt_event ev;
			gt_events_begin(&c, &b);
			while ((rc = gt_events_next(&c, &ev)) > 0) {
				if (ev.type != GT_EV_HEAP_OBJECT_ALLOC && ev.type != GT_EV_HEAP_OBJECT_FREE &&
				    ev.type != GT_EV_HEAP_OBJECT)
					continue;
				evs = grow(evs, &cap_evs, nevs + 1, sizeof *evs);
				evs[nevs++] = (struct hev){ .ts = ev.ts, .offset = ev.offset, .gen = b.gen, .id = ev.args[0],
							    .type = ev.args[1], .alloc = ev.type == GT_EV_HEAP_OBJECT_ALLOC,
							    .snap = ev.type == GT_EV_HEAP_OBJECT };
			}
			if (rc < 0)
				die("bad event batch", c.at.err);
		}
	}
	if (rc < 0)
		die("bad trace", r->err);
	fclose(f);
}

/* decide drops allocations by p(s) and frees of objects not kept; the
 * offsets of the dropped events go into *dropped. */
static void decide(uint64_t mean, struct tool_hmap *dropped, uint64_t *kept_allocs)
{
	struct tool_hmap live; /* address -> 1: kept objects */
	tool_hmap_init(&live);
	/* a generation without an info batch keeps the rule before it */
	uint64_t min_addr = 0, align = 8;
	for (size_t i = 0; i < ngens; i++) {
		if (gens[i].info) {
			min_addr = gens[i].min_addr;
			align = gens[i].align;
		}
		gens[i].min_addr = min_addr;
		gens[i].align = align;
	}
	qsort(evs, nevs, sizeof *evs, by_time);
	for (size_t i = 0; i < nevs; i++) {
		const struct hev *e = &evs[i];
		const struct gen *g = gen_of(e->gen);
		uint64_t addr = g->min_addr + e->id * g->align;
		bool keep;
		if (e->snap) {
			/* The snapshot restates what the library would have kept:
			 * the live kept objects only. */
			keep = tool_hmap_get(&live, addr) != NULL;
		} else if (e->alloc) {
			const struct tool_hmap_entry *t = e->type ? tool_hmap_get(&g->types, e->type) : NULL;
			uint64_t size = t ? t->val : 0;
			keep = uniform() < -expm1(-(double)size / (double)mean);
			if (keep) {
				bool fresh;
				if (!tool_hmap_put(&live, addr, &fresh))
					die("out of memory", NULL);
				++*kept_allocs;
			} else {
				tool_hmap_del(&live, addr, NULL); /* a kept object whose free was missed */
			}
		} else {
			keep = tool_hmap_del(&live, addr, NULL);
		}
		if (!keep) {
			bool fresh;
			if (!tool_hmap_put(dropped, e->offset, &fresh))
				die("out of memory", NULL);
		}
	}
	tool_hmap_free(&live);
}

static FILE *out;

static void put(const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, out) != n)
		die("write error", NULL);
}

static uint8_t batch_mem[GT_MAX_BATCH + 64];

/* statement writes generation g's string batch with the sampling statement. */
static void statement(struct gen *g, uint64_t mean)
{
	char s[64];
	int n = snprintf(s, sizeof s, "gotrace.heap sample_bytes=%llu", (unsigned long long)mean);
	struct gt_batch b;
	gt_batch_begin(&b, batch_mem, sizeof batch_mem, g->gen, GT_NO_THREAD, 0);
	gt_batch_byte(&b, GT_EV_STRINGS);
	gt_batch_string(&b, g->max_string + 1, s, (size_t)n);
	put(batch_mem, gt_batch_finish(&b));
	g->unstated = false;
}

/* pass2 copies the trace, dropping events and adding the statements. */
static void pass2(uint64_t mean, const struct tool_hmap *dropped)
{
	FILE *f;
	struct gt_reader *r = open_reader(&f);
	struct gt_rbatch b;
	int rc;
	for (size_t i = 0; i < ngens; i++)
		gens[i].unstated = true;
	put(in, GT_HEADER_LEN);
	struct gen *cur = NULL;
	while ((rc = gt_reader_next(r, &b)) > 0) {
		if (b.kind == GT_BATCH_END_OF_GEN) {
			if (cur && cur->unstated)
				statement(cur, mean);
			put(in + b.offset, 1);
			cur = NULL;
			continue;
		}
		struct gen *g = gen_of(b.gen);
		if (cur && cur != g && cur->unstated)
			statement(cur, mean); /* format 23: the generation ended */
		cur = g;
		bool rewrite = false;
		if (b.kind == GT_BATCH_EVENTS) {
			struct gt_event_cursor c;
			struct gt_event ev;
			gt_events_begin(&c, &b);
			while (!rewrite && gt_events_next(&c, &ev) > 0)
				rewrite = tool_hmap_get(dropped, ev.offset) != NULL;
		}
		if (!rewrite) {
			put(in + b.offset, (size_t)(b.data_offset + b.len - b.offset));
		} else {
			struct gt_batch nb;
			struct gt_event_cursor c;
			struct gt_event ev;
			gt_batch_begin(&nb, batch_mem, sizeof batch_mem, b.gen, b.m, b.base_ts);
			gt_events_begin(&c, &b);
			while (gt_events_next(&c, &ev) > 0)
				if (!tool_hmap_get(dropped, ev.offset))
					gt_batch_event(&nb, ev.type, ev.ts, (unsigned)ev.nargs, ev.args);
			put(batch_mem, gt_batch_finish(&nb));
		}
		if (b.kind == GT_BATCH_STRINGS && g->unstated)
			statement(g, mean);
	}
	if (rc < 0)
		die("bad trace", r->err);
	if (cur && cur->unstated)
		statement(cur, mean);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc != 5)
		die("usage: heap_sites_sample IN OUT MEAN SEED", NULL);
	uint64_t mean = strtoull(argv[3], NULL, 10);
	rng = strtoull(argv[4], NULL, 10);
	if (mean == 0)
		die("MEAN must be at least 1", NULL);
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		die("cannot open", argv[1]);
	size_t cap = 0;
	for (;;) {
		in = grow(in, &cap, in_len + 65536, 1);
		size_t n = fread(in + in_len, 1, cap - in_len, f);
		in_len += n;
		if (n == 0)
			break;
	}
	fclose(f);

	pass1();
	struct tool_hmap dropped;
	tool_hmap_init(&dropped);
	uint64_t kept = 0;
	decide(mean, &dropped, &kept);
	if (!(out = fopen(argv[2], "wb")))
		die("cannot create", argv[2]);
	pass2(mean, &dropped);
	if (fclose(out))
		die("write error", argv[2]);
	fprintf(stderr, "heap_sites_sample: %zu heap object events, %llu allocations kept, %zu events dropped\n",
		nevs, (unsigned long long)kept, dropped.n);
	return 0;
}
