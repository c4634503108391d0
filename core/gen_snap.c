/* gen_snap.c — the live-heap snapshot (gen_snap.h). */
#include "gen_snap.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "heap.h"
#include "heapid.h"
#include "heaplive.h"
#include "heapset.h"
#include "heapsite.h"
#include "idmap.h"
#include "region.h"
#include "snapout.h"
#include "stacktab.h"
#include "thread.h"
#include "tracer.h"
#include "typetab.h"

/* The snapshot's batches (core/snapout.h). */
static struct gt_snapout batches;

/* The copy of the live table (one shard, or the sampled set). */
static struct gt_heaplive_entry *ents;
static uint64_t capents;

/* (site, size) -> type id of the snapshot's generation: open addressing,
 * entries of another stamp are empty. */
struct type_slot {
	uint64_t key; /* site << 32 | size */
	uint64_t id;
	uint64_t stamp;
};
static struct type_slot *types;
static uint64_t types_mask, types_count, stamp;

/* The type logs of the snapshot's types, one per generation parity
 * (core/typetab.h): the flusher is their only writer. */
static struct gt_typelog *logs[2];

/* The generation before the snapshot's (written out, its stack table not
 * emptied yet): stack id -> its entry and the site number it became. */
struct prev_stack {
	const struct gt_idmap_entry *e;
	uint32_t site; /* GT_HEAPREF_SITE | number once converted; 0: not yet */
};
static struct prev_stack *prev;
static uint64_t capprev, nprev;

/* Object ids' region cache (core/heapid.h: only its heapid part is used). */
static struct gt_side *side;

static struct gt_gen_snap_stats last;

static int types_grow(void)
{
	uint64_t cap = types_mask ? (types_mask + 1) * 2 : 4096;
	struct type_slot *ns = gt_map(cap * sizeof *ns);
	if (!ns)
		return -1;
	for (uint64_t i = 0; types && i <= types_mask; i++) {
		if (types[i].stamp != stamp)
			continue;
		uint64_t j = (types[i].key * 0x9e3779b97f4a7c15ull) >> 20 & (cap - 1);
		while (ns[j].stamp == stamp)
			j = (j + 1) & (cap - 1);
		ns[j] = types[i];
	}
	if (types)
		gt_unmap(types, (types_mask + 1) * sizeof *types);
	types = ns;
	types_mask = cap - 1;
	return 0;
}

static void index_stack(void *ctx, const struct gt_idmap_entry *e)
{
	(void)ctx;
	if (e->id < nprev)
		prev[e->id] = (struct prev_stack){ e, 0 };
}

/* index_prev indexes generation gen's stack table by id. */
static void index_prev(uint64_t gen)
{
	const struct gt_idmap *m = &gt.stacks[gen & 1].map;
	nprev = 0;
	uint64_t n = m->next_id;
	if (n > capprev) {
		uint64_t cap = capprev ? capprev : 1024;
		while (cap < n)
			cap *= 2;
		struct prev_stack *p = gt_map(cap * sizeof *p);
		if (!p)
			return;
		if (prev)
			gt_unmap(prev, capprev * sizeof *prev);
		prev = p;
		capprev = cap;
	}
	memset(prev, 0, n * sizeof *prev);
	nprev = n;
	gt_idmap_each(m, index_stack, NULL);
}

/* fix_ref: a live object's stack ref (core/heapsite.h), under its table's
 * lock: a stack of the generation before gen becomes a site; one of gen
 * stays (gen's own table has it; the next snapshot converts it); any other
 * is unknown. */
static uint32_t fix_ref(void *ctx, uint32_t ref)
{
	uint64_t gen = *(const uint64_t *)ctx;
	uint32_t g = ref >> GT_HEAPREF_GEN_SHIFT, id = ref & GT_HEAPREF_ID_MASK;
	if (g == (gen & 3))
		return ref;
	if (g != ((gen - 1) & 3) || id >= nprev || !prev[id].e)
		return 0;
	struct prev_stack *p = &prev[id];
	if (!p->site) {
		uint32_t num = gt_heapsite_get((const uintptr_t *)p->e->key, p->e->len / sizeof(uintptr_t), p->e->hash);
		p->site = num ? GT_HEAPREF_SITE | num : 0;
	}
	return p->site;
}

