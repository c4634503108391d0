/* lock.h — a small futex mutex for the tracer's own data.
 *
 * The tracer never uses the application's pthread functions for its own
 * locking: they are interposed, and their state would not be ours to reset
 * after fork. States: 0 free, 1 held, 2 held with waiters. */
#ifndef GT_LOCK_H
#define GT_LOCK_H

#include <stdatomic.h>

#include "sys.h"

typedef struct {
	_Atomic int v;
} gt_lock_t;

#define GT_LOCK_INIT { 0 }

void gt_lock_slow(gt_lock_t *l);

static inline void gt_lock(gt_lock_t *l)
{
	int c = 0;
	if (__builtin_expect(atomic_compare_exchange_strong_explicit(&l->v, &c, 1, memory_order_acquire,
								      memory_order_relaxed), 1))
		return;
	gt_lock_slow(l);
}

/* gt_trylock takes l if it is free; 1 when taken. Never waits. */
static inline int gt_trylock(gt_lock_t *l)
{
	int c = 0;
	return atomic_compare_exchange_strong_explicit(&l->v, &c, 1, memory_order_acquire, memory_order_relaxed);
}

static inline void gt_unlock(gt_lock_t *l)
{
	if (atomic_exchange_explicit(&l->v, 0, memory_order_release) == 2)
		gt_futex_wake(&l->v, 1);
}

/* gt_lock_reset forgets any holder: only for the single thread of a child
 * right after fork. */
static inline void gt_lock_reset(gt_lock_t *l) { atomic_store_explicit(&l->v, 0, memory_order_relaxed); }

#endif
