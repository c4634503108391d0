/* rwlock.c — pthread read-write locks: waits show as GoBlock("sync.rwlock"). */
#include <pthread.h>

#include "interpose.h"
#include "../core/holder.h"

GT_REAL_FN(rwlock_tryrdlock, int, (pthread_rwlock_t * l), (l))
GT_REAL_FN(rwlock_trywrlock, int, (pthread_rwlock_t * l), (l))
GT_REAL_FN(rwlock_unlock, int, (pthread_rwlock_t * l), (l))

/* One wait on a rwlock: try first, block only when that would wait. */
#define RW_WAIT(site, try_fn, call)                                         \
	do {                                                                \
		struct gt_thread *t = gt_enter();                           \
		if (!t)                                                     \
			return call;                                        \
		int r = try_fn##_fn(l);                                     \
		if (r != EBUSY)                                             \
			return r;                                           \
		gt_holder_rwlock(t, l, GT_SITE(site));                     \
		t->wait_timed = 1; /* only timed locks: core/deadlock.h */ \
		int blocked = gt_block(t, GT_STR_SYNC_RWLOCK, GT_SITE(site), (uintptr_t)l); \
		r = call;                                                   \
		t->wait_timed = 0;                                          \
		if (blocked)                                                      \
			gt_unblock(t, r == 0);                                           \
		return r;                                                   \
	} while (0)

/* rdlock and wrlock: a fast half that returns when the try succeeds and a
 * slow half that records the wait (interpose.h). */
GT_SLOW static int rw_wait(pthread_rwlock_t *l, int write, uintptr_t ra, uintptr_t cfa)
{
	int (*lock)(pthread_rwlock_t *) = write ? GT_REAL(rwlock_wrlock) : GT_REAL(rwlock_rdlock);
	struct gt_thread *t = gt_enter();
	if (!t)
		return lock(l);
	uintptr_t site = write ? GT_FN(pthread_rwlock_wrlock) : GT_FN(pthread_rwlock_rdlock);
	gt_holder_rwlock(t, l, gt_site_at(site, ra, cfa));
	int blocked = gt_block(t, GT_STR_SYNC_RWLOCK, gt_site_at(site, ra, cfa), (uintptr_t)l);
	int r = lock(l);
	if (blocked)
		gt_unblock(t, r == 0);
	return r;
}

GT_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	int r = rwlock_tryrdlock_fn(l);
	if (__builtin_expect(r != EBUSY, 1))
		return r;
	return rw_wait(l, 0, GT_RA(), GT_CFA());
}

GT_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	RW_WAIT(pthread_rwlock_timedrdlock, rwlock_tryrdlock, GT_REAL(rwlock_timedrdlock)(l, abstime));
}

GT_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk, const struct timespec *abstime)
{
	RW_WAIT(pthread_rwlock_clockrdlock, rwlock_tryrdlock, GT_REAL(rwlock_clockrdlock)(l, clk, abstime));
}

GT_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	int r = rwlock_trywrlock_fn(l);
	if (__builtin_expect(r != EBUSY, 1))
		return r;
	return rw_wait(l, 1, GT_RA(), GT_CFA());
}

GT_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime)
{
	RW_WAIT(pthread_rwlock_timedwrlock, rwlock_trywrlock, GT_REAL(rwlock_timedwrlock)(l, abstime));
}

GT_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk, const struct timespec *abstime)
{
	RW_WAIT(pthread_rwlock_clockwrlock, rwlock_trywrlock, GT_REAL(rwlock_clockwrlock)(l, clk, abstime));
}

GT_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	GT_RELEASE(l, pthread_rwlock_unlock);
	return rwlock_unlock_fn(l);
}
