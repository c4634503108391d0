/* heaplive.c — the live objects when every allocation is recorded
 * (heaplive.h). */
#include "heaplive.h"

#include <errno.h>
#include <string.h>

#include "lock.h"
#include "region.h"

#define FIRST_CAP 256
#define MAX_CAP (1ull << 28)
#define NESTED_TRIES 2000

struct gt_heaplive_shard gt_heaplive_shards[GT_HEAPLIVE_SHARDS];

static inline struct gt_heaplive_shard *shard_of(uintptr_t key)
{
	return gt_heaplive_shard_of(key);
}

static inline uint64_t home(const struct gt_heaplive_shard *s, uint64_t h)
{
	return gt_heaplive_home(s, h);
}

static int take(struct gt_heaplive_shard *s, int nested)
{
	if (!nested) {
		gt_lock(&s->lock);
		return 1;
	}
	for (int i = 0; i < NESTED_TRIES; i++) {
		if (gt_trylock(&s->lock))
			return 1;
		__builtin_ia32_pause();
	}
	return 0;
}

/* grow doubles s's table. Under its lock. */
static int grow(struct gt_heaplive_shard *s)
{
	uint64_t cap = s->mask ? (s->mask + 1) * 2 : FIRST_CAP;
	if (cap > MAX_CAP)
		return -1;
	struct gt_heaplive_entry *ns = gt_map(cap * sizeof *ns);
	if (!ns)
		return -1;
	struct gt_heaplive_entry *os = s->slots;
	uint64_t ocap = s->mask ? s->mask + 1 : 0;
	s->slots = ns;
	s->mask = cap - 1;
	s->shift = (unsigned)(64 - __builtin_ctzll(cap));
	for (uint64_t i = 0; i < ocap; i++) {
		if (!os[i].key)
			continue;
		uint64_t j = home(s, gt_heaplive_hash(os[i].key));
		while (ns[j].key)
			j = (j + 1) & s->mask;
		ns[j] = os[i];
	}
	if (os)
		gt_unmap(os, ocap * sizeof *os);
	return 0;
}

int gt_heaplive_insert_slow(const void *p, uint64_t size, uint32_t ref, int nested)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = gt_heaplive_hash(key);
	struct gt_heaplive_shard *s = shard_of(key);
	if (!key || !take(s, nested))
		return -1;
	int r = 0;
	if (__builtin_expect(gt_heaplive_full(s->count, s->mask ? s->mask + 1 : 0), 0)) {
		int saved = errno;
		if (grow(s) != 0 && (!s->mask || s->count + 1 >= s->mask))
			r = -1;
		errno = saved;
		if (r)
			goto out;
	}
	struct gt_heaplive_entry e = { key, size > UINT32_MAX ? UINT32_MAX : (uint32_t)size, ref };
	uint64_t i = home(s, h);
	while (s->slots[i].key) {
		if (s->slots[i].key == key) { /* its free was not seen */
			s->slots[i] = e;
			goto out;
		}
		i = (i + 1) & s->mask;
	}
	s->slots[i] = e;
	s->count++;
out:
	gt_unlock(&s->lock);
	return r;
}

void gt_heaplive_remove_at(struct gt_heaplive_shard *s, uint64_t i)
{
	/* Shift back the entries after it that would not be found across a
	 * hole: those whose home is not cyclically in (i, j]. */
	for (uint64_t j = (i + 1) & s->mask; s->slots[j].key; j = (j + 1) & s->mask) {
		uint64_t hj = home(s, gt_heaplive_hash(s->slots[j].key));
		int stays = i <= j ? (i < hj && hj <= j) : (i < hj || hj <= j);
		if (!stays) {
			s->slots[i] = s->slots[j];
			i = j;
		}
	}
	s->slots[i].key = 0;
	s->count--;
}

int gt_heaplive_remove_slow(const void *p, int nested)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = gt_heaplive_hash(key);
	struct gt_heaplive_shard *s = shard_of(key);
	if (!key || !take(s, nested))
		return 0;
	int found = 0;
	if (!s->mask)
		goto out;
	uint64_t i = home(s, h);
	while (s->slots[i].key != key) {
		if (!s->slots[i].key)
			goto out;
		i = (i + 1) & s->mask;
	}
	gt_heaplive_remove_at(s, i);
	found = 1;
out:
	gt_unlock(&s->lock);
	return found;
}

uint64_t gt_heaplive_copy(unsigned i, struct gt_heaplive_entry *out, uint64_t max, gt_heapref_fix fix, void *ctx)
{
	struct gt_heaplive_shard *s = &gt_heaplive_shards[i % GT_HEAPLIVE_SHARDS];
	gt_lock(&s->lock);
	uint64_t n = s->count;
	if (n <= max && s->mask) {
		/* Every slot is copied and the output advances only past the
		 * full ones: the table is 3/8 to 3/4 full, in no order, so a
		 * branch on "empty?" would be mispredicted at every other slot
		 * (the copy's cost at a million objects). An empty slot's copy
		 * is overwritten by the next one; k < n keeps every write
		 * inside out[0..max). */
		const struct gt_heaplive_entry *sl = s->slots;
		const uint64_t last = s->mask;
		uint64_t k = 0;
		for (uint64_t j = 0; j <= last && k < n; j++) {
			struct gt_heaplive_entry e = sl[j];
			if (__builtin_expect(e.key && e.ref && !(e.ref & GT_HEAPREF_SITE), 0)) {
				e.ref = fix(ctx, e.ref);
				s->slots[j].ref = e.ref;
			}
			out[k] = e;
			k += e.key != 0;
		}
	}
	gt_unlock(&s->lock);
	return n;
}

uint64_t gt_heaplive_count(void)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < GT_HEAPLIVE_SHARDS; i++)
		n += __atomic_load_n(&gt_heaplive_shards[i].count, __ATOMIC_RELAXED);
	return n;
}

void gt_heaplive_prepare(void)
{
	for (unsigned i = 0; i < GT_HEAPLIVE_SHARDS; i++)
		gt_lock(&gt_heaplive_shards[i].lock);
}

void gt_heaplive_parent(void)
{
	for (unsigned i = 0; i < GT_HEAPLIVE_SHARDS; i++)
		gt_unlock(&gt_heaplive_shards[i].lock);
}

void gt_heaplive_child(void)
{
	for (unsigned i = 0; i < GT_HEAPLIVE_SHARDS; i++) {
		struct gt_heaplive_shard *s = &gt_heaplive_shards[i];
		/* Unmapped, not cleared: clearing would copy every page of the
		 * parent's table (a child that execs at once pays nothing). */
		if (s->slots)
			gt_unmap(s->slots, (s->mask + 1) * sizeof *s->slots);
		s->slots = NULL;
		s->mask = 0;
		s->shift = 0;
		s->count = 0;
		gt_lock_reset(&s->lock);
	}
}
