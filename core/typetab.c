/* typetab.c — per-generation heap type table. */
#include "typetab.h"

#include "hash.h"

void gt_typetab_init(struct gt_typetab *t)
{
	gt_lock_reset(&t->lock);
	gt_idmap_init(&t->map, 1);
}

uint64_t gt_typetab_put(struct gt_typetab *t, uint64_t size, uint64_t stack)
{
	uintptr_t key[2] = { size, stack };
	uint64_t h = gt_hash_words(key, 2);
	gt_lock(&t->lock);
	uint64_t id = gt_idmap_put(&t->map, h, key, sizeof key);
	gt_unlock(&t->lock);
	return id;
}

void gt_typetab_reset(struct gt_typetab *t)
{
	gt_idmap_reset(&t->map);
}
