/* heapsite.c — the process's allocation sites (heapsite.h). */
#include "heapsite.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "lock.h"
#include "region.h"

/* The hash table: 2^SLOT_BITS record pointers (NULL: empty), at most half
 * full; the number -> record directory: pages of PAGE records. Both are
 * mapped on first use and never move (a full table numbers no more sites:
 * 0, an unknown site). */
#define SLOT_BITS 20
#define SLOTS (1u << SLOT_BITS)
#define MAX_SITES (SLOTS / 2)
#define PAGE 4096
#define PAGES (MAX_SITES / PAGE)

static _Atomic(struct gt_heapsite *) *slots;
static _Atomic(struct gt_heapsite **) pages[PAGES];
static _Atomic uint32_t count;
static gt_lock_t lock = GT_LOCK_INIT;
static struct gt_region mem; /* records, under lock */

static inline int same(const struct gt_heapsite *s, const uintptr_t *pcs, unsigned n, uint64_t hash)
{
	return s->hash == hash && s->n == n && memcmp(s->pcs, pcs, n * sizeof *pcs) == 0;
}

static uint32_t add(const uintptr_t *pcs, unsigned n, uint64_t hash)
{
	uint32_t num = 0;
	gt_lock(&lock);
	if (!slots) {
		void *m = gt_map((size_t)SLOTS * sizeof *slots);
		if (!m)
			goto out;
		atomic_store_explicit(&slots, m, memory_order_release);
	}
	uint32_t i = (uint32_t)(hash >> (64 - SLOT_BITS));
	for (;; i = (i + 1) & (SLOTS - 1)) {
		struct gt_heapsite *s = atomic_load_explicit(&slots[i], memory_order_relaxed);
		if (!s)
			break;
		if (same(s, pcs, n, hash)) {
			num = s->num;
			goto out;
		}
	}
	uint32_t c = atomic_load_explicit(&count, memory_order_relaxed);
	if (c + 1 >= MAX_SITES)
		goto out;
	uint32_t page = (c + 1) / PAGE;
	struct gt_heapsite **pg = atomic_load_explicit(&pages[page], memory_order_relaxed);
	if (!pg) {
		pg = gt_map(PAGE * sizeof *pg);
		if (!pg)
			goto out;
		atomic_store_explicit(&pages[page], pg, memory_order_release);
	}
	struct gt_heapsite *s = gt_region_alloc(&mem, sizeof *s + n * sizeof *pcs);
	if (!s)
		goto out;
	s->hash = hash;
	s->n = n;
	s->num = c + 1;
	s->snap_gen = 0;
	s->snap_stack = 0;
	memcpy(s->pcs, pcs, n * sizeof *pcs);
	pg[(c + 1) % PAGE] = s;
	atomic_store_explicit(&count, c + 1, memory_order_release);
	atomic_store_explicit(&slots[i], s, memory_order_release);
	num = s->num;
out:
	gt_unlock(&lock);
	return num;
}

uint32_t gt_heapsite_get(const uintptr_t *pcs, unsigned n, uint64_t hash)
{
	if (n == 0)
		return 0;
	_Atomic(struct gt_heapsite *) *sl = atomic_load_explicit(&slots, memory_order_acquire);
	if (sl) {
		for (uint32_t i = (uint32_t)(hash >> (64 - SLOT_BITS));; i = (i + 1) & (SLOTS - 1)) {
			struct gt_heapsite *s = atomic_load_explicit(&sl[i], memory_order_acquire);
			if (!s)
				break;
			if (same(s, pcs, n, hash))
				return s->num;
		}
	}
	int saved = errno;
	uint32_t num = add(pcs, n, hash);
	errno = saved;
	return num;
}

struct gt_heapsite *gt_heapsite_at(uint32_t num)
{
	if (num == 0 || num >= MAX_SITES || num > atomic_load_explicit(&count, memory_order_acquire))
		return NULL;
	struct gt_heapsite **pg = atomic_load_explicit(&pages[num / PAGE], memory_order_acquire);
	return pg ? pg[num % PAGE] : NULL;
}

uint32_t gt_heapsite_count(void)
{
	return atomic_load_explicit(&count, memory_order_relaxed);
}

void gt_heapsite_after_fork(void)
{
	gt_lock_reset(&lock);
}
