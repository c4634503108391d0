/* typetab.h — a generation's heap type table: (requested size, allocation
 * site stack id) → type id, written as AllocFree experimental batches
 * (docs/heap.md). */
#ifndef GT_TYPETAB_H
#define GT_TYPETAB_H

#include <stdint.h>

#include "idmap.h"
#include "lock.h"

struct gt_typetab {
	gt_lock_t lock;
	struct gt_idmap map; /* key: uint64_t[2] = { size, stack id } */
};

void gt_typetab_init(struct gt_typetab *t);

/* gt_typetab_put returns the type id (>= 1) of (size, stack), 0 when out of
 * memory. Locks. */
uint64_t gt_typetab_put(struct gt_typetab *t, uint64_t size, uint64_t stack);

/* gt_typetab_reset empties the table. pre: no concurrent put. */
void gt_typetab_reset(struct gt_typetab *t);

#endif
