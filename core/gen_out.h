/* gen_out.h — the bytes of a closed generation being put together for one
 * write (core/advance.c): a list of buffers in the switch's own memory, and
 * the table batches (strings, stacks, statuses) filled there.
 *
 * The switch's memory is a region (mmap'd, core/region.h) emptied after
 * each switch. No malloc: a switch may run while the program's allocator
 * is the program's own (Chromium's) and its lock is held by the thread a
 * death signal interrupted. Used under gt.advance_lock only. */
#ifndef GT_GEN_OUT_H
#define GT_GEN_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../encoder/writer.h"

/* gt_gen_alloc returns n bytes of the switch's memory, or NULL;
 * gt_gen_free_all gives all of it back at the end of the switch. */
void *gt_gen_alloc(size_t n);
void gt_gen_free_all(void);

/* A growing list of buffers to write with writev. */
struct gt_gen_out {
	struct iovec *iov;
	int n, cap;
};

/* gt_gen_out_add appends p[0..len) (nothing when len is 0; dropped when
 * memory runs out). p must live until the generation is written. */
void gt_gen_out_add(struct gt_gen_out *o, void *p, size_t len);

/* A table batch being filled in the switch's memory, appended to o when
 * closed. section: GT_EV_STRINGS / GT_EV_STACKS, or 0 for an event batch
 * of M m. */
struct gt_gen_batch {
	struct gt_gen_out *o;
	struct gt_batch b;
	int open;
	uint8_t section;
	uint64_t gen, m, ts;
};

#define GT_GEN_BATCH_CAP (GT_MAX_BATCH + 64)

/* gt_gen_batch_room makes sure need bytes fit, closing the open batch and
 * starting a new one when not. Returns 0, or -1 when memory ran out. */
int gt_gen_batch_room_slow(struct gt_gen_batch *t, size_t need);
static inline int gt_gen_batch_room(struct gt_gen_batch *t, size_t need)
{
	if (t->open && gt_batch_room(&t->b) >= need)
		return 0;
	return gt_gen_batch_room_slow(t, need);
}

/* gt_gen_batch_close finishes the open batch, if any, and appends it. */
void gt_gen_batch_close(struct gt_gen_batch *t);

#endif
