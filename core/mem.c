/* mem.c — the core's allocations in the library: the real allocator
 * (core/mem.h). */
#include "mem.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "realalloc.h"
#include "thread.h"
#include "tracer.h"

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

void gt_mem_free_returned(void *p)
{
	static void (*program_free)(void *);
	if (!p)
		return;
	if (!gt.foreign_malloc) {
		gt_mem_free(p);
		return;
	}
	void (*f)(void *) = __atomic_load_n(&program_free, __ATOMIC_ACQUIRE);
	if (!f) {
		/* the first definition in the global scope: the program's */
		f = (void (*)(void *))dlsym(RTLD_DEFAULT, "free");
		if (!f || ((uintptr_t)f >= gt.self_lo && (uintptr_t)f < gt.self_hi)) {
			gt_mem_free(p);
			return;
		}
		__atomic_store_n(&program_free, f, __ATOMIC_RELEASE);
	}
	gt_self.inside++;
	f(p);
	gt_self.inside--;
}

char *gt_mem_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = gt_mem_alloc(n);
	return d ? memcpy(d, s, n) : NULL;
}
