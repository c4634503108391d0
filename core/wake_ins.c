/* wake_ins.c — the releaser's GoUnblock, inserted in its stream (wake_ins.h). */
#include "wake_ins.h"

#include "../encoder/varint.h"
#include "region.h"

/* Node slabs, per generation parity, lock-free (no lock for the fork
 * handlers to take): `cur` is filled by atomic bumps; a full one is
 * replaced by a new mapping linked to it (next), installed by CAS (the
 * loser unmaps its own). So the chain from cur holds every slab of the
 * parity. */
#define SLAB_NODES 1024

struct slab {
	struct slab *next; /* the slab this one replaced */
	_Atomic uint32_t used;
	struct gt_wake_ins v[SLAB_NODES];
};

static _Atomic(struct slab *) cur[2];

static struct gt_wake_ins *node_alloc(uint64_t gen)
{
	unsigned p = gen & 1;
	for (;;) {
		struct slab *s = atomic_load_explicit(&cur[p], memory_order_acquire);
		if (s) {
			uint32_t i = atomic_fetch_add_explicit(&s->used, 1, memory_order_relaxed);
			if (i < SLAB_NODES)
				return &s->v[i];
		}
		struct slab *n = gt_map(sizeof *n);
		if (!n)
			return NULL;
		n->next = s;
		atomic_store_explicit(&n->used, 0, memory_order_relaxed);
		if (!atomic_compare_exchange_strong_explicit(&cur[p], &s, n, memory_order_acq_rel,
							     memory_order_acquire))
			gt_unmap(n, sizeof *n);
	}
}

/* At the switch, once generation gen is written: no section of gen is open
 * and none of gen + 2 can begin yet, so the parity's slabs are the
 * switch's alone. The newest is kept, emptied; the others go back. */
void gt_wake_ins_reset(uint64_t gen)
{
	unsigned p = gen & 1;
	struct slab *s = atomic_load_explicit(&cur[p], memory_order_acquire);
	if (!s)
		return;
	for (struct slab *o = s->next, *next; o; o = next) {
		next = o->next;
		gt_unmap(o, sizeof *o);
	}
	s->next = NULL;
	atomic_store_explicit(&s->used, 0, memory_order_relaxed);
}

/* own_node: room for a node at the end of the waiter's own chunk (its
 * batch ends earlier by that much): memory no other thread touches, alive
 * until the switch writes the generation. NULL when the chunk is nearly
 * full (then the shared slabs serve). */
#define OWN_NODE_KEEP 128 /* bytes the section still writes after the attach, and more */

static struct gt_wake_ins *own_node(struct gt_batch *b)
{
	uintptr_t end = (uintptr_t)(b->mem + b->end);
	uintptr_t at = (end - sizeof(struct gt_wake_ins)) & ~(uintptr_t)(_Alignof(struct gt_wake_ins) - 1);
	if (end < sizeof(struct gt_wake_ins) || at < (uintptr_t)(b->mem + b->len) + OWN_NODE_KEEP)
		return NULL;
	b->end = at - (uintptr_t)b->mem;
	return (struct gt_wake_ins *)at;
}

uint64_t gt_wake_ins_attach(struct gt_batch *b, uint64_t gen, uint64_t g, uint64_t *g_seq, const struct gt_waker *w,
			    uint64_t uts)
{
	const struct gt_wake_mark *m = &w->mark;
	if (!w->n || m->gen == 0 || (uint32_t)m->gen != (uint32_t)gen || !m->chunk)
		return 0;
	struct gt_wake_ins *n = own_node(b);
	if (!n && !(n = node_alloc(gen)))
		return 0;
	n->off = m->off;
	n->last_ts = m->last_ts;
	n->ts = uts > m->last_ts ? uts : m->last_ts;
	if (n->ts == 0)
		n->ts = 1; /* 0 means "not attached" to the caller */
	n->g = g;
	n->seq = ++*g_seq; /* the waiter's own counter (invariant 3) */
	n->stk = m->stk;
	_Atomic(struct gt_wake_ins *) *head = &m->chunk->ins;
	struct gt_wake_ins *old = atomic_load_explicit(head, memory_order_relaxed);
	do {
		n->next = old;
	} while (!atomic_compare_exchange_weak_explicit(head, &old, n, memory_order_release, memory_order_relaxed));
	return n->ts;
}

