/* heapid.h — heap object ids: short numbers for addresses (docs/heap.md).
 *
 * An object's id is written with every HeapObjectAlloc and HeapObjectFree:
 * as address / 8 it takes 7 bytes (47-bit addresses) and is most of a heap
 * event. Instead the address space is cut into regions of 256 MiB,
 * numbered in the order the process first allocates in them (a program's
 * heap lives in a handful: the brk heap, an arena per thread, mmap'd
 * blocks), and
 *
 *     id = region number << 25 | (address mod 256 MiB) / 8
 *
 * which is below 2^28 (4 bytes) for the first 8 regions, 2^41 for the first
 * 65536; past that the address itself, id = 2^60 | address / 8. Each address
 * has one id for the life of the process (numbers are never reused; a
 * forked child keeps its parent's), so readers pair frees with allocations
 * by id; the generation's info batch says min_addr 0 and align 8, which
 * makes id * 8 a unique key per address (not the address).
 *
 * Each thread keeps its last two regions (struct gt_side): an id is then a
 * shift, a compare, a mask and an or. */
#ifndef GT_HEAPID_H
#define GT_HEAPID_H

#include <stdint.h>

#include "thread.h"

/* The info batch's min_addr and align: object ids are not addresses, but
 * id * GT_HEAP_ALIGN + GT_HEAP_MIN_ADDR is a unique key per address, which
 * is what readers use. */
#define GT_HEAP_MIN_ADDR 0
#define GT_HEAP_ALIGN 8

#define GT_HEAPID_REGION_SHIFT 28
#define GT_HEAPID_OFFSET_BITS (GT_HEAPID_REGION_SHIFT - 3)
#define GT_HEAPID_MAX_REGIONS 65536
#define GT_HEAPID_RAW (1ull << 60)

/* gt_heap_id_slow: the id of addr, its region looked up (or numbered) in
 * the process's table; remembered in side (may be NULL). */
uint64_t gt_heap_id_slow(struct gt_side *side, uintptr_t addr);

/* gt_heapid_after_fork: the child of fork forgets a holder of the table's
 * lock. */
void gt_heapid_after_fork(void);

static inline uint64_t gt_heap_id(struct gt_side *side, uintptr_t addr)
{
	uint64_t r = (uint64_t)addr >> GT_HEAPID_REGION_SHIFT;
	if (__builtin_expect(side != NULL, 1)) {
		unsigned k = (unsigned)r & 1;
		if (__builtin_expect(side->heapid.key[k] == r + 1, 1))
			return side->heapid.base[k] | (((uint64_t)addr & ((1ull << GT_HEAPID_REGION_SHIFT) - 1)) >> 3);
	}
	return gt_heap_id_slow(side, addr);
}

#endif
