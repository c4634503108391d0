/* heapsite.c — the process's allocation sites (heapsite.h). */
#include "heapsite.h"

#include <errno.h>
#include <string.h>

#include "lock.h"
#include "region.h"
#include "stacktab.h"
#include "tracer.h"

/* The hash table: record pointers (NULL: empty), open addressing, doubled
 * when half full, so its memory follows the number of sites; the number ->
 * record directory: pages of PAGE records, mapped when first needed. Records
 * never move. count is stored (release) after the record it counts is
 * complete, so gt_heapsite_at needs no lock. */
#define FIRST_SLOTS 1024
#define MAX_SITES (1u << 20)
#define PAGE 4096
#define PAGES (MAX_SITES / PAGE)

static struct gt_heapsite **slots;
static uint32_t nslots; /* power of two, or 0 */
static struct gt_heapsite **pages[PAGES];
static uint32_t count;
static gt_lock_t lock = GT_LOCK_INIT;
static struct gt_region mem; /* records */

static inline int same(const struct gt_heapsite *s, const uintptr_t *pcs, unsigned n, uint64_t hash)
{
	return s->hash == hash && s->n == n && memcmp(s->pcs, pcs, n * sizeof *pcs) == 0;
}

static inline uint32_t home(uint64_t hash, uint32_t n)
{
	return (uint32_t)(hash >> 32) & (n - 1);
}

static int grow(void)
{
	uint32_t n = nslots ? nslots * 2 : FIRST_SLOTS;
	struct gt_heapsite **ns = gt_map((size_t)n * sizeof *ns);
	if (!ns)
		return -1;
	for (uint32_t i = 0; i < nslots; i++) {
		if (!slots[i])
			continue;
		uint32_t j = home(slots[i]->hash, n);
		while (ns[j])
			j = (j + 1) & (n - 1);
		ns[j] = slots[i];
	}
	if (slots)
		gt_unmap(slots, (size_t)nslots * sizeof *slots);
	slots = ns;
	nslots = n;
	return 0;
}

static uint32_t get(const uintptr_t *pcs, unsigned n, uint64_t hash)
{
	if ((count + 1) * 2 > nslots && grow() != 0 && !nslots)
		return 0;
	uint32_t i = home(hash, nslots);
	for (; slots[i]; i = (i + 1) & (nslots - 1))
		if (same(slots[i], pcs, n, hash))
			return slots[i]->num;
	if (count + 1 >= MAX_SITES || (count + 1) * 2 > nslots + 2)
		return 0; /* full (could not grow): an unknown site */
	uint32_t num = count + 1;
	struct gt_heapsite **pg = pages[num / PAGE];
	if (!pg && !(pg = pages[num / PAGE] = gt_map(PAGE * sizeof *pg)))
		return 0;
	struct gt_heapsite *s = gt_region_alloc(&mem, sizeof *s + n * sizeof *pcs);
	if (!s)
		return 0;
	s->hash = hash;
	s->n = n;
	s->num = num;
	s->snap_gen = 0;
	s->snap_stack = 0;
	memcpy(s->pcs, pcs, n * sizeof *pcs);
	pg[num % PAGE] = s;
	slots[i] = s;
	__atomic_store_n(&count, num, __ATOMIC_RELEASE);
	return num;
}

uint32_t gt_heapsite_get(const uintptr_t *pcs, unsigned n, uint64_t hash)
{
	if (n == 0)
		return 0;
	int saved = errno;
	gt_lock(&lock);
	uint32_t num = get(pcs, n, hash);
	gt_unlock(&lock);
	errno = saved;
	return num;
}

struct gt_heapsite *gt_heapsite_at(uint32_t num)
{
	if (num == 0 || num > __atomic_load_n(&count, __ATOMIC_ACQUIRE))
		return NULL;
	struct gt_heapsite **pg = pages[num / PAGE];
	return pg ? pg[num % PAGE] : NULL;
}

uint32_t gt_heapsite_count(void)
{
	return __atomic_load_n(&count, __ATOMIC_ACQUIRE);
}

uint64_t gt_heapsite_stack_id(uint32_t num, uint64_t gen)
{
	const struct gt_heapsite *s = gt_heapsite_at(num);
	if (!s)
		return 0;
	int saved = errno;
	uint64_t id = gt_stacktab_put(&gt.stacks[gen & 1], s->hash, s->pcs, s->n);
	errno = saved;
	return id;
}

void gt_heapsite_lock(void) { gt_lock(&lock); }
void gt_heapsite_unlock(void) { gt_unlock(&lock); }
void gt_heapsite_after_fork(void) { gt_lock_reset(&lock); }
