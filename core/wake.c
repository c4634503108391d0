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

struct wake_record {
	_Atomic uint32_t seq; /* seqlock: odd while being written */
	uint32_t n;
	uintptr_t key;
	uint64_t ts;
	uintptr_t pcs[GT_WAKE_FRAMES];
	struct gt_wake_mark mark;
};

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
	r->n = caller ? 2 : 1;
	if (mark)
		r->mark = *mark;
	else
		r->mark.gen = 0;
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
		uint32_t n = r->n;
		uintptr_t p0 = r->pcs[0], p1 = r->pcs[1];
		struct gt_wake_mark mark = r->mark;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&r->seq, memory_order_relaxed) != s1)
			continue;
		if (k != key || t < after || t > before || n == 0)
			return 0;
		w->pcs[0] = p0;
		w->pcs[1] = p1;
		w->ts = t;
		w->n = n;
		w->mark = mark;
		return n;
	}
	return 0;
}

void gt_wake_reset(void)
{
	memset((void *)gt_waiters, 0, sizeof gt_waiters);
	memset(records, 0, sizeof records);
}
