/* realalloc.h — the real allocator: one pointer per row of GT_ALLOC_TABLE
 * (core/real_table.h), and the bootstrap arena that serves allocations
 * while the pointers are being found.
 *
 * Looking the real functions up with dlsym may itself allocate. So every
 * pointer starts at a stub that resolves them all (or, while that is under
 * way, serves the static arena) and is then the real function, or the
 * row's fallback: callers (interpose/malloc.c's fast halves, core/mem.c)
 * call through them without a check. An arena block is never passed to
 * the real free: its address is marked in the free filter (core/heapset.h),
 * so the exported free takes its slow half, which asks gt_alloc_in_arena. */
#ifndef GT_REALALLOC_H
#define GT_REALALLOC_H

#include <stddef.h>

#include "real_table.h"

#define GT_ALLOC_FIELD(field, symbol, version, ret, params) ret(*field) params;
#define GT_ALLOC_FIELD_WANT(field, symbol, version, ret, params, missing) ret(*field) params;
struct gt_alloc {
	GT_ALLOC_TABLE(GT_ALLOC_FIELD, GT_ALLOC_FIELD_WANT)
};
#undef GT_ALLOC_FIELD
#undef GT_ALLOC_FIELD_WANT

/* Hidden in the declaration too: one PC-relative load per call, no GOT. */
extern struct gt_alloc gt_alloc __attribute__((visibility("hidden")));

/* GT_ALLOC(f): the real allocator's f, called without a check (a stub until
 * resolved), as GT_REAL(f) is the real libc's f. */
#define GT_ALLOC(f) (gt_alloc.f)

#define GT_ARENA_SIZE (256 * 1024)
extern unsigned char gt_alloc_arena[GT_ARENA_SIZE] __attribute__((visibility("hidden")));

/* gt_alloc_in_arena: p is a block of the bootstrap arena. */
static inline int gt_alloc_in_arena(const void *p)
{
	return (const unsigned char *)p >= gt_alloc_arena && (const unsigned char *)p < gt_alloc_arena + GT_ARENA_SIZE;
}

/* gt_alloc_arena_size: the size asked for arena block p. */
static inline size_t gt_alloc_arena_size(const void *p)
{
	return ((const size_t *)p)[-1];
}

/* gt_alloc_arena_copy: realloc of arena block p into q, a new block of n
 * bytes (or NULL): the bytes both hold are copied; returns q. */
void *gt_alloc_arena_copy(void *q, const void *p, size_t n);

/* gt_alloc_resolve: 1 once the real functions are known; 0 while another
 * thread (or dlsym itself) is finding them. Aborts with a message when one
 * of the required four is missing. */
int gt_alloc_resolve(void);

#endif
