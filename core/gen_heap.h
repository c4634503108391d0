/* gen_heap.h — a closed generation's heap tables (docs/heap.md): the
 * AllocFree info batch and the type table, written when heap events are on
 * (core/advance.c). Under gt.advance_lock. */
#ifndef GT_GEN_HEAP_H
#define GT_GEN_HEAP_H

#include <stdint.h>

#include "gen_out.h"

/* gt_gen_heap_write appends generation old's info batch and type table to
 * o (nothing when heap events are off). */
void gt_gen_heap_write(struct gt_gen_out *o, uint64_t old, uint64_t ts);

#endif
