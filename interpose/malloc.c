/* malloc.c — the malloc family as heap events (core/heap.h, docs/heap.md).
 *
 * The real functions are core/realalloc.h's gt_alloc pointers (the next
 * definitions after this library: glibc's, or an allocator the program
 * loads, such as jemalloc), called without a check: until they are known
 * they are stubs that serve a static bootstrap arena, whose blocks are
 * never passed to the real free (gt_alloc_in_arena in the slow halves).
 *
 * Every wrapper is a fast half that records nothing (core/heap.h says when
 * there is something to record): an allocation makes the real call with
 * the thread's `inside` raised, then counts its size down from
 * gt_self.heap_left (about 10 instructions); a free asks the filter of
 * core/heapset.h (one load), then makes the real call with `inside`
 * raised. Only a countdown below zero or a filter hit goes to an
 * out-of-line slow half. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/heap.h"
#include "../core/heapset.h"
#include "../core/ownheap.h"
#include "../core/realalloc.h"
#include "interpose.h"

/* --- the halves --------------------------------------------------------------- */

/* Every real allocator call runs with the thread's `inside` raised by
 * GT_INSIDE_ALLOC (core/thread.h: the anonymous mappings the allocator makes
 * inside are then class GT_SPAN_MALLOC, interpose/mmap.c), traced
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

/* ALLOC(call, size, f, align): the fast half of allocation function f
 * (enum alloc_fn). A thread not inside the tracer (`inside` 0): p = call
 * with `inside` raised, then the countdown (raising and lowering `inside`
 * is balanced, signal handlers included, so it is back at 0). A thread
 * inside: tracer work (`inside` beyond the calls pending in the kernel)
 * takes the tracer's own heap (own_alloc), anything else the real call
 * with `inside` raised, neither counted. Returns from the wrapper. A
 * macro: GT_RA and GT_CFA must be the exported wrapper's. */
#define ALLOC(call, size, fn, align)                                                   \
	do {                                                                           \
		struct gt_thread *t_ = &gt_self;                                       \
		if (__builtin_expect(t_->inside != 0, 0)) {                            \
			if (t_->inside > t_->quiet) {                                  \
				void *o_ = own_alloc((size), (align));                 \
				if (o_)                                                \
					return o_;                                     \
			}                                                              \
			t_->inside += GT_INSIDE_ALLOC;                                 \
			void *q_ = call;                                               \
			t_->inside -= GT_INSIDE_ALLOC;                                 \
			return q_;                                                     \
		}                                                                      \
		t_->inside = GT_INSIDE_ALLOC;                                          \
		void *p_ = call;                                                       \
		t_->inside = 0;                                                        \
		if (__builtin_expect((int64_t)(t_->heap_left -= (size)) < 0, 0))       \
			return alloc_slow(p_, (size), (fn), GT_RA(), GT_CFA());        \
		return p_;                                                             \
	} while (0)

/* own_alloc: an allocation made while the thread does tracer work
 * (`inside` raised beyond the calls pending in the kernel: the flusher
 * always, any thread inside the tracer), by the tracer or a library it
 * calls (libdw, glibc's pthread_setspecific): from the tracer's own heap
 * (core/ownheap.h), so the program's allocator never sees the tracer;
 * NULL when that is full or the alignment is not a power of two (the real
 * allocator then serves it, or refuses it). */
static GT_SLOW void *own_alloc(size_t n, size_t align)
{
	if (align & (align - 1))
		return NULL;
	return gt_own_alloc(n, align);
}

/* own_free: p is a block of the tracer's own heap (any thread may free
 * one: memory the flusher's libraries allocated). */
static GT_SLOW void own_free(void *p)
{
	gt_own_free(p);
}

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
	if (!p || gt_alloc_in_arena(p))
		return;
	struct gt_thread *t = &gt_self;
	int in = t->inside++;
	free_record(t, p, in);
	t->inside += GT_INSIDE_ALLOC - 1;
	if (kind == FREE_PLAIN)
		GT_ALLOC(free)(p);
	else if (kind == FREE_SIZED)
		GT_ALLOC(free_sized)(p, a);
	else
		GT_ALLOC(free_aligned_sized)(p, a, b);
	t->inside -= GT_INSIDE_ALLOC;
}

/* --- the wrappers ----------------------------------------------------------- */

GT_EXPORT void *malloc(size_t n)
{
	ALLOC(GT_ALLOC(malloc)(n), n, A_MALLOC, 16);
}

GT_EXPORT void *calloc(size_t n, size_t size)
{
	if (__builtin_expect(gt_self.inside > gt_self.quiet, 0)) {
		void *o = gt_own_calloc(n, size);
		if (o)
			return o;
	}
	ALLOC(GT_ALLOC(calloc)(n, size), n * size, A_CALLOC, 16);
}

/* free_plain_slow: free_slow for free itself, the common case. */
static GT_SLOW void free_plain_slow(void *p)
{
	if (!p || gt_alloc_in_arena(p))
		return;
	struct gt_thread *t = &gt_self;
	int in = t->inside++;
	free_record(t, p, in);
	t->inside += GT_INSIDE_ALLOC - 1;
	GT_ALLOC(free)(p);
	t->inside -= GT_INSIDE_ALLOC;
}

