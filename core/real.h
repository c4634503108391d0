/* real.h — the real libc functions behind every interposed one.
 *
 * Resolved in one place (gt_real_resolve), once, from the library's
 * constructor or from the first wrapper called before it (another library's
 * constructor may run first). A missing required symbol aborts with a
 * message: a wrapper that cannot call through has no honest way to go on. */
#ifndef GT_REAL_H
#define GT_REAL_H

#include <pthread.h>
#include <semaphore.h>
#include <time.h>

struct gt_real {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*pthread_join)(pthread_t, void **);
	int (*pthread_tryjoin_np)(pthread_t, void **);
	int (*pthread_timedjoin_np)(pthread_t, void **, const struct timespec *);
	int (*pthread_clockjoin_np)(pthread_t, void **, clockid_t, const struct timespec *);
	int (*pthread_setname_np)(pthread_t, const char *);

	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);

	int (*rwlock_rdlock)(pthread_rwlock_t *);
	int (*rwlock_tryrdlock)(pthread_rwlock_t *);
	int (*rwlock_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rwlock_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rwlock_wrlock)(pthread_rwlock_t *);
	int (*rwlock_trywrlock)(pthread_rwlock_t *);
	int (*rwlock_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rwlock_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rwlock_unlock)(pthread_rwlock_t *);

	int (*spin_lock)(pthread_spinlock_t *);
	int (*spin_trylock)(pthread_spinlock_t *);
	int (*spin_unlock)(pthread_spinlock_t *);

	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);

	int (*barrier_wait)(pthread_barrier_t *);

	int (*sem_wait)(sem_t *);
	int (*sem_trywait)(sem_t *);
	int (*sem_timedwait)(sem_t *, const struct timespec *);
	int (*sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
	int (*sem_post)(sem_t *);

	int (*nanosleep)(const struct timespec *, struct timespec *);
	int (*clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);
	int (*usleep)(useconds_t);
	unsigned (*sleep)(unsigned);
	int (*sched_yield)(void);
};

extern struct gt_real gt_real;

/* gt_real_resolve fills gt_real; idempotent and thread-safe. */
void gt_real_resolve(void);

/* GT_REAL(f): the real function f, resolving first if needed. */
#define GT_REAL(f) (__builtin_expect(gt_real.f != NULL, 1) ? gt_real.f : (gt_real_resolve(), gt_real.f))

#endif
