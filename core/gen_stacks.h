/* gen_stacks.h — a closed generation's stack table, symbolized now and
 * written as Stacks batches (core/advance.c). Under gt.advance_lock. */
#ifndef GT_GEN_STACKS_H
#define GT_GEN_STACKS_H

#include <stdint.h>

#include "gen_out.h"

/* gt_gen_stacks_write symbolizes every stack of generation old and
 * appends the table to o; the names go into old's string table, which is
 * written after it. final: the last generation (see bare() in the .c: a
 * death signal's may not allocate). */
void gt_gen_stacks_write(struct gt_gen_out *o, uint64_t old, uint64_t ts, int final);

/* gt_gen_stacks_warm opens the symbolizer and reads the program's own
 * executable's symbols ahead of the first switch (gt_advance_warm). */
void gt_gen_stacks_warm(void);

#endif
