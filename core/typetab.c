/* typetab.c — per-generation heap type table, sharded by key hash. */
#include "typetab.h"

#include "hash.h"

void gt_typetab_init(struct gt_typetab *t)
{
	for (int i = 0; i < GT_TYPE_SHARDS; i++) {
		gt_lock_reset(&t->shard[i].lock);
		gt_idmap_init(&t->shard[i].map, 1);
	}
}

uint64_t gt_typetab_put(struct gt_typetab *t, uint64_t size, uint64_t stack)
{
	uintptr_t key[2] = { size, stack };
	uint64_t h = gt_hash_words(key, 2);
	unsigned k = (unsigned)(h >> 60) & (GT_TYPE_SHARDS - 1);
	struct gt_typetab_shard *s = &t->shard[k];
	gt_lock(&s->lock);
	uint64_t id = gt_idmap_put(&s->map, h, key, sizeof key);
	gt_unlock(&s->lock);
	return id ? (id - 1) * GT_TYPE_SHARDS + k + 1 : 0;
}

struct each_ctx {
	void (*fn)(void *ctx, uint64_t id, uint64_t size, uint64_t stack);
	void *ctx;
	unsigned shard;
};

static void each_entry(void *p, const struct gt_idmap_entry *e)
{
	struct each_ctx *c = p;
	const uintptr_t *key = (const uintptr_t *)e->key;
	c->fn(c->ctx, (e->id - 1) * GT_TYPE_SHARDS + c->shard + 1, key[0], key[1]);
}

void gt_typetab_each(const struct gt_typetab *t, void (*fn)(void *ctx, uint64_t id, uint64_t size, uint64_t stack),
		     void *ctx)
{
	for (unsigned i = 0; i < GT_TYPE_SHARDS; i++) {
		struct each_ctx c = { fn, ctx, i };
		gt_idmap_each(&t->shard[i].map, each_entry, &c);
	}
}

void gt_typetab_reset(struct gt_typetab *t)
{
	for (int i = 0; i < GT_TYPE_SHARDS; i++)
		gt_idmap_reset(&t->shard[i].map);
}
