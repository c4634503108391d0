/* heapset.c — the set of live sampled objects (heapset.h). */
#include "heapset.h"

#include <errno.h>
#include <string.h>

#include "lock.h"
#include "region.h"

_Atomic uint8_t gt_heapset_filter[1u << GT_HEAPSET_FILTER_BITS];
_Atomic uint64_t gt_heapset_bits[(1u << GT_HEAPSET_FILTER_BITS) / 64];

struct slot {
	uintptr_t key; /* 0: empty */
	uint64_t val;  /* requested size | epoch << SIZE_BITS */
	uint64_t ref;  /* its site, a gt_heapref (core/heapsite.h); 0: unknown */
};

#define SIZE_BITS 48
#define SIZE_MAX_STORED ((1ull << SIZE_BITS) - 1)
#define FIRST_CAP 1024
#define MAX_CAP (1ull << 30)
/* Tries of the lock by a thread that may hold it itself (heapset.h). */
#define NESTED_TRIES 2000

static gt_lock_t lock = GT_LOCK_INIT;
static struct slot *slots;  /* under lock */
static uint64_t mask;       /* capacity - 1; 0 before the first insert */
static unsigned shift;      /* 64 - log2(capacity) */
static uint64_t count;
static uint64_t epoch;      /* bumped in the child of fork */

static inline uint64_t home(uintptr_t key)
{
	/* The top bits of the product (another multiplier than the
	 * filter's). */
	return ((uint64_t)key * 0xc2b2ae3d27d4eb4full) >> shift;
}

static void filter_add(const void *p, int d)
{
	uint32_t h = gt_heapset_hash(p);
	_Atomic uint8_t *c = &gt_heapset_filter[h];
	uint8_t v = atomic_load_explicit(c, memory_order_relaxed);
	for (;;) {
		if (v == 255 || (d < 0 && v == 0))
			return; /* saturated: stays "maybe" */
		if (atomic_compare_exchange_weak(c, &v, (uint8_t)(v + d)))
			break;
	}
	if (v == 0 && d > 0) {
		gt_bitsum_raised(gt_heapset_bits, h);
	} else if (v == 1 && d < 0) { /* marks come without the lock */
		gt_bitsum_clear(gt_heapset_bits, h);
		if (atomic_load(c) != 0)
			gt_bitsum_raised(gt_heapset_bits, h);
	}
}

void gt_heapset_mark(const void *p)
{
	/* Saturate it: a mark is never taken back. */
	uint32_t h = gt_heapset_hash(p);
	atomic_store(&gt_heapset_filter[h], 255);
	gt_bitsum_raised(gt_heapset_bits, h);
}

void gt_heapset_fill(void)
{
	for (uint32_t i = 0; i < (1u << GT_HEAPSET_FILTER_BITS); i++)
		atomic_store_explicit(&gt_heapset_filter[i], 255, memory_order_relaxed);
	for (uint32_t i = 0; i < (1u << GT_HEAPSET_FILTER_BITS) / 64; i++)
		atomic_store(&gt_heapset_bits[i], UINT64_MAX);
}

static int take(int nested)
{
	if (!nested) {
		gt_lock(&lock);
		return 1;
	}
	for (int i = 0; i < NESTED_TRIES; i++) {
		if (gt_trylock(&lock))
			return 1;
		__builtin_ia32_pause();
	}
	return 0;
}

/* grow doubles the table (rehashing every entry). Under lock. */
static int grow(void)
{
	uint64_t cap = mask ? (mask + 1) * 2 : FIRST_CAP;
	if (cap > MAX_CAP)
		return -1;
	struct slot *ns = gt_map(cap * sizeof *ns); /* zeroed */
	if (!ns)
		return -1;
	struct slot *os = slots;
	uint64_t ocap = mask ? mask + 1 : 0;
	slots = ns;
	mask = cap - 1;
	shift = (unsigned)(64 - __builtin_ctzll(cap));
	for (uint64_t i = 0; i < ocap; i++) {
		if (!os[i].key)
			continue;
		uint64_t j = home(os[i].key);
		while (ns[j].key)
			j = (j + 1) & mask;
		ns[j] = os[i];
	}
	if (os)
		gt_unmap(os, ocap * sizeof *os);
	return 0;
}

