/* malloc.c — the malloc family as heap events (core/heap.h, docs/heap.md).
 *
 * The real functions are the next definitions after this library (glibc's,
 * or an allocator the program loads, such as jemalloc). Looking them up with
 * dlsym may itself allocate; until they are known, allocations come from a
 * static bootstrap arena, whose blocks are never passed to the real free. */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/heap.h"
#include "interpose.h"

static struct {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void (*free_sized)(void *, size_t);
	void (*free_aligned_sized)(void *, size_t, size_t);
	size_t (*usable)(void *);
} real;

/* --- bootstrap arena ------------------------------------------------------ */

#define ARENA_SIZE (256 * 1024)
static _Alignas(64) unsigned char arena[ARENA_SIZE];
static _Atomic size_t arena_used;

/* Each block: a 16-byte header holding its size, then the (zeroed) data. */
static void *arena_alloc(size_t n, size_t align)
{
	if (align < 16)
		align = 16;
	size_t need = ((n + 15) & ~(size_t)15) + 16 + align;
	size_t at = atomic_fetch_add(&arena_used, need);
	if (at + need > ARENA_SIZE)
		return NULL;
	uintptr_t p = ((uintptr_t)arena + at + 16 + align - 1) & ~(uintptr_t)(align - 1);
	((size_t *)p)[-1] = n;
	return (void *)p;
}

static int in_arena(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA_SIZE;
}

static _Atomic int resolving;

/* resolve fills `real`; 0 while another thread (or dlsym itself) is at it. */
static int resolve(void)
{
	if (__atomic_load_n(&real.malloc, __ATOMIC_ACQUIRE))
		return 1;
	if (atomic_exchange(&resolving, 1))
		return 0;
	real.calloc = dlsym(RTLD_NEXT, "calloc");
	real.realloc = dlsym(RTLD_NEXT, "realloc");
	real.free = dlsym(RTLD_NEXT, "free");
	real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	real.memalign = dlsym(RTLD_NEXT, "memalign");
	real.valloc = dlsym(RTLD_NEXT, "valloc");
	real.pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	real.free_sized = dlsym(RTLD_NEXT, "free_sized");
	real.free_aligned_sized = dlsym(RTLD_NEXT, "free_aligned_sized");
	real.usable = dlsym(RTLD_NEXT, "malloc_usable_size");
	__atomic_store_n(&real.malloc, dlsym(RTLD_NEXT, "malloc"), __ATOMIC_RELEASE);
	if (!real.malloc || !real.free || !real.calloc || !real.realloc) {
		static const char msg[] = "gotrace: cannot find the real malloc/free\n";
		(void)!write(2, msg, sizeof msg - 1);
		abort();
	}
	return 1;
}

static size_t usable(void *p)
{
	return real.usable ? real.usable(p) : 0;
}

/* --- recording ------------------------------------------------------------ */

/* Every real allocator call runs with the thread's `inside` raised, traced
 * or passing through (a thread past its end, the tracer's own calls): a
 * signal handler that interrupts it must neither record (its calls pass
 * through) nor switch a generation on this thread (the switch allocates:
 * core/inline.h). enter() raises it and says whether to record. */
static inline struct gt_thread *enter(int *rec)
{
	struct gt_thread *t = &gt_self;
	*rec = t->inside == 0 && atomic_load_explicit(&gt.on, memory_order_relaxed) && gt.malloc_events;
	t->inside++;
	return t;
}

static inline void leave(struct gt_thread *t)
{
	t->inside--;
}

/* allocated records p (when rec) and leaves; site, ra, cfa: the wrapper,
 * its return address and CFA (GT_ALLOCATED passes them). */
static void *allocated(struct gt_thread *t, int rec, void *p, size_t size, uintptr_t site, uintptr_t ra,
		       uintptr_t cfa)
{
	if (rec && p)
		gt_heap_alloc(t, p, size, usable(p), site, ra, cfa);
	leave(t);
	return p;
}
#define GT_ALLOCATED(t, rec, p, size, fn) allocated((t), (rec), (p), (size), GT_FN(fn), GT_RA(), GT_CFA())

/* freeing records the free of p before the real call (the thread stays
 * raised until leave() after it). */
static struct gt_thread *freeing(void *p)
{
	int rec;
	struct gt_thread *t = enter(&rec);
	if (rec)
		gt_heap_free(t, p, usable(p));
	return t;
}

/* --- the wrappers ----------------------------------------------------------- */

GT_EXPORT void *malloc(size_t n)
{
	if (!real.malloc && !resolve())
		return arena_alloc(n, 16);
	int rec;
	struct gt_thread *t = enter(&rec);
	return GT_ALLOCATED(t, rec, real.malloc(n), n, malloc);
}

