/* heapsite.h — stacks that outlive generations: allocation sites of live
 * objects (docs/heap.md, "The live-heap snapshot") and the sites of
 * mappings (core/spans.h: a span keeps its site in every generation, so
 * the snapshots and the pieces a cut leaves state it in their own
 * generation's stack table).
 *
 * A recorded object's type names its allocation stack by an id of one
 * generation's stack table, and those tables are emptied every other
 * generation. An object still live generations later is restated at each
 * generation start (core/gen_snap.h) with a type of that generation, so its
 * stack must be kept for the life of the process. The live tables
 * (core/heapset.h, core/heaplive.h) keep a 32-bit reference per object
 * (gt_heapref): what the allocating thread had at hand, the stack id in
 * its generation's table (nothing more on the hot path), until the
 * flusher's next snapshot, which — before that generation's table is
 * emptied — turns it into a site number of this table, which keeps the
 * frames for the life of the process. A mapping call's stack is kept at
 * once, by the mapping thread (core/spans.c).
 *
 * Site numbers are dense (1, 2, ...; 0 = unknown) and never reused. One
 * lock, held for a lookup only (any thread; a thread inside the tracer
 * already never comes here again from a signal handler): open addressing
 * over record pointers, grown as sites come. Records live in memory mapped
 * straight from the kernel (the mapping calls come from inside the
 * program's allocator) and never move; a record is complete before its
 * number is counted, so gt_heapsite_at reads without the lock. The
 * snapshot (only it) caches in each record the stack id it has in the
 * generation being snapshotted. */
#ifndef GT_HEAPSITE_H
#define GT_HEAPSITE_H

#include <stdint.h>

/* A live object's site reference: 0 unknown; GT_HEAPREF_SITE | number; or
 * a stack id (below 2^29) of generation g's table, with g mod 4 in bits
 * 29-30 (only generations g and g-1 are ever meant: the snapshot of g
 * converts g-1's; others read as unknown). */
#define GT_HEAPREF_SITE 0x80000000u
#define GT_HEAPREF_GEN_SHIFT 29
#define GT_HEAPREF_ID_MASK ((1u << GT_HEAPREF_GEN_SHIFT) - 1)

static inline uint32_t gt_heapref_stack(uint64_t gen, uint64_t stack)
{
	if (stack == 0 || stack > GT_HEAPREF_ID_MASK)
		return 0;
	return (uint32_t)((gen & 3) << GT_HEAPREF_GEN_SHIFT) | (uint32_t)stack;
}

struct gt_heapsite {
	uint64_t hash;       /* gt_hash_words of pcs */
	uint32_t n, num;     /* frames; the site's number */
	uint64_t snap_gen;   /* the flusher's: stack id snap_stack in snap_gen */
	uint64_t snap_stack;
	uintptr_t pcs[];
};

/* gt_heapsite_get returns the number of pcs[0..n) (hash: gt_hash_words of
 * them), adding it when new; 0 when out of memory, the table is full or
 * n == 0. Any thread; preserves errno. */
uint32_t gt_heapsite_get(const uintptr_t *pcs, unsigned n, uint64_t hash);

/* gt_heapsite_at returns the record of site number num, or NULL. */
struct gt_heapsite *gt_heapsite_at(uint32_t num);

/* gt_heapsite_count: sites numbered so far. */
uint32_t gt_heapsite_count(void);

/* gt_heapsite_stack_id returns the stack id of site num in generation gen's
 * stack table (putting it there), 0 for none. In a write section of gen,
 * or on the switch's thread for the generation it starts. */
uint64_t gt_heapsite_stack_id(uint32_t num, uint64_t gen);

/* Fork handlers (core/fork.c): the lock held across fork; the child's,
 * free. */
void gt_heapsite_lock(void);
void gt_heapsite_unlock(void);
void gt_heapsite_after_fork(void);

#endif
