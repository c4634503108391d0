/* event.h — what the event writers of core/ share (core/block.c,
 * core/goroutine.c, core/callwait.c, core/annotate.c): the opening of an
 * event that carries the thread's stack, and the one sequence several of
 * them end a wait with. Internal to the library. */
#ifndef GT_EVENT_H
#define GT_EVENT_H

#include <stdint.h>

#include "clock.h"
#include "section.h"
#include "stack.h"
#include "wake_ins.h"

/* An event being written that carries the thread's stack. */
struct gt_event {
	struct section s; /* open once gt_event_open returned 1 */
	uint64_t ts;      /* the event's time */
	uintptr_t *pcs;   /* its stack: the thread's scratch area or its wait stack */
	unsigned *n;      /* where the stack's frame count is kept */
	unsigned n_here;
};

/* Where the stack is taken to: the side area's scratch (used at once), or
 * the thread's wait stack (t->block_pcs, kept until the wait ends: the
 * wake-up may carry it). */
enum { GT_EVENT_SCRATCH, GT_EVENT_WAIT };

/* gt_event_open opens e, in the order that keeps the section short
 * (invariant 2): the stack at site is taken first, outside any section
 * (unwinding is the slow part); then e->ts, the event's time, is read from
 * the clock unless the caller gave one (at: a wait measured after the fact
 * begins at its start; 0 = now); then the section is opened at that time.
 * The caller has raised t->inside and made t ready (gt_ready). Returns 0
 * (no section open) when memory ran out. Inline: on a hot path it costs
 * what the three steps cost. */
static inline __attribute__((always_inline)) int gt_event_open(struct gt_event *e, struct gt_thread *t,
							       uintptr_t site, int where, uint64_t at)
{
	if (where == GT_EVENT_WAIT) {
		e->pcs = t->block_pcs;
		e->n = &t->block_n;
	} else {
		e->pcs = t->side->pcs;
		e->n = &e->n_here;
	}
	*e->n = gt_stack_capture(e->pcs, site);
	e->ts = at ? at : gt_now();
	return gt_section_open(&e->s, t, e->ts);
}

/* gt_event_begin: tracer work begins on t (t->inside raised: the caller
 * lowers it when done, whatever this returns), t is made ready to write
 * (gt_ready), and e is opened (gt_event_open). 0 when no section is open. */
static inline __attribute__((always_inline)) int gt_event_begin(struct gt_event *e, struct gt_thread *t,
								uintptr_t site, int where, uint64_t at)
{
	t->inside++;
	return gt_ready(t) == 0 && gt_event_open(e, t, site, where, at);
}

/* gt_event_stack: the id of e's stack in the section's generation. */
static inline uint64_t gt_event_stack(struct gt_event *e)
{
	return gt_stack_id(e->s.t, e->s.gen, e->pcs, *e->n);
}

/* gt_wake_no_waker: the stack of a wake-up that no thread of the program
 * caused (a sleep or timeout ending, data from outside, a wait seen after
 * the fact): one synthetic frame, "kernel.wakeup". The readers' scheduler-
 * latency profile puts the 1 ns they force between GoUnblock and GoStart
 * under the GoUnblock's stack: never the waiter's own. Not no stack: Go
 * 1.23's profiles skip stackless transitions, so its GoBlock → GoUnblock
 * intervals (-pprof=sync, net) would not end there. */
static inline uint64_t gt_wake_no_waker(struct gt_thread *t, uint64_t gen)
{
	uintptr_t pc = GT_PC_WAKE;
	return gt_stack_id(t, gen, &pc, 1);
}

/* gt_event_wake_self ends the thread's wait: GoUnblock(self) at uts with
 * stack stk (the waker's site, or gt_wake_no_waker), then GoStart at now
 * (invariant 3: both on the thread's own M). */
static inline void gt_event_wake_self(struct section *s, uint64_t uts, uint64_t now, uint64_t stk)
{
	struct gt_thread *t = s->t;
	ev3(s->b, GT_EV_GO_UNBLOCK, uts, t->g, ++t->g_seq, stk);
	ev2(s->b, GT_EV_GO_START, now, t->g, ++t->g_seq);
	t->state = GT_T_RUNNING;
}

/* gt_wake_open_ts: the time to open the section that ends a wait at uts
 * with waker w: 1 tick earlier when the GoUnblock may go to the releaser's
 * stream, so that statuses this section re-states (the waiter's first
 * event in a generation) come before that GoUnblock in time too, not only
 * by sequence number: readers that merge by time alone (`gotrace stat`)
 * then see the waiter before its wake-up. */
static inline uint64_t gt_wake_open_ts(const struct gt_waker *w, uint64_t uts)
{
	return w && w->n && w->mark.gen && uts > 0 ? uts - 1 : uts;
}

/* gt_event_woken ends the thread's wait that w's release ended (w NULL or
 * w->n 0: no waker found): when the releaser left a mark in this section's
 * generation, the GoUnblock is attached to the releaser's stream at the
 * release time (core/wake_ins.h) and only GoStart is written here, at now;
 * otherwise GoUnblock(self) at uts with the waker's site (or the
 * kernel.wakeup frame) and GoStart, as gt_event_wake_self. */
static inline void gt_event_woken(struct section *s, uint64_t uts, uint64_t now, const struct gt_waker *w)
{
	struct gt_thread *t = s->t;
	uint64_t at = w && w->n ? gt_wake_ins_attach(s->b, s->gen, t->g, &t->g_seq, w, uts) : 0;
	if (at) {
		/* Strictly after the GoUnblock: Go's readers (1.23 and 1.27)
		 * try the earliest event of each M, and when the earliest
		 * cannot advance they sort the rest by time and skip index 0
		 * as already tried; with a tie the GoUnblock could be sorted
		 * there and never tried ("failed to advance"). */
		if (now <= at)
			now = at + 1;
		ev2(s->b, GT_EV_GO_START, now, t->g, ++t->g_seq);
		t->state = GT_T_RUNNING;
		return;
	}
	uint64_t stk = w && w->n ? gt_stack_id(t, s->gen, w->pcs, w->n) : gt_wake_no_waker(t, s->gen);
	gt_event_wake_self(s, uts, now, stk);
}

#endif