GT_EXPORT void *calloc(size_t n, size_t size)
{
	if (!real.malloc && !resolve()) {
		if (size && n > SIZE_MAX / size)
			return NULL;
		return arena_alloc(n * size, 16); /* static memory: already zero */
	}
	int rec;
	struct gt_thread *t = enter(&rec);
	return GT_ALLOCATED(t, rec, real.calloc(n, size), n * size, calloc);
}

GT_EXPORT void free(void *p)
{
	if (!p || in_arena(p))
		return;
	if (!real.malloc)
		resolve();
	struct gt_thread *t = freeing(p);
	real.free(p);
	leave(t);
}

GT_EXPORT void free_sized(void *p, size_t n)
{
	if (!p || in_arena(p))
		return;
	if (!real.malloc)
		resolve();
	struct gt_thread *t = freeing(p);
	if (real.free_sized)
		real.free_sized(p, n);
	else
		real.free(p);
	leave(t);
}

GT_EXPORT void free_aligned_sized(void *p, size_t align, size_t n)
{
	if (!p || in_arena(p))
		return;
	if (!real.malloc)
		resolve();
	struct gt_thread *t = freeing(p);
	if (real.free_aligned_sized)
		real.free_aligned_sized(p, align, n);
	else
		real.free(p);
	leave(t);
}

static void *arena_realloc(void *p, size_t n)
{
	size_t old = ((size_t *)p)[-1];
	void *q = malloc(n);
	if (q)
		memcpy(q, p, old < n ? old : n);
	return q;
}

/* realloc: the old object is freed (recorded before the call, so its
 * address cannot be reused first) and the new one allocated. On failure the
 * old object is still there and is recorded again. */
static void *realloc_at(void *p, size_t n, void *(*call)(void *, size_t, size_t), size_t count, uintptr_t site,
			uintptr_t ra, uintptr_t cfa)
{
	int rec;
	struct gt_thread *t = enter(&rec);
	size_t was = 0;
	if (rec && p) {
		was = usable(p);
		gt_heap_free(t, p, was);
	}
	void *q = call(p, count, n);
	if (rec && q)
		gt_heap_alloc(t, q, count * n, usable(q), site, ra, cfa);
	else if (rec && p && count * n != 0)
		gt_heap_alloc(t, p, was, was, site, ra, cfa);
	leave(t);
	return q;
}

static void *call_realloc(void *p, size_t count, size_t n)
{
	(void)count;
	return real.realloc(p, n);
}

GT_EXPORT void *realloc(void *p, size_t n)
{
	if (!real.malloc && !resolve())
		return p && in_arena(p) ? arena_realloc(p, n) : arena_alloc(n, 16);
	if (p && in_arena(p))
		return arena_realloc(p, n);
	return realloc_at(p, n, call_realloc, 1, GT_FN(realloc), GT_RA(), GT_CFA());
}

/* glibc's reallocarray calls realloc through the PLT, that is, our realloc:
 * check the overflow here and let realloc record the rest, once. */
GT_EXPORT void *reallocarray(void *p, size_t count, size_t n)
{
	if (n && count > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, count * n);
}

GT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (!real.malloc && !resolve()) {
		void *p = arena_alloc(n, align);
		if (!p)
			return ENOMEM;
		*out = p;
		return 0;
	}
	int rec;
	struct gt_thread *t = enter(&rec);
	int r = real.posix_memalign(out, align, n);
	GT_ALLOCATED(t, rec, r == 0 ? *out : NULL, n, posix_memalign);
	return r;
}

GT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (!real.malloc && !resolve())
		return arena_alloc(n, align);
	int rec;
	struct gt_thread *t = enter(&rec);
	return GT_ALLOCATED(t, rec, real.aligned_alloc(align, n), n, aligned_alloc);
}

GT_EXPORT void *memalign(size_t align, size_t n)
{
	if (!real.malloc && !resolve())
		return arena_alloc(n, align);
	int rec;
	struct gt_thread *t = enter(&rec);
	return GT_ALLOCATED(t, rec, real.memalign(align, n), n, memalign);
}

GT_EXPORT void *valloc(size_t n)
{
	if (!real.malloc && !resolve())
		return arena_alloc(n, 4096);
	int rec;
	struct gt_thread *t = enter(&rec);
	return GT_ALLOCATED(t, rec, real.valloc(n), n, valloc);
}

GT_EXPORT void *pvalloc(size_t n)
{
	if (!real.malloc && !resolve())
		return arena_alloc(n, 4096);
	int rec;
	struct gt_thread *t = enter(&rec);
	return GT_ALLOCATED(t, rec, real.pvalloc(n), n, pvalloc);
}

GT_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (in_arena(p))
		return ((size_t *)p)[-1];
	if (!real.malloc)
		resolve();
	return usable(p);
}
