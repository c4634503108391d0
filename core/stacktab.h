/* stacktab.h — a generation's stack table: raw PC arrays → stack id.
 *
 * A stack is stored as captured on the hot path (raw PCs, no symbols); the
 * flusher symbolizes each entry when it writes the generation out.
 * Convention for every stored stack: pcs[0] is an exact address (the
 * interposed function, or a thread's start routine), pcs[1..] are return
 * addresses from unwinding. */
#ifndef GT_STACKTAB_H
#define GT_STACKTAB_H

#include <stddef.h>
#include <stdint.h>

#include "idmap.h"
#include "lock.h"

struct gt_stacktab {
	gt_lock_t lock;
	struct gt_idmap map;
};

void gt_stacktab_init(struct gt_stacktab *t);

/* gt_stacktab_put returns the id (>= 1) of pcs[0..n), hash = gt_hash_words
 * of them, or 0 when out of memory. Locks. */
uint64_t gt_stacktab_put(struct gt_stacktab *t, uint64_t hash, const uintptr_t *pcs, size_t n);

/* gt_stacktab_reset empties the table. pre: no concurrent put. */
void gt_stacktab_reset(struct gt_stacktab *t);

#endif
