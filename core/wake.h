/* wake.h — who woke a waiter, and when.
 *
 * A waiter counts itself in a small hash of wait objects (mutex, condvar,
 * semaphore, thread handle ...). A releasing thread that finds waiters on
 * the object leaves a wake record: its release time and its call site (the
 * interposed function and its caller). The woken thread uses the record for
 * its GoUnblock, so the scheduler-latency profile measures release → run and
 * names the waker. Both sides are lock-free; a collision in either table only
 * costs a missed or extra record, never a wrong trace. */
#ifndef GT_WAKE_H
#define GT_WAKE_H

#include <stdatomic.h>
#include <stdint.h>

#include "bitsum.h"

#define GT_WAIT_SLOTS 4096
#define GT_WAKE_RECORDS 1024
#define GT_WAKE_FRAMES 2

extern _Atomic uint32_t gt_waiters[GT_WAIT_SLOTS];
/* One bit per slot, set exactly while its count is non-zero: every unlock
 * of the program reads only this (512 bytes, in the L1 cache), where a load
 * from the 16 KiB of counts missed it on most unlocks. */
extern _Atomic uint64_t gt_waiter_bits[GT_WAIT_SLOTS / 64];

/* The slot of key in a table of nslots (a power of two): the top bits of a
 * multiplicative hash (a multiply and a shift). */
static inline uint32_t gt_wait_slot(uintptr_t key, uint32_t nslots)
{
	return (uint32_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctz(nslots)));
}

/* gt_waiter_add counts a waiter on key in (delta 1) or out (-1) and keeps
 * the slot's summary bit (core/bitsum.h). A waiter's slow path only. */
void gt_waiter_add(uintptr_t key, int delta);

static inline int gt_has_waiters(uintptr_t key)
{
	return gt_bitsum_test(gt_waiter_bits, gt_wait_slot(key, GT_WAIT_SLOTS));
}

/* Where a releasing thread was in its own event stream when it released
 * (core/wake_ins.h): its open chunk of generation gen, the bytes written
 * in it so far (off) and the time of the last event there (last_ts: the
 * time base the next event's delta is taken from), and the id of its full
 * stack in gen's stack table. gen 0: no mark (the releaser was not a
 * running traced thread, or was inside tracer work); the waiter then
 * writes its own GoUnblock with the two-frame site. */
struct gt_chunk;
struct gt_wake_mark {
	uint64_t gen; /* as found by gt_wake_find: its low 32 bits only */
	struct gt_chunk *chunk;
	uint32_t off;
	uint64_t last_ts;
	uint64_t stk;
};

/* What a waiter learns of the release that woke it. */
struct gt_waker {
	unsigned n;                      /* frames in pcs: the releasing site */
	uintptr_t pcs[GT_WAKE_FRAMES];   /* [site, caller] */
	uint64_t ts;                     /* the release time */
	struct gt_wake_mark mark;        /* the releaser's place (gen 0: none) */
};

/* gt_wake_leave records a release of key at time ts by the call site
 * [site, caller] (caller may be 0), with the releaser's mark (NULL: none). */
void gt_wake_leave(uintptr_t key, uint64_t ts, uintptr_t site, uintptr_t caller,
		   const struct gt_wake_mark *mark);

/* gt_wake_find looks for a release of key at or after `after` and not after
 * `before`. On success it returns the number of frames of its site (at
 * most GT_WAKE_FRAMES) and fills *w; otherwise it returns 0. */
unsigned gt_wake_find(uintptr_t key, uint64_t after, uint64_t before, struct gt_waker *w);

/* gt_wake_reset clears both tables (child after fork). */
void gt_wake_reset(void);

#endif
