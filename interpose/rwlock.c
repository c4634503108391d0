/* rwlock.c — pthread read-write locks: waits show as GoBlock("sync.rwlock"). */
#include <pthread.h>

#include "interpose.h"

/* One wait on a rwlock: try first, block only when that would wait. */
#define RW_WAIT(site, try_fn, call)                                         \
	do {                                                                \
		struct gt_thread *t = gt_enter();                           \
		if (!t)                                                     \
			return call;                                        \
		int r = GT_REAL(try_fn)(l);                                 \
		if (r != EBUSY)                                             \
			return r;                                           \
		int blocked = gt_block(t, GT_STR_SYNC_RWLOCK, GT_SITE(site), (uintptr_t)l); \
		r = call;                                                   \
		if (blocked)                                                      \
			gt_unblock(t, r == 0);                                           \
		return r;                                                   \
	} while (0)

GT_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	RW_WAIT(pthread_rwlock_rdlock, rwlock_tryrdlock, GT_REAL(rwlock_rdlock)(l));
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
	RW_WAIT(pthread_rwlock_wrlock, rwlock_trywrlock, GT_REAL(rwlock_wrlock)(l));
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
	if (gt_enter())
		gt_release((uintptr_t)l, GT_SITE(pthread_rwlock_unlock), GT_CALLER());
	return GT_REAL(rwlock_unlock)(l);
}
