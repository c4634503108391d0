/* wake_ins.h — a woken waiter's GoUnblock, written into its releaser's
 * event stream (docs/design.md, "Wake-ups: the releaser's GoUnblock").
 *
 * A releaser that finds waiters leaves a mark (core/wake.h: its open chunk,
 * the bytes written there and the time of its last event). The waiter, in
 * its own write section of the mark's generation, attaches an insertion to
 * that chunk: GoUnblock(waiter, seq, releaser's stack) at the release
 * time. The switch (core/gen_chunks.c) writes a chunk with insertions as
 * several batches of the releaser's M, in order: the bytes before the mark
 * (the chunk's base time), a batch of the inserted events, the bytes after
 * the mark (base time = the mark's last event time, so no event of the
 * chunk is re-encoded: each delta is from the previous event of its batch,
 * the first one's from the batch's base). Go's readers take an M's batches
 * in file order, so the GoUnblock reads as the releaser's event while its
 * goroutine runs.
 *
 * Lifetime: a chunk of generation gen is collected by the switch only once
 * every thread has left the write sections it entered in gen (core/
 * advance.c, step 2), and recycled after its bytes are written. A waiter
 * attaches only inside a section of the mark's generation, so the chunk
 * is alive and not yet read. Attaching is lock-free (several waiters of a
 * broadcast attach at once); the nodes come from this module's own mmap'd
 * slabs, one set per generation parity, reused once their generation is
 * written. */
#ifndef GT_WAKE_INS_H
#define GT_WAKE_INS_H

#include <stdint.h>

#include "chunk.h"
#include "gen_out.h"
#include "wake.h"

struct gt_wake_ins {
	struct gt_wake_ins *next;
	uint32_t off;     /* the mark: bytes of the chunk's batch before it */
	uint64_t last_ts; /* the mark's last event time */
	uint64_t ts;      /* the GoUnblock's time (>= last_ts) */
	uint64_t g, seq, stk;
};

/* gt_wake_ins_attach: inside the waiter's write section of generation gen
 * (b: its open batch; g, g_seq: its goroutine and that goroutine's seq
 * counter), if w names a marked release of gen, assigns the waiter's next
 * G seq to a GoUnblock at uts (clamped to the mark's time) and attaches it
 * to the releaser's chunk. Returns the GoUnblock's time when attached (the caller
 * then writes only its GoStart, strictly later: see gt_event_woken), 0
 * otherwise (no mark, another generation, no memory: the caller writes its
 * own GoUnblock as before). */
uint64_t gt_wake_ins_attach(struct gt_batch *b, uint64_t gen, uint64_t g, uint64_t *g_seq, const struct gt_waker *w,
			    uint64_t uts);

/* gt_wake_ins_write appends chunk c's batch to o, split around its
 * insertions (if any). At the switch, under gt.advance_lock. */
void gt_wake_ins_write(struct gt_chunk *c, struct gt_gen_out *o);

/* gt_wake_ins_reset makes generation gen's nodes free again, once its
 * chunks are written (the switch). */
void gt_wake_ins_reset(uint64_t gen);

#endif