/* sorted: the list in (off, ts) order. Pushed newest first, so reversing
 * it leaves the insertion sort little to do. */
static struct gt_wake_ins *sorted(struct gt_wake_ins *l)
{
	struct gt_wake_ins *out = NULL;
	while (l) {
		struct gt_wake_ins *x = l, **at = &out;
		l = l->next;
		while (*at && ((*at)->off < x->off || ((*at)->off == x->off && (*at)->ts <= x->ts)))
			at = &(*at)->next;
		x->next = *at;
		*at = x;
	}
	return out;
}

/* A batch header: EventBatch, gen, m, base, padded payload size. */
#define HEADER_MAX (1 + 3 * GT_UVARINT_MAX + GT_BATCH_SIZE_WIDTH)

static void data_batch(struct gt_gen_out *o, const struct gt_chunk *c, uint64_t m, uint64_t base, size_t from,
		       size_t to)
{
	if (to <= from)
		return;
	uint8_t *h = gt_gen_alloc(HEADER_MAX);
	if (!h)
		return;
	size_t n = 0;
	h[n++] = GT_EV_BATCH;
	n += gt_put_uvarint(h + n, c->gen);
	n += gt_put_uvarint(h + n, m);
	n += gt_put_uvarint(h + n, base);
	gt_put_uvarint_padded(h + n, to - from, GT_BATCH_SIZE_WIDTH);
	n += GT_BATCH_SIZE_WIDTH;
	gt_gen_out_add(o, h, n);
	gt_gen_out_add(o, c->b.mem + from, to - from);
}

/* ins_batch writes the insertions from *l on that share its offset as one
 * batch; returns the first one after them. */
static struct gt_wake_ins *ins_batch(struct gt_gen_out *o, uint64_t gen, uint64_t m, struct gt_wake_ins *l)
{
	size_t k = 0;
	struct gt_wake_ins *e = l;
	for (; e && e->off == l->off; e = e->next)
		k++;
	size_t cap = HEADER_MAX + k * GT_EVENT_MAX(3);
	if (cap < 64)
		cap = 64;
	uint8_t *mem = gt_gen_alloc(cap);
	if (!mem)
		return e;
	struct gt_batch b;
	gt_batch_begin(&b, mem, cap, gen, m, l->ts);
	for (struct gt_wake_ins *x = l; x != e; x = x->next) {
		uint64_t args[3] = { x->g, x->seq, x->stk };
		gt_batch_event(&b, GT_EV_GO_UNBLOCK, x->ts, 3, args);
	}
	gt_gen_out_add(o, mem, gt_batch_finish(&b));
	return e;
}

void gt_wake_ins_write(struct gt_chunk *c, struct gt_gen_out *o)
{
	size_t len = gt_batch_finish(&c->b);
	struct gt_wake_ins *l = atomic_exchange_explicit(&c->ins, NULL, memory_order_acquire);
	if (!l) {
		gt_gen_out_add(o, c->b.mem, len);
		return;
	}
	/* The chunk's own header (core/section.c): type, gen, m, base. */
	const uint8_t *h = c->b.mem;
	size_t at = 1;
	uint64_t gen = 0, m = 0, base = 0;
	int n1 = gt_get_uvarint(h + at, c->b.size_at - at, &gen);
	at += n1 > 0 ? (size_t)n1 : 0;
	int n2 = gt_get_uvarint(h + at, c->b.size_at - at, &m);
	at += n2 > 0 ? (size_t)n2 : 0;
	int n3 = gt_get_uvarint(h + at, c->b.size_at - at, &base);
	if (n1 <= 0 || n2 <= 0 || n3 <= 0) {
		gt_gen_out_add(o, c->b.mem, len);
		return;
	}
	size_t pos = c->b.size_at + GT_BATCH_SIZE_WIDTH;
	for (l = sorted(l); l;) {
		size_t off = l->off < pos ? pos : l->off > len ? len : l->off;
		data_batch(o, c, m, base, pos, off);
		pos = off;
		base = l->last_ts;
		l = ins_batch(o, c->gen, m, l);
	}
	data_batch(o, c, m, base, pos, len);
}
