/* cond.c — condition variables (the GLIBC_2.3.2 ABI): every wait is a
 * GoBlock("sync.cond"); signal and broadcast leave a wake record. */
#include <pthread.h>

#include "interpose.h"

GT_REAL_FN(cond_signal, int, (pthread_cond_t * c), (c))
GT_REAL_FN(cond_broadcast, int, (pthread_cond_t * c), (c))

GT_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(cond_wait)(c, m);
	int blocked = gt_block(t, GT_STR_SYNC_COND, GT_SITE(pthread_cond_wait), (uintptr_t)c);
	int r = GT_REAL(cond_wait)(c, m);
	if (blocked)
		gt_unblock(t, r == 0);
	return r;
}

GT_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(cond_timedwait)(c, m, abstime);
	t->wait_timed = 1; /* core/deadlock.h */
	int blocked = gt_block(t, GT_STR_SYNC_COND, GT_SITE(pthread_cond_timedwait), (uintptr_t)c);
	int r = GT_REAL(cond_timedwait)(c, m, abstime);
	t->wait_timed = 0;
	if (blocked)
		gt_unblock(t, r == 0);
	return r;
}

GT_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				     const struct timespec *abstime)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(cond_clockwait)(c, m, clk, abstime);
	t->wait_timed = 1; /* core/deadlock.h */
	int blocked = gt_block(t, GT_STR_SYNC_COND, GT_SITE(pthread_cond_clockwait), (uintptr_t)c);
	int r = GT_REAL(cond_clockwait)(c, m, clk, abstime);
	t->wait_timed = 0;
	if (blocked)
		gt_unblock(t, r == 0);
	return r;
}

GT_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	GT_RELEASE(c, pthread_cond_signal);
	return cond_signal_fn(c);
}

GT_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	GT_RELEASE(c, pthread_cond_broadcast);
	return cond_broadcast_fn(c);
}
