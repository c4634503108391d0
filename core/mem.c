/* mem.c — the core's allocations in the library: the tracer's own heap
 * (core/ownheap.h), the real allocator when it is full (core/mem.h). */
#include "mem.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "ownheap.h"
#include "realalloc.h"
#include "thread.h"
#include "tracer.h"

void *gt_mem_alloc(size_t n)
{
	void *p = gt_own_alloc(n, 16);
	if (p)
		return p;
	gt_self.inside++;
	p = GT_ALLOC(malloc)(n);
	gt_self.inside--;
	return p;
}

void *gt_mem_calloc(size_t n, size_t size)
{
	void *p = gt_own_calloc(n, size);
	if (p)
		return p;
	gt_self.inside++;
	p = GT_ALLOC(calloc)(n, size);
	gt_self.inside--;
	return p;
}

void *gt_mem_realloc(void *p, size_t n)
{
	if (!p)
		return gt_mem_alloc(n);
	if (gt_own_contains(p)) {
		void *q = gt_own_realloc(p, n);
		if (q || !n)
			return q;
		/* The own heap is full: move the block to the real allocator. */
		gt_self.inside++;
		q = GT_ALLOC(malloc)(n);
		gt_self.inside--;
		if (q) {
			size_t had = gt_own_size(p);
			memcpy(q, p, had < n ? had : n);
			gt_own_free(p);
		}
		return q;
	}
	gt_self.inside++;
	void *q = gt_alloc_in_arena(p) ? gt_alloc_arena_copy(GT_ALLOC(malloc)(n), p, n) : GT_ALLOC(realloc)(p, n);
	gt_self.inside--;
	return q;
}

void gt_mem_free(void *p)
{
	if (!p || gt_alloc_in_arena(p))
		return;
	if (gt_own_contains(p)) {
		gt_own_free(p);
		return;
	}
	gt_self.inside++;
	GT_ALLOC(free)(p);
	gt_self.inside--;
}

/* The process's malloc, when the preload layer has said which it is. */
static void *(*handover_alloc)(size_t);

void gt_mem_set_handover(void *(*alloc)(size_t))
{
	handover_alloc = alloc;
}

char *gt_mem_handover_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d;
	if (handover_alloc) {
		d = handover_alloc(n);
	} else {
		gt_self.inside++;
		d = GT_ALLOC(malloc)(n);
		gt_self.inside--;
	}
	return d ? memcpy(d, s, n) : NULL;
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
