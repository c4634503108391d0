/* snapout.h — batches that restate what is live at a generation's start
 * (the live-heap snapshot, core/gen_snap.h; the mapped-memory snapshot,
 * core/gen_spans.h), as Go's runtime restates its memory.
 *
 * They are written by the thread that switches generations right after it
 * wrote the generation before, into memory of their own, on M =
 * GT_SNAPSHOT_M (encoder/wire.h: no thread's) and based at the new
 * generation's start; they go out with that generation's tables when it
 * ends (gt_snapout_write), then the memory is kept for the next snapshot
 * (gt_snapout_done: not many more blocks than the last one needed, so a
 * heap that shrank gives its memory back). A million live objects take
 * ~7 MB of batches per generation: mapping and unmapping them each time
 * would cost more than writing them. One owner, serialized by the caller
 * (gt.advance_lock). */
#ifndef GT_SNAPOUT_H
#define GT_SNAPOUT_H

#include <stddef.h>
#include <stdint.h>

#include "../encoder/writer.h"
#include "gen_out.h"

struct gt_snapout {
	uint8_t **blocks; /* mapped once, reused; the first `used` hold batches */
	size_t *lens;
	size_t nblocks, capblocks, used;
	uint64_t gen;     /* the generation whose batches are held; 0: none */
	uint64_t ts;      /* its start: every batch's base time */
	struct gt_batch b; /* the batch being written, when open */
	int open;
};

/* gt_snapout_begin starts the snapshot of generation gen (started at ts);
 * what an earlier one held is dropped. */
void gt_snapout_begin(struct gt_snapout *s, uint64_t gen, uint64_t ts);

/* gt_snapout_room makes s->b an open batch with room for `need` bytes
 * (one event of GT_EVENT_MAX(nargs)); 0, or -1 without memory. Inline:
 * the live-heap snapshot asks once per run of events. */
int gt_snapout_next(struct gt_snapout *s);
static inline int gt_snapout_room(struct gt_snapout *s, size_t need)
{
	if (__builtin_expect(s->open && gt_batch_room(&s->b) >= need, 1))
		return 0;
	return gt_snapout_next(s);
}

/* gt_snapout_end closes the open batch; the snapshot is complete. */
void gt_snapout_end(struct gt_snapout *s);

/* gt_snapout_bytes: the bytes of its finished batches. */
size_t gt_snapout_bytes(const struct gt_snapout *s);

/* gt_snapout_write appends gen's batches to o (nothing if it holds
 * another generation's); gt_snapout_done once o was written out. */
void gt_snapout_write(const struct gt_snapout *s, struct gt_gen_out *o, uint64_t gen);
void gt_snapout_done(struct gt_snapout *s);

/* gt_snapout_forget: a forked child's trace starts again without them. */
void gt_snapout_forget(struct gt_snapout *s);

#endif
