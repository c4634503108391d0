/* heap.h — heap events (AllocFree experiment, docs/heap.md): what the malloc
 * wrappers call after an allocation and before a free. */
#ifndef GT_HEAP_H
#define GT_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "emit.h"

/* Object ids: (address - GT_HEAP_MIN_ADDR) / GT_HEAP_ALIGN. */
#define GT_HEAP_MIN_ADDR 0
#define GT_HEAP_ALIGN 8
/* The HeapAlloc metric is written at most this often. */
#define GT_HEAP_METRIC_NS 10000000ull

/* gt_heap_enter: like gt_enter, and heap events are on (GOTRACE_MALLOC). */
static inline struct gt_thread *gt_heap_enter(void)
{
	struct gt_thread *t = gt_enter();
	return t && gt.malloc_events ? t : NULL;
}

/* gt_heap_alloc and gt_heap_free: pre: the caller raised t->inside once
 * (interpose/malloc.c holds it raised across the real allocator call). */

/* gt_heap_alloc: p (usable_size bytes) was allocated for size bytes by the
 * allocation function at site, called from return address ra with CFA cfa
 * (GT_RA, GT_CFA in the wrapper: the remembered stack's key). */
void gt_heap_alloc(struct gt_thread *t, void *p, size_t size, size_t usable_size, uintptr_t site, uintptr_t ra,
		   uintptr_t cfa);

/* gt_heap_free: p (usable_size bytes) is about to be freed. */
void gt_heap_free(struct gt_thread *t, void *p, size_t usable_size);

/* gt_heap_check_allocator: at start, say in one line when another
 * allocator's malloc comes before ours (heap events cannot be recorded):
 * the program's own (said by the run's first process only) or a library
 * preloaded ahead of ours. */
void gt_heap_check_allocator(int later_image);

#endif
