/* barrier.c — pthread barriers: an arrival that waits shows as
 * GoBlock("sync.barrier") ... GoUnblock, and the last arrival is the
 * releaser of the others: it leaves a wake record on the barrier (key: its
 * address), so their wake-ups name it (core/wake.h).
 *
 * Who arrives last must be known before the real call: the last arrival
 * releases the others inside it, and they may run before it returns. The
 * rule: an arrival is the last one when glibc's count of arrivals (the
 * barrier's `in` word) is one short of a multiple of the barrier's count as
 * it enters (barrier_last). glibc's PTHREAD_BARRIER_SERIAL_THREAD is known
 * only after the call, and the waiter count on the key cannot tell rounds
 * apart (a waiter of the last round may not have counted itself out yet).
 *
 *   - predicted last: the wake record, then the real call, which returns
 *     without waiting (its wake-up of the others may take tens of
 *     microseconds); nothing else is written;
 *   - otherwise: gt_block (counted a waiter on the key) ... gt_unblock, the
 *     wake-up taking the last arrival's record when there is one.
 *
 * Two arrivals racing in as the last two may both predict "not last": the
 * one that was last then shows a short block, and the others' wake-ups
 * carry no waker, as a barrier wait did before. An arrival predicted last
 * whose call did not return PTHREAD_BARRIER_SERIAL_THREAD (which glibc, since
 * 2.23, returns to the arrival that completed the round: it only confirms
 * the guess here) may have waited: if its call took GT_SHORT_WAIT_NS or
 * more, the wait is recorded after the fact (gt_waited), as before. */
#include <pthread.h>

#include "../core/clock.h"
#include "interpose.h"

/* glibc's barrier (nptl, since 2.23): struct pthread_barrier { unsigned
 * in, current_round, count; int shared; unsigned out; }. `in` counts
 * arrivals and grows by count per round until glibc resets it. */
struct glibc_barrier {
	unsigned in, current_round, count;
	int shared;
	unsigned out;
};

_Static_assert(sizeof(struct glibc_barrier) <= sizeof(pthread_barrier_t), "glibc barrier layout");

/* barrier_last: the caller is about to be the barrier's last arrival of
 * its round (a guess; see the rule above). */
static int barrier_last(pthread_barrier_t *b)
{
	struct glibc_barrier *g = (struct glibc_barrier *)(void *)b;
	unsigned in = __atomic_load_n(&g->in, __ATOMIC_RELAXED);
	unsigned count = __atomic_load_n(&g->count, __ATOMIC_RELAXED);
	return count != 0 && (in + 1) % count == 0;
}

GT_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(barrier_wait)(b);
	if (barrier_last(b)) {
		GT_RELEASE(b, pthread_barrier_wait);
		uint64_t t0 = gt_now();
		int r = GT_REAL(barrier_wait)(b);
		if (r != PTHREAD_BARRIER_SERIAL_THREAD) /* it was not the last after all */
			gt_waited(t, GT_STR_SYNC_BARRIER, GT_SITE(pthread_barrier_wait), t0, GT_SHORT_WAIT_NS);
		return r;
	}
	int blocked = gt_block(t, GT_STR_SYNC_BARRIER, GT_SITE(pthread_barrier_wait), (uintptr_t)b);
	int r = GT_REAL(barrier_wait)(b);
	if (blocked)
		gt_unblock(t, 1);
	return r;
}
