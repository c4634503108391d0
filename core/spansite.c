/* spansite.c — the sites of mappings (spansite.h). */
#include "spansite.h"

#include <errno.h>
#include <string.h>

#include "lock.h"
#include "region.h"
#include "stacktab.h"
#include "tracer.h"

struct site {
	uint64_t hash;
	uint32_t n;
	uintptr_t pcs[];
};

static gt_lock_t lock = GT_LOCK_INIT;
static struct gt_region mem;                   /* never emptied */
static struct site *sites[GT_SPANSITES + 1];   /* by reference; [0] unused */
static uint32_t index_[2 * GT_SPANSITES];      /* open addressing: hash -> reference */
static uint32_t nsites;

uint32_t gt_spansite_keep(const uintptr_t *pcs, unsigned n, uint64_t hash)
{
	if (n == 0)
		return 0;
	uint32_t ref = 0;
	int saved = errno; /* the lock may sleep in futex, the region map */
	gt_lock(&lock);
	uint32_t i = (uint32_t)hash & (2 * GT_SPANSITES - 1);
	for (;;) {
		uint32_t r = index_[i];
		if (r == 0)
			break;
		const struct site *s = sites[r];
		if (s->hash == hash && s->n == n && memcmp(s->pcs, pcs, n * sizeof *pcs) == 0) {
			ref = r;
			goto out;
		}
		i = (i + 1) & (2 * GT_SPANSITES - 1);
	}
	if (nsites < GT_SPANSITES) {
		struct site *s = gt_region_alloc(&mem, sizeof *s + n * sizeof *pcs);
		if (s) {
			s->hash = hash;
			s->n = n;
			memcpy(s->pcs, pcs, n * sizeof *pcs);
			ref = nsites + 1;
			sites[ref] = s;
			index_[i] = ref;
			__atomic_store_n(&nsites, ref, __ATOMIC_RELEASE);
		}
	}
out:
	gt_unlock(&lock);
	errno = saved;
	return ref;
}

uint64_t gt_spansite_id(uint32_t ref, uint64_t gen)
{
	if (ref == 0 || ref > __atomic_load_n(&nsites, __ATOMIC_ACQUIRE))
		return 0;
	const struct site *s = sites[ref]; /* written before nsites grew past ref, never changed */
	int saved = errno;
	uint64_t id = gt_stacktab_put(&gt.stacks[gen & 1], s->hash, s->pcs, s->n);
	errno = saved;
	return id;
}

void gt_spansite_lock(void) { gt_lock(&lock); }
void gt_spansite_unlock(void) { gt_unlock(&lock); }
void gt_spansite_after_fork(void) { gt_lock_reset(&lock); }
