/* inline.h — generation switches done by a program thread (no flusher).
 *
 * While no flusher runs (core/flusher.h), the thread that writes an event
 * after a generation is due ends it itself: gt_section_open compares the
 * event's time with gt_inline_due (one load; UINT64_MAX while a flusher
 * runs) before it enters its section (invariant 2 of tracer.h). The switch
 * runs on the tracer's own stack with every signal blocked
 * (core/ownstack.h), and only when nothing of the tracer is interrupted on
 * that thread: the thread's `inside` count is exactly the current
 * operation's own, plus pending-call guards (`quiet`), which leave the
 * tracer's state consistent. A thread that cannot switch now leaves the
 * work to the next event. An early end asked for from below (a generation
 * grown big: core/request.h) sets gt_inline_due to 0. */
#ifndef GT_INLINE_H
#define GT_INLINE_H

#include <stdatomic.h>
#include <stdint.h>

#include "request.h" /* gt_inline_due: when the next switch is due */

struct gt_thread;

/* gt_inline_advance: an event at ts >= gt_inline_due is about to be written
 * by t, whose current operation raised t->inside once. Ends the generation
 * (or takes a requested flight-recorder snapshot) when it safely can. */
void gt_inline_advance(struct gt_thread *t);

/* gt_inline_request_snapshot: a snapshot is wanted; taken by the next
 * event (or at once by gt_inline_try_now). */
void gt_inline_request_snapshot(void);

/* gt_inline_try_now does what is due on the calling thread if nothing of
 * the tracer is interrupted on it (a signal handler: own == 0). */
void gt_inline_try_now(struct gt_thread *t, int own);

/* gt_inline_switch does a switch of kind GT_ADV_* (core/advance.h) on the
 * calling thread now, whether a flusher runs or not (exit, death, exec),
 * waiting at most timeout_ms for another writer; -1 when it cannot (the
 * tracer is interrupted on this thread), 0 when done or nothing was left. */
int gt_inline_switch(struct gt_thread *t, int own, int kind, int timeout_ms);

/* gt_inline_flusher: a flusher started (1) or stopped (0). When it starts,
 * returns 1 if an early end was requested and not done yet, and hands it
 * the snapshots asked for (*snapshots). */
int gt_inline_flusher(int running, int *snapshots);

#endif