/* stack_of: the stack id in gen's table of a live object's (fixed) ref. */
static uint64_t stack_of(uint32_t ref, uint64_t gen)
{
	if (!(ref & GT_HEAPREF_SITE))
		return ref >> GT_HEAPREF_GEN_SHIFT == (gen & 3) ? ref & GT_HEAPREF_ID_MASK : 0;
	struct gt_heapsite *s = gt_heapsite_at(ref & ~GT_HEAPREF_SITE);
	if (!s)
		return 0;
	if (s->snap_gen != gen) {
		s->snap_stack = gt_stacktab_put(&gt.stacks[gen & 1], s->hash, s->pcs, s->n);
		s->snap_gen = gen;
	}
	return s->snap_stack;
}

/* type_of: the type of (size, ref) in gen's table. */
static uint64_t type_of(uint32_t ref, uint32_t size, uint64_t gen)
{
	uint64_t key = (uint64_t)ref << 32 | size;
	if (types_mask == 0 || (types_count + 1) * 2 > types_mask + 1) {
		if (types_grow() != 0 && types_mask == 0)
			return 0;
	}
	uint64_t i = (key * 0x9e3779b97f4a7c15ull) >> 20 & types_mask;
	for (;; i = (i + 1) & types_mask) {
		if (types[i].stamp != stamp)
			break;
		if (types[i].key == key)
			return types[i].id;
	}
	if ((types_count + 1) >= types_mask)
		return 0; /* full and could not grow: an unknown type */
	uint64_t id = gt_typetab_add(&gt.types[gen & 1], &logs[gen & 1], gen, size, stack_of(ref, gen));
	types[i] = (struct type_slot){ key, id, stamp };
	types_count++;
	return id;
}

static int need_ents(uint64_t n)
{
	if (n <= capents)
		return 0;
	uint64_t cap = capents ? capents : 4096;
	while (cap < n)
		cap *= 2;
	struct gt_heaplive_entry *e = gt_map(cap * sizeof *e);
	if (!e)
		return -1;
	if (ents)
		gt_unmap(ents, capents * sizeof *ents);
	ents = e;
	capents = cap;
	return 0;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The longest one copy took in this snapshot: the longest a program
 * thread's malloc or free can have waited for the snapshot (the lock of
 * one shard, or of the sampled set, is held that long at most). */
static uint64_t hold_ns;

/* copy: the live entries of shard i (every allocation recorded) or of the
 * sampled set (i ignored); returns how many were copied to ents. */
static uint64_t copy(unsigned i, uint64_t gen)
{
	for (int tries = 0; tries < 4; tries++) {
		uint64_t t = now_ns(CLOCK_MONOTONIC);
		uint64_t n = gt_heap_mode == GT_HEAP_ALL ? gt_heaplive_copy(i, ents, capents, fix_ref, &gen)
							 : gt_heapset_copy(ents, capents, fix_ref, &gen);
		t = now_ns(CLOCK_MONOTONIC) - t;
		if (t > hold_ns)
			hold_ns = t;
		if (n <= capents)
			return n;
		if (need_ents(n + n / 4) != 0)
			break;
	}
	return 0; /* out of memory, or growing faster than copied: left out */
}

/* A small cache in front of type_of (the types table is larger than the L1
 * cache; a snapshot meets few types): key + 1 (0: empty), type. */
#define TCACHE 256
static struct {
	uint64_t key, type;
} tcache[TCACHE];