GT_EXPORT void free(void *p)
{
	if (__builtin_expect(gt_own_contains(p), 0)) {
		own_free(p);
		return;
	}
	if (__builtin_expect(gt_heapset_maybe(p), 0)) {
		free_plain_slow(p);
		return;
	}
	struct gt_thread *t = &gt_self;
	t->inside += GT_INSIDE_ALLOC;
	GT_ALLOC(free)(p);
	t->inside -= GT_INSIDE_ALLOC;
}

GT_EXPORT void free_sized(void *p, size_t n)
{
	if (__builtin_expect(gt_own_contains(p), 0)) {
		own_free(p);
		return;
	}
	if (__builtin_expect(gt_heapset_maybe(p), 0)) {
		free_slow(p, FREE_SIZED, n, 0);
		return;
	}
	struct gt_thread *t = &gt_self;
	t->inside += GT_INSIDE_ALLOC;
	GT_ALLOC(free_sized)(p, n);
	t->inside -= GT_INSIDE_ALLOC;
}

GT_EXPORT void free_aligned_sized(void *p, size_t align, size_t n)
{
	if (__builtin_expect(gt_own_contains(p), 0)) {
		own_free(p);
		return;
	}
	if (__builtin_expect(gt_heapset_maybe(p), 0)) {
		free_slow(p, FREE_ALIGNED_SIZED, align, n);
		return;
	}
	struct gt_thread *t = &gt_self;
	t->inside += GT_INSIDE_ALLOC;
	GT_ALLOC(free_aligned_sized)(p, align, n);
	t->inside -= GT_INSIDE_ALLOC;
}

/* realloc_slow: the old object may be recorded (or p is NULL and the
 * filter's first counter is set, or an arena block). realloc is the free
 * of the old object (recorded before the call, so its address cannot be
 * reused first) and the allocation of the new one, counted down like any
 * other. On failure the old object is still there and is recorded again. */
static GT_SLOW void *realloc_slow(void *p, size_t n, uintptr_t ra, uintptr_t cfa)
{
	if (p && gt_alloc_in_arena(p))
		return gt_alloc_arena_copy(malloc(n), p, n);
	struct gt_thread *t = &gt_self;
	int in = t->inside++;
	uint64_t token = p ? gt_heap_realloc_freeing(t, p, in != 0) : 0;
	t->inside += GT_INSIDE_ALLOC - 1;
	void *q = GT_ALLOC(realloc)(p, n);
	t->inside -= GT_INSIDE_ALLOC - 1;
	if (!in) {
		if ((int64_t)(t->heap_left -= n) < 0)
			gt_heap_countdown(t, q, n, GT_FN(realloc), ra, cfa);
		if (!q && p && n)
			gt_heap_realloc_failed(t, p, token, GT_FN(realloc), ra, cfa);
	}
	t->inside--;
	return q;
}

/* own_realloc: p is an own block, or the calling thread is the tracer's. */
static GT_SLOW void *own_realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	if (!gt_own_contains(p)) {
		struct gt_thread *t = &gt_self;
		t->inside += GT_INSIDE_ALLOC;
		void *q = GT_ALLOC(realloc)(p, n);
		t->inside -= GT_INSIDE_ALLOC;
		return q;
	}
	void *q = gt_own_realloc(p, n);
	if (q || !n)
		return q;
	q = malloc(n); /* the own heap is full: the real allocator */
	if (q) {
		size_t had = gt_own_size(p);
		memcpy(q, p, had < n ? had : n);
		gt_own_free(p);
	}
	return q;
}

GT_EXPORT void *realloc(void *p, size_t n)
{
	if (__builtin_expect(gt_own_contains(p) || gt_self.inside > gt_self.quiet, 0))
		return own_realloc(p, n);
	if (__builtin_expect(gt_heapset_maybe(p), 0))
		return realloc_slow(p, n, GT_RA(), GT_CFA());
	ALLOC(GT_ALLOC(realloc)(p, n), n, A_REALLOC, 16);
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
	if (__builtin_expect(t->inside > t->quiet, 0) && align % sizeof(void *) == 0) {
		void *o = own_alloc(n, align);
		if (o) {
			*out = o;
			return 0;
		}
	}
	t->inside += GT_INSIDE_ALLOC;
	int r = GT_ALLOC(posix_memalign)(out, align, n);
	if (__builtin_expect((t->inside -= GT_INSIDE_ALLOC) == 0, 1) && __builtin_expect((int64_t)(t->heap_left -= n) < 0, 0))
		alloc_slow(r == 0 ? *out : NULL, n, A_POSIX_MEMALIGN, GT_RA(), GT_CFA());
	return r;
}

GT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	ALLOC(GT_ALLOC(aligned_alloc)(align, n), n, A_ALIGNED_ALLOC, align);
}

GT_EXPORT void *memalign(size_t align, size_t n)
{
	ALLOC(GT_ALLOC(memalign)(align, n), n, A_MEMALIGN, align);
}

GT_EXPORT void *valloc(size_t n)
{
	ALLOC(GT_ALLOC(valloc)(n), n, A_VALLOC, 4096);
}

GT_EXPORT void *pvalloc(size_t n)
{
	ALLOC(GT_ALLOC(pvalloc)(n), n, A_PVALLOC, 4096);
}

GT_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (gt_own_contains(p))
		return gt_own_size(p);
	if (gt_alloc_in_arena(p))
		return gt_alloc_arena_size(p);
	return GT_ALLOC(usable)(p);
}
