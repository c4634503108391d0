/* wake.c — wake records: release time and site, per wait object. */
#include "wake.h"

#include <string.h>

_Atomic uint32_t gt_waiters[GT_WAIT_SLOTS];
_Atomic uint64_t gt_waiter_bits[GT_WAIT_SLOTS / 64];

void gt_waiter_add(uintptr_t key, int delta)
{
	uint32_t h = gt_wait_slot(key, GT_WAIT_SLOTS);
	uint32_t was = atomic_fetch_add(&gt_waiters[h], (uint32_t)delta);
	if (delta > 0 && was == 0) {
		gt_bitsum_raised(gt_waiter_bits, h);
	} else if (delta < 0 && was == 1) {
		gt_bitsum_clear(gt_waiter_bits, h);
		if (atomic_load(&gt_waiters[h]) != 0)
			gt_bitsum_raised(gt_waiter_bits, h);
	}
}

/* One cache line: the releaser writes it, the waiter reads it. n is not
 * kept (pcs[1] is 0 for a one-frame site); the mark's generation and stack
 * id are kept in 32 bits (a generation lasts 1 ms at least: 2^32 of them
 * are 50 days; a generation's stack ids are few). */
struct wake_record {
	_Atomic uint32_t seq; /* seqlock: odd while being written */
	uint32_t gen;         /* mark: generation's low bits (0: no mark) */
	uintptr_t key;
	uint64_t ts;
	uintptr_t pcs[GT_WAKE_FRAMES];
	struct gt_chunk *chunk; /* mark: the releaser's chunk, bytes in it, */
	uint64_t last_ts;       /* the time of its last event, */
	uint32_t off;
	uint32_t stk;           /* and the releaser's stack id */
} __attribute__((aligned(64)));

static struct wake_record records[GT_WAKE_RECORDS];

void gt_wake_leave(uintptr_t key, uint64_t ts, uintptr_t site, uintptr_t caller,
		   const struct gt_wake_mark *mark)
{
	struct wake_record *r = &records[gt_wait_slot(key, GT_WAKE_RECORDS)];
	uint32_t s = atomic_load_explicit(&r->seq, memory_order_relaxed);
	if ((s & 1) || !atomic_compare_exchange_strong_explicit(&r->seq, &s, s + 1, memory_order_acquire,
								 memory_order_relaxed))
		return; /* another releaser is writing this slot; drop ours */
	r->key = key;
	r->ts = ts;
	r->pcs[0] = site;
	r->pcs[1] = caller;
	if (mark && mark->gen && (uint32_t)mark->gen && mark->stk <= UINT32_MAX) {
		r->gen = (uint32_t)mark->gen;
		r->chunk = mark->chunk;
		r->last_ts = mark->last_ts;
		r->off = mark->off;
		r->stk = (uint32_t)mark->stk;
	} else {
		r->gen = 0;
	}
	atomic_store_explicit(&r->seq, s + 2, memory_order_release);
}

unsigned gt_wake_find(uintptr_t key, uint64_t after, uint64_t before, struct gt_waker *w)
{
	struct wake_record *r = &records[gt_wait_slot(key, GT_WAKE_RECORDS)];
	for (int tries = 0; tries < 4; tries++) {
		uint32_t s1 = atomic_load_explicit(&r->seq, memory_order_acquire);
		if (s1 & 1)
			continue;
		uintptr_t k = r->key;
		uint64_t t = r->ts;
		uintptr_t p0 = r->pcs[0], p1 = r->pcs[1];
		uint32_t gen = r->gen, off = r->off, stk = r->stk;
		struct gt_chunk *chunk = r->chunk;
		uint64_t last_ts = r->last_ts;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&r->seq, memory_order_relaxed) != s1)
			continue;
		if (k != key || t < after || t > before || p0 == 0)
			return 0;
		w->pcs[0] = p0;
		w->pcs[1] = p1;
		w->n = p1 ? 2 : 1;
		w->ts = t;
		w->mark.gen = gen; /* low bits: gt_wake_ins_attach compares them */
		w->mark.chunk = chunk;
		w->mark.off = off;
		w->mark.last_ts = last_ts;
		w->mark.stk = stk;
		return w->n;
	}
	return 0;
}

void gt_wake_reset(void)
{
	memset((void *)gt_waiters, 0, sizeof gt_waiters);
	memset(records, 0, sizeof records);
}
