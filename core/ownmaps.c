/* ownmaps.c — the tracer's own mappings (ownmaps.h). */
#include "ownmaps.h"

#include <stdatomic.h>

static struct {
	_Atomic uintptr_t base; /* 0: free */
	_Atomic uintptr_t len;
} slot[GT_OWNMAPS];
static _Atomic size_t used; /* slots below this index may be taken */

void gt_ownmaps_add(void *p, size_t len)
{
	uintptr_t b = (uintptr_t)p;
	if (!b || !len)
		return;
	size_t u = atomic_load_explicit(&used, memory_order_relaxed);
	for (size_t i = 0; i < GT_OWNMAPS; i++) {
		uintptr_t z = 0;
		if (atomic_load_explicit(&slot[i].base, memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_strong(&slot[i].base, &z, UINTPTR_MAX)) {
			atomic_store_explicit(&slot[i].len, len, memory_order_relaxed);
			atomic_store_explicit(&slot[i].base, b, memory_order_release);
			while (u <= i && !atomic_compare_exchange_weak(&used, &u, i + 1))
				;
			return;
		}
	}
}

void gt_ownmaps_del(void *p)
{
	uintptr_t b = (uintptr_t)p;
	size_t u = atomic_load_explicit(&used, memory_order_acquire);
	for (size_t i = 0; i < u; i++) {
		uintptr_t x = b;
		if (atomic_compare_exchange_strong(&slot[i].base, &x, 0))
			return;
	}
}

size_t gt_ownmaps_copy(uintptr_t *out, size_t max)
{
	size_t n = 0, u = atomic_load_explicit(&used, memory_order_acquire);
	for (size_t i = 0; i < u && n < max; i++) {
		uintptr_t b = atomic_load_explicit(&slot[i].base, memory_order_acquire);
		if (b == 0 || b == UINTPTR_MAX)
			continue;
		uintptr_t lo = b, hi = (b + atomic_load_explicit(&slot[i].len, memory_order_relaxed) + 4095) & ~(uintptr_t)4095;
		size_t k = n++; /* insertion: the set is small */
		while (k > 0 && out[2 * (k - 1)] > lo) {
			out[2 * k] = out[2 * (k - 1)];
			out[2 * k + 1] = out[2 * (k - 1) + 1];
			k--;
		}
		out[2 * k] = lo;
		out[2 * k + 1] = hi;
	}
	return n;
}
