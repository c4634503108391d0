/* gen_chunks.h — the event batches of a closed generation: the chunks its
 * threads wrote (open and full), collected, put in writer order and
 * appended to the generation's bytes (core/advance.c). Under
 * gt.advance_lock. */
#ifndef GT_GEN_CHUNKS_H
#define GT_GEN_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "chunk.h"
#include "gen_out.h"

struct gt_gen_chunks {
	struct gt_chunk **v; /* in the switch's memory (core/gen_out.h) */
	size_t n, cap;
};

/* gt_gen_chunks_add collects c (returned to the pool at once when memory
 * runs out: its events are lost). */
void gt_gen_chunks_add(struct gt_gen_chunks *c, struct gt_chunk *ch);

/* gt_gen_chunks_add_full collects every queued full chunk of gen. */
void gt_gen_chunks_add_full(struct gt_gen_chunks *c, uint64_t gen);

/* gt_gen_chunks_write puts the chunks in writer order (each thread's in
 * the order it wrote them) and appends their batches to o. */
void gt_gen_chunks_write(struct gt_gen_chunks *c, struct gt_gen_out *o);

/* gt_gen_chunks_recycle returns the chunks to the pool once written. */
void gt_gen_chunks_recycle(struct gt_gen_chunks *c);

#endif
