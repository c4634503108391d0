/* spin.c — pthread spin locks: a spinning wait shows as
 * GoBlock("sync.spinlock") (the thread burns CPU, but makes no progress). */
#include <pthread.h>

#include "interpose.h"

GT_REAL_FN(spin_trylock, int, (pthread_spinlock_t * l), (l))
GT_REAL_FN(spin_unlock, int, (pthread_spinlock_t * l), (l))

/* A fast half (the try) and a slow half that records the wait (interpose.h). */
GT_SLOW static int spin_wait(pthread_spinlock_t *l, uintptr_t ra, uintptr_t cfa)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(spin_lock)(l);
	int blocked = gt_block(t, GT_STR_SYNC_SPIN, GT_SITE_AT(pthread_spin_lock, ra, cfa), (uintptr_t)l);
	int r = GT_REAL(spin_lock)(l);
	if (blocked)
		gt_unblock(t, r == 0);
	return r;
}

GT_EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	int r = spin_trylock_fn(l);
	if (__builtin_expect(r != EBUSY, 1))
		return r;
	return spin_wait(l, GT_RA(), GT_CFA());
}

GT_EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	GT_RELEASE(l, pthread_spin_unlock);
	return spin_unlock_fn(l);
}
