/* region.h — a bump allocator over mmap'd blocks, dropped wholesale.
 *
 * The per-generation tables live in regions: nothing in them is freed one
 * by one, and a generation's memory goes back in one reset. Never calls
 * malloc, so it is safe on any application thread. Not thread-safe: the
 * owner serializes access. */
#ifndef GT_REGION_H
#define GT_REGION_H

#include <stddef.h>

struct gt_region_block;

struct gt_region {
	struct gt_region_block *head; /* newest block first */
};

/* gt_region_alloc returns n bytes aligned to 16, or NULL when mmap fails. */
void *gt_region_alloc(struct gt_region *r, size_t n);

/* gt_region_reset frees everything; the first block is kept for reuse. */
void gt_region_reset(struct gt_region *r);

/* gt_map / gt_unmap: anonymous private memory straight from the kernel. */
void *gt_map(size_t n);
void gt_unmap(void *p, size_t n);

#endif
