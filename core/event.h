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

/* gt_event_open opens the write section of an event that carries the
 * calling thread's stack, in the order that keeps the section short
 * (invariant 2): the stack at site is taken first, outside any section
 * (unwinding is the slow part), into pcs (GT_MAX_FRAMES entries: the
 * thread's side area), its frames counted in *n; then *ts, the event's
 * time, is read from the clock unless the caller gave one (at: a wait
 * measured after the fact begins at its start; 0 = now); then the section
 * is opened at that time. Returns 0 (no section open) when memory ran
 * out. Inline: on a hot path it costs what the three steps cost. */
static inline __attribute__((always_inline)) int gt_event_open(struct section *s, struct gt_thread *t,
							       uintptr_t site, uintptr_t *pcs, unsigned *n,
							       uint64_t at, uint64_t *ts)
{
	*n = gt_stack_capture(pcs, site);
	*ts = at ? at : gt_now();
	return gt_section_open(s, t, *ts);
}

/* gt_event_wake_self ends the thread's wait: GoUnblock(self) at uts with
 * stack stk, then GoStart at now (invariant 3: both on the thread's own
 * M). */
static inline void gt_event_wake_self(struct section *s, uint64_t uts, uint64_t now, uint64_t stk)
{
	struct gt_thread *t = s->t;
	ev3(s->b, GT_EV_GO_UNBLOCK, uts, t->g, ++t->g_seq, stk);
	ev2(s->b, GT_EV_GO_START, now, t->g, ++t->g_seq);
	t->state = GT_T_RUNNING;
}

#endif
