/* gen_stacks.h — a closed generation's stack table, symbolized now and
 * written as Stacks batches (core/advance.c). Under gt.advance_lock. */
#ifndef GT_GEN_STACKS_H
#define GT_GEN_STACKS_H

#include <stddef.h>
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

/* gt_gen_stacks_name names one pc with the stack tables' symbolizer
 * (core/symbols.h, gt_sym_lookup: frames innermost first), for a message
 * such as the deadlock report (core/deadlock.c). pre: gt.advance_lock
 * held (the symbolizer is used by one thread at a time), on a stack of
 * 256 KiB or more. */
struct gt_sym_frame;
size_t gt_gen_stacks_name(uintptr_t pc, int is_ret, struct gt_sym_frame *out, size_t max);

#endif
