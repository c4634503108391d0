/* malloc.c — the malloc family as heap events (core/heap.h, docs/heap.md).
 *
 * The real functions are the next definitions after this library (glibc's,
 * or an allocator the program loads, such as jemalloc). Looking them up with
 * dlsym may itself allocate; until they are known, allocations come from a
 * static bootstrap arena, whose blocks are never passed to the real free.
 *
 * Every wrapper is a fast half that records nothing (core/heap.h says when
 * there is something to record): an allocation makes the real call with
 * the thread's `inside` raised, then counts its size down from
 * gt_self.heap_left (about 10 instructions); a free asks the filter of
 * core/heapset.h (one load), then makes the real call with `inside`
 * raised. Only a countdown below zero or a filter hit goes to an
 * out-of-line slow half. */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/heap.h"
#include "../core/heapset.h"
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

/* Each block: a 16-byte header holding its size, then the (zeroed) data.
 * Its address is marked in the free filter (core/heapset.h), so its free
 * takes the slow half, which recognizes it. */
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
	gt_heapset_mark((void *)p);
	return (void *)p;
}

static int in_arena(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA_SIZE;
}

/* --- the real functions ----------------------------------------------------- */

/* The wrappers call through these pointers without a check: each starts at
 * a stub that resolves every real function (or serves the arena while
 * that is under way) and then points at the real one. */
static void *malloc_first(size_t n);
static void *calloc_first(size_t n, size_t size);
static void *realloc_first(void *p, size_t n);
static void free_first(void *p);
static int posix_memalign_first(void **out, size_t align, size_t n);
static void *aligned_alloc_first(size_t align, size_t n);
static void *memalign_first(size_t align, size_t n);
static void *valloc_first(size_t n);
static void *pvalloc_first(size_t n);
static void free_sized_first(void *p, size_t n);
static void free_aligned_sized_first(void *p, size_t align, size_t n);

static void *(*malloc_fn)(size_t) = malloc_first;
static void *(*calloc_fn)(size_t, size_t) = calloc_first;
static void *(*realloc_fn)(void *, size_t) = realloc_first;
static void (*free_fn)(void *) = free_first;
static int (*posix_memalign_fn)(void **, size_t, size_t) = posix_memalign_first;
static void *(*aligned_alloc_fn)(size_t, size_t) = aligned_alloc_first;
static void *(*memalign_fn)(size_t, size_t) = memalign_first;
static void *(*valloc_fn)(size_t) = valloc_first;
static void *(*pvalloc_fn)(size_t) = pvalloc_first;
static void (*free_sized_fn)(void *, size_t) = free_sized_first;
static void (*free_aligned_sized_fn)(void *, size_t, size_t) = free_aligned_sized_first;

/* An allocator without free_sized / free_aligned_sized (glibc < 2.39). */
static void free_sized_plain(void *p, size_t n)
{
	(void)n;
	real.free(p);
}

static void free_aligned_sized_plain(void *p, size_t align, size_t n)
{
	(void)align;
	(void)n;
	real.free(p);
}

static _Atomic int resolving;
static _Atomic int resolved;

#define SET(fn, v) __atomic_store_n(&fn, v, __ATOMIC_RELEASE)

/* resolve fills `real` and the pointers; 0 while another thread (or dlsym
 * itself) is at it. */
static int resolve(void)
{
	if (atomic_load_explicit(&resolved, memory_order_acquire))
		return 1;
	if (atomic_exchange(&resolving, 1))
		return 0;
	real.malloc = dlsym(RTLD_NEXT, "malloc");
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
	gt_real_usable = real.usable;
	if (!real.malloc || !real.free || !real.calloc || !real.realloc) {
		static const char msg[] = "gotrace: cannot find the real malloc/free\n";
		(void)!write(2, msg, sizeof msg - 1);
		abort();
	}
	SET(malloc_fn, real.malloc);
	SET(calloc_fn, real.calloc);
	SET(realloc_fn, real.realloc);
	SET(free_fn, real.free);
	SET(posix_memalign_fn, real.posix_memalign);
	SET(aligned_alloc_fn, real.aligned_alloc);
	SET(memalign_fn, real.memalign);
	SET(valloc_fn, real.valloc);
	SET(pvalloc_fn, real.pvalloc);
	SET(free_sized_fn, real.free_sized ? real.free_sized : free_sized_plain);
	SET(free_aligned_sized_fn, real.free_aligned_sized ? real.free_aligned_sized : free_aligned_sized_plain);
	atomic_store_explicit(&resolved, 1, memory_order_release);
	return 1;
}

static void *malloc_first(size_t n)
{
	return resolve() ? real.malloc(n) : arena_alloc(n, 16);
}

static void *calloc_first(size_t n, size_t size)
{
	if (resolve())
		return real.calloc(n, size);
	if (size && n > SIZE_MAX / size)
		return NULL;
	return arena_alloc(n * size, 16); /* static memory: already zero */
}

