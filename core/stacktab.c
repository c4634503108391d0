/* stacktab.c — per-generation stack table. */
#include "stacktab.h"

void gt_stacktab_init(struct gt_stacktab *t)
{
	gt_lock_reset(&t->lock);
	gt_idmap_init(&t->map, 1);
}

uint64_t gt_stacktab_put(struct gt_stacktab *t, uint64_t hash, const uintptr_t *pcs, size_t n)
{
	if (n == 0)
		return 0;
	gt_lock(&t->lock);
	uint64_t id = gt_idmap_put(&t->map, hash, pcs, (uint32_t)(n * sizeof *pcs));
	gt_unlock(&t->lock);
	return id;
}

void gt_stacktab_reset(struct gt_stacktab *t)
{
	gt_idmap_reset(&t->map);
}
