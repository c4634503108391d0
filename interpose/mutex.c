/* mutex.c — pthread mutexes: a wait shows as GoBlock("sync.mutex"); an
 * uncontended lock records nothing.
 *
 * pthread_mutex_lock is a fast half (the real trylock, return when it did
 * not say EBUSY) and a slow half that records the wait; unlock checks for a
 * traced waiter with one load and jumps to the real unlock (interpose.h). */
#include <pthread.h>

#include "../core/deadlock.h"
#include "interpose.h"
#include "../core/holder.h"

GT_REAL_FN(mutex_trylock, int, (pthread_mutex_t * m), (m))
GT_REAL_FN(mutex_unlock, int, (pthread_mutex_t * m), (m))

/* lock_wait: the trylock said EBUSY; wait in the real call, as a block when
 * the thread is traced. ra and cfa: the exported wrapper's. */
GT_SLOW static int lock_wait(pthread_mutex_t *m, uintptr_t ra, uintptr_t cfa)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(mutex_lock)(m);
	gt_holder_mutex(t, m, GT_SITE_AT(pthread_mutex_lock, ra, cfa));
	int blocked = gt_block(t, GT_STR_SYNC_MUTEX, GT_SITE_AT(pthread_mutex_lock, ra, cfa), (uintptr_t)m);
	/* A single-threaded program re-locking a mutex it holds: core/deadlock.h. */
	int r = blocked && gt_deadlock_self_held(m, t->m) ? gt_deadlock_relock(m) : GT_REAL(mutex_lock)(m);
	if (blocked)
		gt_unblock(t, r == 0 || r == EOWNERDEAD);
	return r;
}

GT_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	int r = mutex_trylock_fn(m);
	if (__builtin_expect(r != EBUSY, 1))
		return r;
	return lock_wait(m, GT_RA(), GT_CFA());
}

GT_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(mutex_timedlock)(m, abstime);
	int r = mutex_trylock_fn(m);
	if (r != EBUSY)
		return r;
	gt_holder_mutex(t, m, GT_SITE(pthread_mutex_timedlock));
	t->wait_timed = 1; /* core/deadlock.h */
	int blocked = gt_block(t, GT_STR_SYNC_MUTEX, GT_SITE(pthread_mutex_timedlock), (uintptr_t)m);
	r = GT_REAL(mutex_timedlock)(m, abstime);
	t->wait_timed = 0;
	if (blocked)
		gt_unblock(t, r == 0 || r == EOWNERDEAD);
	return r;
}

GT_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abstime)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(mutex_clocklock)(m, clk, abstime);
	int r = mutex_trylock_fn(m);
	if (r != EBUSY)
		return r;
	gt_holder_mutex(t, m, GT_SITE(pthread_mutex_clocklock));
	t->wait_timed = 1; /* core/deadlock.h */
	int blocked = gt_block(t, GT_STR_SYNC_MUTEX, GT_SITE(pthread_mutex_clocklock), (uintptr_t)m);
	r = GT_REAL(mutex_clocklock)(m, clk, abstime);
	t->wait_timed = 0;
	if (blocked)
		gt_unblock(t, r == 0 || r == EOWNERDEAD);
	return r;
}

GT_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	GT_RELEASE(m, pthread_mutex_unlock);
	return mutex_unlock_fn(m);
}
