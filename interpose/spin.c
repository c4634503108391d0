/* spin.c — pthread spin locks: a spinning wait shows as
 * GoBlock("sync.spinlock") (the thread burns CPU, but makes no progress). */
#include <pthread.h>

#include "interpose.h"

GT_EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(spin_lock)(l);
	int r = GT_REAL(spin_trylock)(l);
	if (r != EBUSY)
		return r;
	int blocked = gt_block(t, GT_STR_SYNC_SPIN, GT_SITE(pthread_spin_lock), (uintptr_t)l);
	r = GT_REAL(spin_lock)(l);
	if (blocked)
		gt_unblock(t, r == 0);
	return r;
}

GT_EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	if (gt_enter())
		gt_release((uintptr_t)l, GT_SITE(pthread_spin_unlock), GT_CALLER());
	return GT_REAL(spin_unlock)(l);
}
