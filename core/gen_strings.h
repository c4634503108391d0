/* gen_strings.h — a closed generation's string table, written as Strings
 * batches (core/advance.c): the fixed strings (core/strtab.h), then every
 * string the generation's events and stacks named. Under gt.advance_lock. */
#ifndef GT_GEN_STRINGS_H
#define GT_GEN_STRINGS_H

#include <stdint.h>

#include "gen_out.h"

/* gt_gen_strings_carried puts into generation old's table, first, the
 * strings every generation carries whether an event names them or not:
 * the synthetic frames' names (core/stack.h), which process this is
 * (core/identity.h, read again now) and the heap sampling mean
 * (docs/heap.md). */
void gt_gen_strings_carried(uint64_t old);

/* gt_gen_strings_write appends generation old's string table to o. After
 * the stack table: symbolizing adds strings. */
void gt_gen_strings_write(struct gt_gen_out *o, uint64_t old, uint64_t ts);

#endif
