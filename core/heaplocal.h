/* heaplocal.h — the heap module's per-thread state (core/heap.c), kept in
 * the thread's side area (struct gt_side, core/thread.h): the thread's own
 * type table, a cache in front of the generation's (core/typetab.h). */
#ifndef GT_HEAPLOCAL_H
#define GT_HEAPLOCAL_H

#include <stdint.h>

/* A thread's (requested size, stack id) -> type id table for one
 * generation: an open-addressing hash table that only grows within a
 * generation and empties itself when the generation changes (an entry
 * counts only when its epoch is the table's). */
struct gt_type_slot {
	uint32_t epoch, size, stack, id;
};

struct gt_type_local {
	uint64_t gen;        /* the generation the live entries belong to */
	uint32_t epoch;      /* bumped when gen changes: every entry is stale */
	uint32_t count;      /* live entries */
	uint32_t mask;       /* slots - 1, 0 before the first use */
	struct gt_type_slot *slots; /* mmap'd */
};

#endif
