/* heapset.h — the live sampled objects (sampled heap recording,
 * docs/heap.md): which frees to record.
 *
 * Every free asks "was this object sampled?". Most answers are no, so the
 * question is asked first of a filter: 64 Ki one-byte counters indexed by
 * a multiplicative hash of the address, summarized by one bit each (the
 * bit is set exactly while its counter is non-zero). A free reads only the
 * bit: one load from 8 KiB that stays in the L1 cache, where the 64 KiB of
 * counters missed it on most frees (node: 88 % of the free wrapper's time,
 * 3 % of the program's). A zero bit means no sampled object hashes there:
 * the free is not recorded. Only a non-zero counter (a sampled object, or another one
 * sharing its counter: with n live sampled objects, about n / 65536 of the
 * frees) looks the address up in the table, under a lock.
 *
 * The table maps address -> (requested size, trace epoch, allocation site:
 * core/heapsite.h, for the live-heap snapshot of core/gen_snap.h): open addressing
 * with linear probing, deletion by shifting back (no tombstones), doubled
 * when half full. Changes (a sampled allocation, a sampled free) happen
 * once per ~M bytes allocated, so one lock is enough; the filter's
 * counters change only under it too (saturated counters stay: 255 = "maybe"
 * forever).
 *
 * A thread inside the tracer already (a signal handler that interrupted
 * one of its sampled operations, a thread past its end) may hold the lock
 * itself: it only tries the lock, briefly (nested != 0), and gives up; an
 * entry it could not remove stays until its address is sampled again
 * (insertion replaces it) or freed later.
 *
 * Fork: the child keeps the table and the filter (the bootstrap arena's
 * marks must stay) but starts a new epoch: objects of the parent's trace
 * are removed silently when the child frees them. */
#ifndef GT_HEAPSET_H
#define GT_HEAPSET_H

#include <stdatomic.h>
#include <stdint.h>

#include "bitsum.h"
#include "heaplive.h"

#define GT_HEAPSET_FILTER_BITS 16

extern _Atomic uint8_t gt_heapset_filter[1u << GT_HEAPSET_FILTER_BITS] __attribute__((visibility("hidden")));
extern _Atomic uint64_t gt_heapset_bits[(1u << GT_HEAPSET_FILTER_BITS) / 64] __attribute__((visibility("hidden")));

static inline uint32_t gt_heapset_hash(const void *p)
{
	return (uint32_t)(((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull) >> (64 - GT_HEAPSET_FILTER_BITS));
}

/* gt_heapset_maybe: 0 when p is certainly not a live sampled object (nor
 * marked); one load. */
static inline int gt_heapset_maybe(const void *p)
{
	return gt_bitsum_test(gt_heapset_bits, gt_heapset_hash(p));
}

/* gt_heapset_mark makes every later gt_heapset_maybe(p) true (the
 * bootstrap arena's blocks, which must never reach the real free). Safe
 * anywhere, any number of threads. */
void gt_heapset_mark(const void *p);

/* gt_heapset_fill makes gt_heapset_maybe true for every address (every
 * allocation recorded: every free goes to the recording path). */
void gt_heapset_fill(void);

/* gt_heapset_insert adds p (size requested bytes) to the set, replacing a
 * stale entry for p. 0, or -1 (no memory, or the lock not had while
 * nested): p is then not in the set and must not be recorded. Preserves
 * errno. */
int gt_heapset_insert(const void *p, uint64_t size, int nested);

/* gt_heapset_insert_site: gt_heapset_insert, keeping the object's
 * allocation site (a gt_heapref, core/heapsite.h) for the live-heap
 * snapshot. */
int gt_heapset_insert_site(const void *p, uint64_t size, uint32_t ref, int nested);

/* gt_heapset_copy: gt_heaplive_copy for the live sampled objects of this
 * process's trace, under the set's lock (sampled objects are few: a
 * snapshot holds it for microseconds). */
uint64_t gt_heapset_copy(struct gt_heaplive_entry *out, uint64_t max, gt_heapref_fix fix, void *ctx);

/* gt_heapset_remove removes p if present. Returns 1 and its size when it
 * was an object of this process's trace, 0 otherwise (absent, or the
 * parent's before fork, or the lock not had while nested). Preserves
 * errno. */
int gt_heapset_remove(const void *p, uint64_t *size, int nested);

/* gt_heapset_count: live entries (tests, the flusher's statistics). */
uint64_t gt_heapset_count(void);

/* Fork (core/heap.c installs them): the lock across fork, a new epoch in
 * the child. */
void gt_heapset_prepare(void);
void gt_heapset_parent(void);
void gt_heapset_child(void);

#endif