static void *arena_realloc(void *p, size_t n)
{
	size_t old = ((size_t *)p)[-1];
	void *q = malloc(n);
	if (q)
		memcpy(q, p, old < n ? old : n);
	return q;
}

static void *realloc_first(void *p, size_t n)
{
	if (resolve())
		return real.realloc(p, n);
	return p ? arena_realloc(p, n) : arena_alloc(n, 16);
}

static void free_first(void *p)
{
	if (resolve())
		real.free(p);
	/* else: a block from before this library, freed while dlsym runs:
	 * kept */
}

static int posix_memalign_first(void **out, size_t align, size_t n)
{
	if (resolve())
		return real.posix_memalign(out, align, n);
	void *p = arena_alloc(n, align);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static void *aligned_alloc_first(size_t align, size_t n)
{
	return resolve() ? real.aligned_alloc(align, n) : arena_alloc(n, align);
}

static void *memalign_first(size_t align, size_t n)
{
	return resolve() ? real.memalign(align, n) : arena_alloc(n, align);
}

static void *valloc_first(size_t n)
{
	return resolve() ? real.valloc(n) : arena_alloc(n, 4096);
}

static void *pvalloc_first(size_t n)
{
	return resolve() ? real.pvalloc(n) : arena_alloc(n, 4096);
}

static void free_sized_first(void *p, size_t n)
{
	if (resolve())
		free_sized_fn(p, n);
}

static void free_aligned_sized_first(void *p, size_t align, size_t n)
{
	if (resolve())
		free_aligned_sized_fn(p, align, n);
}

size_t (*gt_real_usable)(void *);

/* --- the halves --------------------------------------------------------------- */

/* Every real allocator call runs with the thread's `inside` raised, traced
 * or passing through (a thread past its end, the tracer's own calls): a
 * signal handler that interrupts it must neither record (its calls pass
 * through) nor switch a generation on this thread (the switch allocates:
 * core/inline.h). */

/* The allocation functions, for the slow half: its own address is the
 * stack's leaf frame (GT_FN: found once, outside the fast half). */
enum alloc_fn { A_MALLOC, A_CALLOC, A_REALLOC, A_POSIX_MEMALIGN, A_ALIGNED_ALLOC, A_MEMALIGN, A_VALLOC, A_PVALLOC };

/* site_fill: sites[f] found (GT_FN), or the raw address while too early. */
static uintptr_t sites[A_PVALLOC + 1];

static __attribute__((noinline)) uintptr_t site_fill(enum alloc_fn f)
{
	uintptr_t a;
	switch (f) {
	case A_MALLOC: a = GT_FN(malloc); break;
	case A_CALLOC: a = GT_FN(calloc); break;
	case A_REALLOC: a = GT_FN(realloc); break;
	case A_POSIX_MEMALIGN: a = GT_FN(posix_memalign); break;
	case A_ALIGNED_ALLOC: a = GT_FN(aligned_alloc); break;
	case A_MEMALIGN: a = GT_FN(memalign); break;
	case A_VALLOC: a = GT_FN(valloc); break;
	default: a = GT_FN(pvalloc); break;
	}
	if (a >= gt.self_lo && a < gt.self_hi)
		__atomic_store_n(&sites[f], a, __ATOMIC_RELAXED);
	return a;
}

static GT_SLOW void *alloc_slow_first(void *p, size_t size, enum alloc_fn f, uintptr_t ra, uintptr_t cfa)
{
	return gt_heap_alloc_slow(p, size, site_fill(f), ra, cfa);
}

/* alloc_slow: the countdown went below zero at allocation p (core/heap.h):
 * a jump to the recording function once the wrapper's address is known. */
static GT_SLOW void *alloc_slow(void *p, size_t size, enum alloc_fn f, uintptr_t ra, uintptr_t cfa)
{
	uintptr_t a = __atomic_load_n(&sites[f], __ATOMIC_RELAXED);
	if (__builtin_expect(a == 0, 0))
		return alloc_slow_first(p, size, f, ra, cfa);
	return gt_heap_alloc_slow(p, size, a, ra, cfa);
}

/* ALLOC(call, size, f): the fast half of allocation function f (enum alloc_fn):
 * p = call with `inside` raised, then the countdown of a thread that was
 * not inside the tracer (`inside` back at 0: raising and lowering it is
 * balanced, signal handlers included); returns p from the wrapper. A
 * macro: GT_RA and GT_CFA must be the exported wrapper's. */
#define ALLOC(call, size, fn)                                                                       \
	do {                                                                                        \
		struct gt_thread *t_ = &gt_self;                                                    \
		t_->inside++;                                                                       \
		void *p_ = call;                                                                    \
		if (__builtin_expect(--t_->inside == 0, 1) &&                                       \
		    __builtin_expect((int64_t)(t_->heap_left -= (size)) < 0, 0))                    \
			return alloc_slow(p_, (size), (fn), GT_RA(), GT_CFA());                     \
		return p_;                                                                          \
	} while (0)

enum free_kind { FREE_PLAIN, FREE_SIZED, FREE_ALIGNED_SIZED };

/* free_record records the free of p if it is to be (every allocation, or a
 * sampled object); in: the thread's inside count before the call. */
static inline __attribute__((always_inline)) void free_record(struct gt_thread *t, void *p, int in)
{
	if (__builtin_expect(gt_heap_mode == GT_HEAP_ALL, 1)) {
		if (!in)
			gt_heap_free_all(t, p);
	} else {
		gt_heap_freeing(t, p, in != 0);
	}
}

/* free_slow: the filter says p may be recorded, or is an arena block. */
static GT_SLOW void free_slow(void *p, enum free_kind kind, size_t a, size_t b)
{
	if (!p || in_arena(p))
		return;
	struct gt_thread *t = &gt_self;
	int in = t->inside++;
	free_record(t, p, in);
	if (kind == FREE_PLAIN)
		free_fn(p);
	else if (kind == FREE_SIZED)
		free_sized_fn(p, a);
	else
		free_aligned_sized_fn(p, a, b);
	t->inside--;
}

/* --- the wrappers ----------------------------------------------------------- */

GT_EXPORT void *malloc(size_t n)
{
	ALLOC(malloc_fn(n), n, A_MALLOC);
}

GT_EXPORT void *calloc(size_t n, size_t size)
{
	ALLOC(calloc_fn(n, size), n * size, A_CALLOC);
}

/* free_plain_slow: free_slow for free itself, the common case. */
static GT_SLOW void free_plain_slow(void *p)
{
	if (!p || in_arena(p))
		return;
	struct gt_thread *t = &gt_self;
	int in = t->inside++;
	free_record(t, p, in);
	free_fn(p);
	t->inside--;
}

GT_EXPORT void free(void *p)
{
	if (__builtin_expect(gt_heapset_maybe(p), 0)) {
		free_plain_slow(p);
		return;
	}
	struct gt_thread *t = &gt_self;
	t->inside++;
	free_fn(p);
	t->inside--;
}

GT_EXPORT void free_sized(void *p, size_t n)
{
	if (__builtin_expect(gt_heapset_maybe(p), 0)) {
		free_slow(p, FREE_SIZED, n, 0);
		return;
	}
	struct gt_thread *t = &gt_self;
	t->inside++;
	free_sized_fn(p, n);
	t->inside--;
}

GT_EXPORT void free_aligned_sized(void *p, size_t align, size_t n)
{
	if (__builtin_expect(gt_heapset_maybe(p), 0)) {
		free_slow(p, FREE_ALIGNED_SIZED, align, n);
		return;
	}
	struct gt_thread *t = &gt_self;
	t->inside++;
	free_aligned_sized_fn(p, align, n);
	t->inside--;
}

/* realloc_slow: the old object may be recorded (or p is NULL and the
 * filter's first counter is set, or an arena block). realloc is the free
 * of the old object (recorded before the call, so its address cannot be
 * reused first) and the allocation of the new one, counted down like any
 * other. On failure the old object is still there and is recorded again. */
static GT_SLOW void *realloc_slow(void *p, size_t n, uintptr_t ra, uintptr_t cfa)
{
	if (p && in_arena(p))
		return arena_realloc(p, n);
	struct gt_thread *t = &gt_self;
	int in = t->inside++;
	uint64_t token = p ? gt_heap_realloc_freeing(t, p, in != 0) : 0;
	void *q = realloc_fn(p, n);
	if (!in) {
		if ((int64_t)(t->heap_left -= n) < 0)
			gt_heap_countdown(t, q, n, GT_FN(realloc), ra, cfa);
		if (!q && p && n)
			gt_heap_realloc_failed(t, p, token, GT_FN(realloc), ra, cfa);
	}
	t->inside--;
	return q;
}

GT_EXPORT void *realloc(void *p, size_t n)
{
	if (__builtin_expect(gt_heapset_maybe(p), 0))
		return realloc_slow(p, n, GT_RA(), GT_CFA());
	ALLOC(realloc_fn(p, n), n, A_REALLOC);
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
	struct gt_thread *t = &gt_self;
	t->inside++;
	int r = posix_memalign_fn(out, align, n);
	if (__builtin_expect(--t->inside == 0, 1) && __builtin_expect((int64_t)(t->heap_left -= n) < 0, 0))
		alloc_slow(r == 0 ? *out : NULL, n, A_POSIX_MEMALIGN, GT_RA(), GT_CFA());
	return r;
}

GT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	ALLOC(aligned_alloc_fn(align, n), n, A_ALIGNED_ALLOC);
}

GT_EXPORT void *memalign(size_t align, size_t n)
{
	ALLOC(memalign_fn(align, n), n, A_MEMALIGN);
}

GT_EXPORT void *valloc(size_t n)
{
	ALLOC(valloc_fn(n), n, A_VALLOC);
}

GT_EXPORT void *pvalloc(size_t n)
{
	ALLOC(pvalloc_fn(n), n, A_PVALLOC);
}

GT_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (in_arena(p))
		return ((size_t *)p)[-1];
	if (!resolve())
		return 0;
	return gt_malloc_usable(p);
}
