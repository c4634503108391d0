/* strtab.c — per-generation string table. */
#include "strtab.h"

#include "../encoder/wire.h"
#include "hash.h"

const char *const gt_fixed_strings[GT_STR_FIRST_DYNAMIC] = {
	[GT_STR_NONE] = "",
	[GT_STR_SYNC_MUTEX] = "sync.mutex",
	[GT_STR_SYNC_RWLOCK] = "sync.rwlock",
	[GT_STR_SYNC_SPIN] = "sync.spinlock",
	[GT_STR_SYNC_COND] = "sync.cond",
	[GT_STR_SYNC_JOIN] = "sync.join",
	[GT_STR_SYNC_BARRIER] = "sync.barrier",
	[GT_STR_SYNC_SEM] = "sync.semaphore",
	[GT_STR_SLEEP] = "sleep",
	[GT_STR_YIELD] = "sched_yield",
	[GT_STR_NETWORK] = "network",
	[GT_STR_SYNC_SIGNAL] = "sync.signal",
	[GT_STR_SYNC_EVENTFD] = "sync.eventfd", /* issue 15 item 2 */
	/* issue 15 item 1: raw futex waits */
	[GT_STR_SYNC_FUTEX] = "sync.futex",
};

void gt_strtab_init(struct gt_strtab *t)
{
	gt_lock_reset(&t->lock);
	gt_idmap_init(&t->map, GT_STR_FIRST_DYNAMIC);
}

uint64_t gt_strtab_put(struct gt_strtab *t, const char *s, size_t len)
{
	if (len > GT_MAX_STRING)
		len = GT_MAX_STRING;
	if (len == 0)
		return 0;
	uint64_t h = gt_hash_bytes(s, len);
	gt_lock(&t->lock);
	uint64_t id = gt_idmap_put(&t->map, h, s, (uint32_t)len);
	gt_unlock(&t->lock);
	return id;
}

void gt_strtab_reset(struct gt_strtab *t)
{
	gt_idmap_reset(&t->map);
}
