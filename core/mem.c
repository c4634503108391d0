/* mem.c — the core's allocations in the library: the real allocator
 * (core/mem.h). */
#include "mem.h"

#include <string.h>

#include "realalloc.h"
#include "thread.h"

void *gt_mem_alloc(size_t n)
{
	gt_self.inside++;
	void *p = GT_ALLOC(malloc)(n);
	gt_self.inside--;
	return p;
}

void *gt_mem_calloc(size_t n, size_t size)
{
	gt_self.inside++;
	void *p = GT_ALLOC(calloc)(n, size);
	gt_self.inside--;
	return p;
}

void *gt_mem_realloc(void *p, size_t n)
{
	gt_self.inside++;
	void *q = p && gt_alloc_in_arena(p) ? gt_alloc_arena_copy(GT_ALLOC(malloc)(n), p, n)
					    : GT_ALLOC(realloc)(p, n);
	gt_self.inside--;
	return q;
}

void gt_mem_free(void *p)
{
	if (!p || gt_alloc_in_arena(p))
		return;
	gt_self.inside++;
	GT_ALLOC(free)(p);
	gt_self.inside--;
}

char *gt_mem_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = gt_mem_alloc(n);
	return d ? memcpy(d, s, n) : NULL;
}
