/* heaplive.h — the live recorded objects when every allocation is recorded
 * (GOTRACE_MALLOC=all): address -> (requested size, site), so that each
 * generation can restate them (core/gen_snap.h, docs/heap.md "The
 * live-heap snapshot").
 *
 * Every malloc and free of the program changes it, from any thread, so it
 * is cut into GT_HEAPLIVE_SHARDS shards by address (gt_heaplive_shard_of),
 * each with its own lock and its own open-addressing table (linear probing,
 * deletion by shifting back, doubled when three quarters full:
 * GT_HEAPLIVE_FULL): two threads wait for
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
#include "lock.h"

#define GT_HEAPLIVE_SHARDS 256

struct gt_heaplive_entry {
	uintptr_t key;  /* the address; 0: empty */
	uint32_t size;  /* requested bytes, UINT32_MAX when larger */
	uint32_t ref;   /* its site: a gt_heapref (core/heapsite.h) */
};

struct gt_heaplive_shard {
	gt_lock_t lock;
	unsigned shift;                 /* 64 - log2(capacity) */
	uint64_t mask;                  /* capacity - 1; 0 before the first insert */
	uint64_t count;
	struct gt_heaplive_entry *slots;
} __attribute__((aligned(64)));

extern struct gt_heaplive_shard gt_heaplive_shards[GT_HEAPLIVE_SHARDS] __attribute__((visibility("hidden")));

/* A shard's table is doubled when an insert would fill it past three
 * quarters. The snapshot reads every slot of every table, so the slots per
 * live object are its cost: 1.33 to 2.67 (16 B each) at this bound, against
 * 2 to 4 when tables were doubled at half full, which made a million
 * objects cost 7 or 15 ms depending on whether the shards' counts fell just
 * below or just above a power of two. Linear probing with deletion by
 * shifting back keeps the probes short at this load (a miss reads 8.5
 * slots on average: two cache lines). */
static inline int gt_heaplive_full(uint64_t count, uint64_t cap)
{
	return (count + 1) * 4 > cap * 3;
}

/* The home slot in a shard: bits below the top 8 of one multiplicative
 * hash of the address. */
static inline uint64_t gt_heaplive_hash(uintptr_t key)
{
	return (uint64_t)key * 0x9e3779b97f4a7c15ull;
}

/* The shard of an address: one of 16 groups by its 64 MiB region (glibc
 * gives each thread's arena regions of its own, so a thread's objects stay
 * in its group: two threads allocating at once do not bounce each other's
 * shard locks between cores), then one of the group's 16 by its 4 KiB page
 * (a thread's objects spread over 16 locks, so a snapshot holds one 16th
 * of them at a time). */
static inline struct gt_heaplive_shard *gt_heaplive_shard_of(uintptr_t key)
{
	uint64_t group = (((uint64_t)key >> 26) * 0x9e3779b97f4a7c15ull) >> 60;
	return &gt_heaplive_shards[group << 4 | ((key >> 12) & 15)];
}

static inline uint64_t gt_heaplive_home(const struct gt_heaplive_shard *s, uint64_t h)
{
	return (h << 8) >> s->shift;
}

/* The slow halves: the table to grow, a lock to wait for or to try
 * (nested), entries to shift back. */
int gt_heaplive_insert_slow(const void *p, uint64_t size, uint32_t ref, int nested);
int gt_heaplive_remove_slow(const void *p, int nested);
void gt_heaplive_remove_at(struct gt_heaplive_shard *s, uint64_t i);

/* gt_heaplive_insert records p (size requested bytes, site ref). 0, or -1
 * (no memory, or the lock not had while nested). Preserves errno. On the
 * hot path (every recorded malloc): the common case is inline, a lock
 * taken at once, no growth, a probe or two. */
static inline int gt_heaplive_insert(const void *p, uint64_t size, uint32_t ref, int nested)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = gt_heaplive_hash(key);
	struct gt_heaplive_shard *s = gt_heaplive_shard_of(key);
	if (__builtin_expect(nested || !key || !gt_trylock(&s->lock), 0))
		return gt_heaplive_insert_slow(p, size, ref, nested);
	if (__builtin_expect(gt_heaplive_full(s->count, s->mask + 1), 0)) { /* also: no table yet */
		gt_unlock(&s->lock);
		return gt_heaplive_insert_slow(p, size, ref, nested);
	}
	struct gt_heaplive_entry e = { key, size > UINT32_MAX ? UINT32_MAX : (uint32_t)size, ref };
	struct gt_heaplive_entry *sl = s->slots;
	uint64_t i = gt_heaplive_home(s, h);
	for (; sl[i].key; i = (i + 1) & s->mask)
		if (sl[i].key == key) /* its free was not seen */
			goto put;
	s->count++;
put:
	sl[i] = e;
	gt_unlock(&s->lock);
	return 0;
}

/* gt_heaplive_remove forgets p; 1 when it was there. Every recorded free:
 * inline like gt_heaplive_insert. */
static inline int gt_heaplive_remove(const void *p, int nested)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = gt_heaplive_hash(key);
	struct gt_heaplive_shard *s = gt_heaplive_shard_of(key);
	if (__builtin_expect(nested || !key || !gt_trylock(&s->lock), 0))
		return gt_heaplive_remove_slow(p, nested);
	int found = 0;
	if (__builtin_expect(s->mask != 0, 1)) {
		struct gt_heaplive_entry *sl = s->slots;
		uint64_t i = gt_heaplive_home(s, h);
		for (; sl[i].key; i = (i + 1) & s->mask) {
			if (sl[i].key == key) {
				if (__builtin_expect(!sl[(i + 1) & s->mask].key, 1)) { /* nothing to shift back */
					sl[i].key = 0;
					s->count--;
				} else {
					gt_heaplive_remove_at(s, i);
				}
				found = 1;
				break;
			}
		}
	}
	gt_unlock(&s->lock);
	return found;
}

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
