/* spantab.h — the tables of mappings seen made (core/spans.h writes their
 * events; core/gen_spans.c reads them for a generation's snapshot, so this
 * file writes no event and knows no generation).
 *
 * Two tables of ranges sorted by base, never overlapping: gt_spantab_spans,
 * the spans written (SpanAlloc, no SpanFree yet), and gt_spantab_res, the
 * anonymous PROT_NONE mappings seen made (reservations of address space:
 * V8's heap and code spaces, a JVM's heap), whose pages an mprotect makes
 * accessible (a span) or inaccessible again (no span). A reservation stays
 * while its pages are spans; it goes with munmap or a mapping of another
 * kind over it. Their locks are never held together, and never while an
 * event is written (a writer may wait for the flusher, which takes the
 * spans' lock to snapshot). lo/hi bound a table's ranges, read without the
 * lock by the maybe tests: a stale answer only costs a look under the
 * lock, or misses a range being made by another thread at that very moment,
 * which the next snapshot states. The tables live in memory mapped straight
 * from the kernel (gt_map), never the program's allocator. */
#ifndef GT_SPANTAB_H
#define GT_SPANTAB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lock.h"

/* A span of the table. site: a stack id of generation site_gen (0: none);
 * site_ref: the same stack kept for any generation (core/heapsite.h). */
struct gt_span {
	uintptr_t base, len;
	uint8_t cls;      /* enum gt_span_class */
	uint32_t site;
	uint32_t site_ref;
	uint64_t site_gen;
};

struct gt_spantab {
	gt_lock_t lock;
	struct gt_span *v;
	size_t n, cap;
	_Atomic uintptr_t lo, hi;
};
extern struct gt_spantab gt_spantab_spans __attribute__((visibility("hidden"))),
	gt_spantab_res __attribute__((visibility("hidden")));

static inline int gt_spantab_maybe(struct gt_spantab *t, uintptr_t base, size_t len)
{
	return atomic_load_explicit(&t->lo, memory_order_relaxed) < base + len &&
	       base < atomic_load_explicit(&t->hi, memory_order_relaxed);
}

/* Under t's lock: gt_spantab_first_after, the index of the first range
 * ending above a; gt_spantab_insert_at puts s at index i (pre: the order
 * holds; -1: no memory); gt_spantab_remove_at; gt_spantab_cut_one takes the
 * first range meeting [lo, hi) out, putting back its pieces outside the
 * range, and says what it did in *c (0: none met). */
struct gt_span_cut {
	struct gt_span freed;
	struct gt_span left[2];
	int nleft;
};
size_t gt_spantab_first_after(struct gt_spantab *t, uintptr_t a);
int gt_spantab_insert_at(struct gt_spantab *t, size_t i, const struct gt_span *s);
void gt_spantab_remove_at(struct gt_spantab *t, size_t i);
int gt_spantab_cut_one(struct gt_spantab *t, uintptr_t lo, uintptr_t hi, struct gt_span_cut *c);

/* gt_span_maybe: a cheap unlocked test; 0 when no known span or
 * reservation can meet [base, base+len) (the tables' bounds).
 * gt_span_reserved_maybe: the same for reservations (mprotect's test). */
static inline int gt_span_maybe(uintptr_t base, size_t len)
{
	return gt_spantab_maybe(&gt_spantab_spans, base, len) || gt_spantab_maybe(&gt_spantab_res, base, len);
}

static inline int gt_span_reserved_maybe(uintptr_t base, size_t len)
{
	return gt_spantab_maybe(&gt_spantab_res, base, len);
}

/* For core/gen_spans.c, under the table's lock: gt_spans_lock/unlock,
 * gt_spans_each (in address order; fn returns nonzero to drop the span
 * from the table, e.g. gone from the process's map), gt_spans_set_main
 * (main's [stack] as the table's stack span of the main thread). */
void gt_spans_lock(void);
void gt_spans_unlock(void);
void gt_spans_each(int (*fn)(void *ctx, struct gt_span *s), void *ctx);

/* gt_spans_after_fork: the child's lock, free (fork handler). */
void gt_spans_after_fork(void);

/* The brk heap's span starts at the initial break: gt_span_brk_start notes
 * it once (the first snapshot's [heap], or the break then). */
extern _Atomic uintptr_t gt_span_brk_base;
void gt_span_brk_start(uintptr_t start);

/* The order of a GoroutineStack of len bytes: the bit length of len rounded
 * up to a power of two (Go's runtime: sys.Len64 of the size). */
static inline uint64_t gt_span_stack_order(uint64_t len)
{
	if (len <= 1)
		return len;
	return 64 - (uint64_t)__builtin_clzll(len - 1) + 1;
}

#endif
