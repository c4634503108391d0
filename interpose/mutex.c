/* mutex.c — pthread mutexes: a wait shows as GoBlock("sync.mutex"); an
 * uncontended lock records nothing. */
#include <pthread.h>

#include "interpose.h"

GT_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(mutex_lock)(m);
	int r = GT_REAL(mutex_trylock)(m);
	if (r != EBUSY)
		return r;
	int blocked = gt_block(t, GT_STR_SYNC_MUTEX, GT_SITE(pthread_mutex_lock), (uintptr_t)m);
	r = GT_REAL(mutex_lock)(m);
	if (blocked)
		gt_unblock(t, r == 0 || r == EOWNERDEAD);
	return r;
}

GT_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(mutex_timedlock)(m, abstime);
	int r = GT_REAL(mutex_trylock)(m);
	if (r != EBUSY)
		return r;
	int blocked = gt_block(t, GT_STR_SYNC_MUTEX, GT_SITE(pthread_mutex_timedlock), (uintptr_t)m);
	r = GT_REAL(mutex_timedlock)(m, abstime);
	if (blocked)
		gt_unblock(t, r == 0 || r == EOWNERDEAD);
	return r;
}

GT_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abstime)
{
	struct gt_thread *t = gt_enter();
	if (!t || !gt_real.mutex_clocklock)
		return GT_REAL(mutex_clocklock)(m, clk, abstime);
	int r = GT_REAL(mutex_trylock)(m);
	if (r != EBUSY)
		return r;
	int blocked = gt_block(t, GT_STR_SYNC_MUTEX, GT_SITE(pthread_mutex_clocklock), (uintptr_t)m);
	r = gt_real.mutex_clocklock(m, clk, abstime);
	if (blocked)
		gt_unblock(t, r == 0 || r == EOWNERDEAD);
	return r;
}

GT_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (gt_enter())
		gt_release((uintptr_t)m, GT_SITE(pthread_mutex_unlock), GT_CALLER());
	return GT_REAL(mutex_unlock)(m);
}
