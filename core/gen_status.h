/* gen_status.h — what a closed generation still needs about its threads
 * beyond their own batches (core/advance.c): every live thread visible in
 * every generation, a call still waiting in the kernel shown as waiting,
 * and never a generation without a single event. Under gt.advance_lock. */
#ifndef GT_GEN_STATUS_H
#define GT_GEN_STATUS_H

#include <stdint.h>

#include "gen_out.h"

struct gt_thread;

/* gt_gen_status_thread writes into o, in a batch of t's own M (placed
 * after every thread's chunks), the beginning of a call t is still
 * waiting in (gt_call_convert, core/call.h) and t's statuses when it wrote
 * nothing in generation old. start_ts: when old began. Returns 1 when it
 * wrote an event. pre: reg_lock held, t outside any write section. */
int gt_gen_status_thread(struct gt_gen_out *o, struct gt_thread *t, uint64_t old, uint64_t ts, uint64_t start_ts);

/* gt_gen_status_idle writes an idle P's status: for a generation that
 * would otherwise hold no event at all (Go 1.23's reader rejects one). */
void gt_gen_status_idle(struct gt_gen_out *o, uint64_t old, uint64_t ts);

#endif
