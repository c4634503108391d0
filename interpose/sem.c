/* sem.c — POSIX semaphores: a wait shows as GoBlock("sync.semaphore");
 * sem_post leaves a wake record. errno is exactly as untraced. */
#include <semaphore.h>

#include "interpose.h"

GT_REAL_FN(sem_post, int, (sem_t * s), (s))

/* One wait: try first (restoring errno when that would block), then block. */
#define SEM_WAIT(site, call)                                                 \
	do {                                                                 \
		struct gt_thread *t = gt_enter();                            \
		if (!t)                                                      \
			return call;                                         \
		int saved = errno;                                           \
		if (GT_REAL(sem_trywait)(s) == 0)                            \
			return 0;                                            \
		if (errno != EAGAIN)                                         \
			return call;                                         \
		errno = saved;                                               \
		int blocked = gt_block(t, GT_STR_SYNC_SEM, GT_SITE(site), (uintptr_t)s);   \
		int r = call;                                                \
		if (blocked)                                                      \
			gt_unblock(t, r == 0);                                           \
		return r;                                                    \
	} while (0)

GT_EXPORT int sem_wait(sem_t *s)
{
	SEM_WAIT(sem_wait, GT_REAL(sem_wait)(s));
}

GT_EXPORT int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
	SEM_WAIT(sem_timedwait, GT_REAL(sem_timedwait)(s, abstime));
}

GT_EXPORT int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abstime)
{
	SEM_WAIT(sem_clockwait, GT_REAL(sem_clockwait)(s, clk, abstime));
}

GT_EXPORT int sem_post(sem_t *s)
{
	GT_RELEASE(s, sem_post);
	return sem_post_fn(s);
}
