/* heap.h — heap events (AllocFree experiment, docs/heap.md): what the malloc
 * wrappers (interpose/malloc.c) call when there is something to record.
 *
 * Which allocations are recorded (GOTRACE_MALLOC): none, all, or a sample
 * by bytes (core/sample.h). Every mode runs the same fast path in the
 * wrappers: after the real call, a thread not inside the tracer subtracts
 * the requested size from its countdown gt_self.heap_left and goes to
 * gt_heap_countdown only when it went below zero. The modes differ in what
 * that countdown is: every allocation ends below zero (all), one every ~M
 * bytes (sample), practically never (off: INT64_MAX). Frees go to the
 * recording path only when core/heapset.h's filter says the object may be
 * a recorded one (all: every object). */
#ifndef GT_HEAP_H
#define GT_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "heapid.h"
#include "realalloc.h"
#include "thread.h"

/* The HeapAlloc metric is written with a heap event when the last one is
 * this old (and at each peak and at the end: core/heap.c). */
#define GT_HEAP_METRIC_NS 10000000ull

enum gt_heap_mode {
	GT_HEAP_UNSET = 0, /* before the constructor read GOTRACE_MALLOC */
	GT_HEAP_OFF,
	GT_HEAP_ALL,
	GT_HEAP_SAMPLE,
};

extern int gt_heap_mode __attribute__((visibility("hidden")));

/* gt_heap_configure: from the constructor, GOTRACE_MALLOC's values
 * (core/config.h: events, and the mean, 0 = every allocation). */
void gt_heap_configure(int events, uint64_t sample_bytes);

/* gt_heap_countdown: the allocation p (NULL: it failed) of size requested
 * bytes took t->heap_left below zero. Records it when the mode says so
 * and draws the next countdown. site: the allocation function; ra, cfa:
 * its return address and CFA (GT_RA, GT_CFA in the wrapper: the
 * remembered stack's key). pre: t == &gt_self, t->inside raised once by
 * the caller (it was 0 at the wrapper). Preserves errno. */
void gt_heap_countdown(struct gt_thread *t, void *p, size_t size, uintptr_t site, uintptr_t ra, uintptr_t cfa);

/* gt_heap_alloc_slow: gt_heap_countdown for the wrappers' fast halves: t is
 * the calling thread, whose `inside` was 0 at the wrapper; raises it
 * around the work. Returns p. */
void *gt_heap_alloc_slow(void *p, size_t size, uintptr_t site, uintptr_t ra, uintptr_t cfa);

/* gt_heap_free_all: every allocation is recorded (GT_HEAP_ALL) and p is
 * about to be freed by a thread that was not inside the tracer (its
 * `inside` raised by the caller). Preserves errno. */
void gt_heap_free_all(struct gt_thread *t, void *p);

/* gt_heap_freeing: p, which the filter says may be recorded, is about to
 * be freed. nested: t->inside was not 0 at the wrapper (the tracer's own
 * call, a signal handler inside one, a thread past its end): nothing is
 * written then, but a sampled object still leaves the set. pre: t->inside
 * raised by the caller. Preserves errno. */
void gt_heap_freeing(struct gt_thread *t, void *p, int nested);

/* gt_heap_realloc_freeing / _failed: realloc's halves when the old object
 * may be recorded: the free of p before the real call (returns a token
 * for _failed), and, when the real call failed and p is still there,
 * p recorded again. Same pre as gt_heap_freeing. */
uint64_t gt_heap_realloc_freeing(struct gt_thread *t, void *p, int nested);
void gt_heap_realloc_failed(struct gt_thread *t, void *p, uint64_t token, uintptr_t site, uintptr_t ra,
			    uintptr_t cfa);

/* gt_heap_thread_end: a thread ends; its part of the live figure goes to
 * the shared one (every allocation recorded). */
void gt_heap_thread_end(struct gt_thread *t);

/* gt_heap_final: the trace ends (the library's destructor, t the calling
 * thread): the HeapAlloc metric once more, the live figure now, when any
 * heap event was written, so that a program ending at its peak has it
 * written too. */
void gt_heap_final(struct gt_thread *t);

/* gt_malloc_usable: malloc_usable_size of the real allocator
 * (core/realalloc.h; 0 without one). */
static inline size_t gt_malloc_usable(void *p)
{
	return GT_ALLOC(usable)(p);
}

/* gt_heap_check_allocator: at start, note when another allocator's malloc
 * comes before ours (heap events cannot be recorded): the program's own
 * (in the trace's strings only: gt.heap_note) or a library preloaded
 * ahead of ours (also one line on stderr). */
void gt_heap_check_allocator(void);

#endif
