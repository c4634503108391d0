/* typetab.h — a generation's heap type table: (requested size, allocation
 * site stack id) → type id, written as AllocFree experimental batches
 * (docs/heap.md). */
#ifndef GT_TYPETAB_H
#define GT_TYPETAB_H

#include <stdint.h>

#include "idmap.h"
#include "lock.h"

/* Sharded: allocation-heavy threads miss their type caches often (many
 * sizes), and one lock would serialize them. A type id is
 * (id within its shard - 1) * GT_TYPE_SHARDS + shard + 1. */
#define GT_TYPE_SHARDS 16

struct gt_typetab_shard {
	gt_lock_t lock;
	struct gt_idmap map; /* key: uint64_t[2] = { size, stack id } */
	char pad[64];
};

struct gt_typetab {
	struct gt_typetab_shard shard[GT_TYPE_SHARDS];
};

void gt_typetab_init(struct gt_typetab *t);

/* gt_typetab_put returns the type id (>= 1) of (size, stack), 0 when out of
 * memory. Locks one shard. */
uint64_t gt_typetab_put(struct gt_typetab *t, uint64_t size, uint64_t stack);

/* gt_typetab_each calls fn for every entry with its type id. */
void gt_typetab_each(const struct gt_typetab *t, void (*fn)(void *ctx, uint64_t id, uint64_t size, uint64_t stack),
		     void *ctx);

/* gt_typetab_reset empties the table. pre: no concurrent put. */
void gt_typetab_reset(struct gt_typetab *t);

#endif
