/* heaplive.h — the live recorded objects when every allocation is recorded
 * (GOTRACE_MALLOC=all): address -> (requested size, site), so that each
 * generation can restate them (core/gen_snap.h, docs/heap.md "The
 * live-heap snapshot").
 *
 * Every malloc and free of the program changes it, from any thread, so it
 * is cut into GT_HEAPLIVE_SHARDS shards by a hash of the address, each
 * with its own lock and its own open-addressing table (linear probing,
 * deletion by shifting back, doubled when half full): two threads wait for
 * each other only when they touch the same shard at the same moment. The
 * snapshot copies one shard at a time under that shard's lock (a few
 * thousand entries per shard at a million live objects: microseconds), so
 * no program thread waits for the whole table.
 *
 * A thread inside the tracer already (a signal handler that interrupted
 * one of its operations) may hold a shard's lock itself: with nested != 0
 * the lock is only tried, briefly. An entry it could not remove stays until
 * its address is allocated again (insertion replaces it).
 *
 * Fork: the child's trace starts with no live object (gt_heaplive_child). */
#ifndef GT_HEAPLIVE_H
#define GT_HEAPLIVE_H

#include <stdint.h>

#include "heapsite.h"

#define GT_HEAPLIVE_SHARDS 256

struct gt_heaplive_entry {
	uintptr_t key;  /* the address; 0: empty */
	uint32_t size;  /* requested bytes, UINT32_MAX when larger */
	uint32_t ref;   /* its site: a gt_heapref (core/heapsite.h) */
};

/* gt_heaplive_insert records p (size requested bytes, site ref). 0, or -1
 * (no memory, or the lock not had while nested). Preserves errno. */
int gt_heaplive_insert(const void *p, uint64_t size, uint32_t ref, int nested);

/* gt_heaplive_remove forgets p; 1 when it was there. */
int gt_heaplive_remove(const void *p, int nested);

/* A snapshot's conversion of stack refs into site refs (core/gen_snap.c),
 * applied under the lock to every entry whose ref is a stack id, written
 * back into the table. */
typedef uint32_t (*gt_heapref_fix)(void *ctx, uint32_t ref);

/* gt_heaplive_copy copies shard i's entries to out (room for max) under
 * the shard's lock, each ref fixed by fix first; returns how many there
 * are (more than max: nothing was copied nor fixed; call again with room
 * for that many). */
uint64_t gt_heaplive_copy(unsigned i, struct gt_heaplive_entry *out, uint64_t max, gt_heapref_fix fix, void *ctx);

/* gt_heaplive_count: live entries of every shard (tests, statistics). */
uint64_t gt_heaplive_count(void);

/* Fork (core/heap.c): every lock across fork; the child empties it. */
void gt_heaplive_prepare(void);
void gt_heaplive_parent(void);
void gt_heaplive_child(void);

#endif
