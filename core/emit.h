/* emit.h — the tracer's API for the interposers: one call per moment in a
 * thread's life (it waits, it is woken, it creates a thread, ...). Each call
 * captures what it needs, opens a write section and appends the events.
 * The calls live with their job: core/block.h (waits, wake-ups, yields),
 * core/goroutine.h (a thread's life as a goroutine), core/callwait.h (calls
 * that may wait in the kernel); this header gathers them.
 *
 * Interposers follow one pattern:
 *
 *     struct gt_thread *t = gt_enter();
 *     if (!t) return real(...);            // not tracing here: pass through
 *     ... try the non-blocking variant first; return if it succeeds ...
 *     int blocked = gt_block(t, reason, site, key); // GoBlock
 *     r = real(...);                       // the real wait, outside the tracer
 *     if (blocked) gt_unblock(t, r == 0);  // GoUnblock(self) + GoStart
 *
 * All calls preserve errno: the common paths make no system call, and each
 * slow path that may (a new chunk, a table lock, unwinding) saves and
 * restores it itself. */
#ifndef GT_EMIT_H
#define GT_EMIT_H

#include <stdatomic.h>
#include <stdint.h>

#include "block.h"
#include "callwait.h"
#include "goroutine.h"
#include "thread.h"
#include "tracer.h"

/* gt_enter returns the calling thread's state when its calls should be
 * traced, NULL when they should pass straight through. */
static inline struct gt_thread *gt_enter(void)
{
	struct gt_thread *t = &gt_self;
	if (__builtin_expect(t->inside != 0, 0))
		return gt_enter_nested(t);
	if (__builtin_expect(!atomic_load_explicit(&gt.on, memory_order_relaxed), 0))
		return NULL;
	return t;
}

#endif