/* emit writes HeapObject for ents[0..n); returns how many were written.
 * Every event has the batch's base time (dt 0).
 *
 * The loop is the snapshot's cost per object (a million objects: a
 * million turns), so it has no branch that depends on the object: the
 * entries come in hash-table order, their types at random, and a
 * mispredicted "same type as the one before?" cost more than the rest of
 * the event. The type cache is always asked (it hits nearly always), and
 * the batch's room is checked once per run of events that must fit. */
static uint64_t emit(struct gt_snapout *w, uint64_t n)
{
	uint64_t k = 0;
	while (k < n) {
		if (gt_snapout_room(w, GT_EVENT_MAX(2)) != 0)
			break;
		uint64_t fit = gt_batch_room(&w->b) / GT_EVENT_MAX(2);
		uint64_t end = n - k < fit ? n : k + fit;
		uint8_t *p = w->b.mem + w->b.len, *start = p;
		for (; k < end; k++) {
			const struct gt_heaplive_entry *e = &ents[k];
			uint64_t key = (uint64_t)e->ref << 32 | e->size;
			unsigned c = (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 56) & (TCACHE - 1);
			uint64_t type = tcache[c].type;
			if (__builtin_expect(tcache[c].key != key + 1, 0)) {
				type = type_of(e->ref, e->size, w->gen);
				tcache[c].key = key + 1;
				tcache[c].type = type;
			}
			*p++ = GT_EV_HEAP_OBJECT;
			*p++ = 0; /* dt */
			p = gt_put_uvarint_p(p, gt_heap_id(side, e->key));
			p = gt_put_uvarint_p(p, type);
		}
		w->b.len += (size_t)(p - start);
	}
	return k;
}

void gt_gen_snap_take(uint64_t gen, uint64_t ts)
{
	gt_snapout_begin(&batches, gen, ts);
	if (!gt.malloc_events || (gt_heap_mode != GT_HEAP_ALL && gt_heap_mode != GT_HEAP_SAMPLE))
		return;
	uint64_t t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	if (!side && !(side = gt_map(sizeof *side)))
		return;
	if (!capents && need_ents(4096) != 0)
		return;
	stamp++;
	types_count = 0;
	memset(tcache, 0, sizeof tcache); /* types of the generation before */
	index_prev(gen - 1);
	hold_ns = 0;
	uint64_t objects = 0;
	if (gt_heap_mode == GT_HEAP_ALL) {
		for (unsigned i = 0; i < GT_HEAPLIVE_SHARDS; i++)
			objects += emit(&batches, copy(i, gen));
	} else {
		objects = emit(&batches, copy(0, gen));
	}
	gt_snapout_end(&batches);
	uint64_t bytes = gt_snapout_bytes(&batches);
	last = (struct gt_gen_snap_stats){ gen, objects, now_ns(CLOCK_MONOTONIC) - t0,
					   now_ns(CLOCK_THREAD_CPUTIME_ID) - c0, bytes, hold_ns };
	/* The figures, in the generation's strings: what the snapshot cost
	 * the flusher (make bench reads them; docs/heap.md). */
	char s[160];
	int n = snprintf(s, sizeof s, "gotrace.snapshot heap_objects=%llu ns=%llu cpu_ns=%llu bytes=%llu hold_ns=%llu",
			 (unsigned long long)objects, (unsigned long long)last.ns, (unsigned long long)last.cpu_ns,
			 (unsigned long long)bytes, (unsigned long long)hold_ns);
	if (objects && n > 0 && (size_t)n < sizeof s)
		gt_strtab_put(&gt.strings[gen & 1], s, (size_t)n);
}

void gt_gen_snap_write(struct gt_gen_out *o, uint64_t gen)
{
	gt_snapout_write(&batches, o, gen);
}

void gt_gen_snap_done(void)
{
	gt_snapout_done(&batches);
}

void gt_gen_snap_last(struct gt_gen_snap_stats *out)
{
	*out = last;
}

void gt_gen_snap_after_fork(void)
{
	gt_snapout_forget(&batches);
	logs[0] = logs[1] = NULL; /* the table forgot them (gt_typetab_forget) */
}