int gt_heapset_insert(const void *p, uint64_t size, int nested)
{
	return gt_heapset_insert_site(p, size, 0, nested);
}

int gt_heapset_insert_site(const void *p, uint64_t size, uint32_t ref, int nested)
{
	uintptr_t key = (uintptr_t)p;
	if (!key || !take(nested))
		return -1;
	int saved = errno;
	int r = 0;
	if ((count + 1) * 2 > (mask ? mask + 1 : 0) && grow() != 0 && (!mask || count + 1 >= mask)) {
		r = -1;
		goto out;
	}
	uint64_t val = (size > SIZE_MAX_STORED ? SIZE_MAX_STORED : size) | epoch << SIZE_BITS;
	uint64_t i = home(key);
	while (slots[i].key) {
		if (slots[i].key == key) { /* stale: its free was not seen */
			slots[i].val = val;
			slots[i].ref = ref;
			goto out;
		}
		i = (i + 1) & mask;
	}
	slots[i].key = key;
	slots[i].val = val;
	slots[i].ref = ref;
	count++;
	filter_add(p, 1);
out:
	gt_unlock(&lock);
	errno = saved;
	return r;
}

int gt_heapset_remove(const void *p, uint64_t *size, int nested)
{
	uintptr_t key = (uintptr_t)p;
	if (!key || !take(nested))
		return 0;
	int found = 0;
	if (!mask)
		goto out;
	uint64_t i = home(key);
	while (slots[i].key != key) {
		if (!slots[i].key)
			goto out;
		i = (i + 1) & mask;
	}
	uint64_t val = slots[i].val;
	/* Shift back the entries after it that would not be found across a
	 * hole: those whose home is not cyclically in (i, j]. */
	for (uint64_t j = (i + 1) & mask; slots[j].key; j = (j + 1) & mask) {
		uint64_t h = home(slots[j].key);
		int stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
		if (!stays) {
			slots[i] = slots[j];
			i = j;
		}
	}
	slots[i].key = 0;
	slots[i].val = 0;
	slots[i].ref = 0;
	count--;
	filter_add(p, -1);
	if (val >> SIZE_BITS == epoch) {
		*size = val & SIZE_MAX_STORED;
		found = 1;
	}
out:
	gt_unlock(&lock);
	return found;
}

uint64_t gt_heapset_copy(struct gt_heaplive_entry *out, uint64_t max, gt_heapref_fix fix, void *ctx)
{
	gt_lock(&lock);
	uint64_t n = 0;
	for (uint64_t i = 0; mask && i <= mask; i++)
		if (slots[i].key && slots[i].val >> SIZE_BITS == epoch)
			n++;
	if (n > max)
		goto out;
	n = 0;
	for (uint64_t i = 0; mask && i <= mask; i++) {
		struct slot *e = &slots[i];
		if (!e->key || e->val >> SIZE_BITS != epoch)
			continue;
		if (e->ref && !(e->ref & GT_HEAPREF_SITE))
			e->ref = fix(ctx, (uint32_t)e->ref);
		uint64_t size = e->val & SIZE_MAX_STORED;
		out[n++] = (struct gt_heaplive_entry){ e->key, size > UINT32_MAX ? UINT32_MAX : (uint32_t)size,
						       (uint32_t)e->ref };
	}
out:
	gt_unlock(&lock);
	return n;
}

uint64_t gt_heapset_count(void)
{
	return count;
}

void gt_heapset_prepare(void)
{
	gt_lock(&lock);
}

void gt_heapset_parent(void)
{
	gt_unlock(&lock);
}

void gt_heapset_child(void)
{
	gt_lock_reset(&lock);
	epoch = (epoch + 1) & 0xffff;
}
