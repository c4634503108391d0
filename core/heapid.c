/* heapid.c — the process's numbering of heap regions (heapid.h). */
#include "heapid.h"

#include <stdatomic.h>

#include "lock.h"

/* Open addressing over region keys: slot = key + 1 << 16 | number (0:
 * empty). Written under lock (numbers in order), read without it. */
#define SLOTS (2 * GT_HEAPID_MAX_REGIONS)
static _Atomic uint64_t slots[SLOTS];
static uint32_t count; /* under lock */
static gt_lock_t lock = GT_LOCK_INIT;

static inline uint32_t home(uint64_t r)
{
	return (uint32_t)((r * 0x9e3779b97f4a7c15ull) >> 47) & (SLOTS - 1);
}

/* number: the region's number, or -1 when the table is full. */
static int64_t number(uint64_t r)
{
	uint64_t want = r + 1;
	uint32_t i = home(r);
	for (;;) {
		uint64_t v = atomic_load_explicit(&slots[i], memory_order_acquire);
		if (!v)
			break;
		if (v >> 16 == want)
			return (int64_t)(v & 0xffff);
		i = (i + 1) & (SLOTS - 1);
	}
	/* New: number it under the lock (another thread may have). The
	 * caller is inside the tracer; nothing else takes this lock. */
	int64_t n = -1;
	gt_lock(&lock);
	for (i = home(r);; i = (i + 1) & (SLOTS - 1)) {
		uint64_t v = atomic_load_explicit(&slots[i], memory_order_relaxed);
		if (!v) {
			if (count < GT_HEAPID_MAX_REGIONS) {
				n = count++;
				atomic_store_explicit(&slots[i], want << 16 | (uint64_t)n, memory_order_release);
			}
			break;
		}
		if (v >> 16 == want) {
			n = (int64_t)(v & 0xffff);
			break;
		}
	}
	gt_unlock(&lock);
	return n;
}

uint64_t gt_heap_id_slow(struct gt_side *side, uintptr_t addr)
{
	uint64_t r = (uint64_t)addr >> GT_HEAPID_REGION_SHIFT;
	int64_t n = number(r);
	if (n < 0)
		return GT_HEAPID_RAW | (uint64_t)addr >> 3;
	uint64_t base = (uint64_t)n << GT_HEAPID_OFFSET_BITS;
	if (side) {
		unsigned k = (unsigned)r & 1;
		side->heapid.base[k] = base;
		side->heapid.key[k] = r + 1;
	}
	return base | (((uint64_t)addr & ((1ull << GT_HEAPID_REGION_SHIFT) - 1)) >> 3);
}

void gt_heapid_after_fork(void)
{
	gt_lock_reset(&lock);
}
