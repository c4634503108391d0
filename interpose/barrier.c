/* barrier.c — pthread barriers: each arrival waits as GoBlock("sync.barrier")
 * until the last one (the last one's wait is short). */
#include <pthread.h>

#include "interpose.h"

GT_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(barrier_wait)(b);
	int blocked = gt_block(t, GT_STR_SYNC_BARRIER, GT_SITE(pthread_barrier_wait), 0);
	int r = GT_REAL(barrier_wait)(b);
	if (blocked)
		gt_unblock(t, 0);
	return r;
}
