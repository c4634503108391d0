/* barrier.c — pthread barriers: an arrival that had to wait shows as
 * GoBlock("sync.barrier"); the last arrival, which does not wait, records
 * nothing (glibc makes the last arrival the PTHREAD_BARRIER_SERIAL_THREAD).
 * Recorded after the fact (core gt_waited): nobody else's release is
 * needed to describe it. */
#include <pthread.h>

#include "../core/clock.h"
#include "interpose.h"

GT_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(barrier_wait)(b);
	uint64_t t0 = gt_now();
	int r = GT_REAL(barrier_wait)(b);
	if (r != PTHREAD_BARRIER_SERIAL_THREAD)
		gt_waited(t, GT_STR_SYNC_BARRIER, GT_SITE(pthread_barrier_wait), t0, 0);
	return r;
}
