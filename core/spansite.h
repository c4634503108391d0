/* spansite.h — the sites of mappings, kept for the life of the process:
 * each distinct stack of a mapping call (raw PCs, as captured), so that a
 * span keeps its site in every generation — the snapshots and the pieces
 * a cut leaves state it in their own generation's stack table, and a
 * flight-recorder window or a trace whose first generations were dropped
 * still names where a long-lived mapping was made.
 *
 * At most GT_SPANSITES distinct stacks (mapping sites are few: an
 * allocator's two or three, a runtime's dozen); past that a new one is not
 * kept (its spans' sites are then known only in their first generation).
 * Memory straight from the kernel (the calls come from inside the
 * program's allocator), one lock, held for the lookup only. */
#ifndef GT_SPANSITE_H
#define GT_SPANSITE_H

#include <stdint.h>

#define GT_SPANSITES 4096

/* gt_spansite_keep returns the reference (>= 1) of pcs[0..n), hash =
 * gt_hash_words of them, or 0 when it cannot be kept. */
uint32_t gt_spansite_keep(const uintptr_t *pcs, unsigned n, uint64_t hash);

/* gt_spansite_id returns the stack id of site ref in generation gen's stack
 * table (putting it there), 0 for none. In a write section of gen, or on
 * the switch's thread for the generation it starts. */
uint64_t gt_spansite_id(uint32_t ref, uint64_t gen);

/* Fork handlers: the lock held across fork; the child's, free. */
void gt_spansite_lock(void);
void gt_spansite_unlock(void);
void gt_spansite_after_fork(void);

#endif
