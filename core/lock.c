/* lock.c — the tracer's lock (lock.h): its slow path, a short spin and
 * then a futex wait. */
#include "lock.h"

void gt_lock_slow(gt_lock_t *l)
{
	for (int spin = 0; spin < 100; spin++) {
		int c = 0;
		if (atomic_compare_exchange_weak_explicit(&l->v, &c, 1, memory_order_acquire, memory_order_relaxed))
			return;
		__builtin_ia32_pause();
	}
	while (atomic_exchange_explicit(&l->v, 2, memory_order_acquire) != 0)
		gt_futex_wait(&l->v, 2, NULL);
}
