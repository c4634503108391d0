/* callwait.c — the thread's side of calls that may wait in the kernel
 * (callwait.h; the protocol: core/call.h). */
#include "callwait.h"

#include <errno.h>

#include "event.h"
#include "inline.h"
#include "sys.h"

void gt_call_begin_slow(struct gt_thread *t, int kind, uintptr_t site, uintptr_t caller)
{
	/* pre: t->inside raised by gt_call_begin */
	if (gt_ready_slow(t) != 0)
		return; /* call_t0 stays 0: gt_call_end records nothing */
	t->call_kind = (uint8_t)kind;
	t->call_site = site;
	t->call_caller = caller;
	atomic_store_explicit(&t->call_t0, gt_now(), memory_order_release);
}

/* switch_during_call: a generation fell due while t waited in a call and no
 * flusher converted it: t switches now, the call still pending, so the
 * switch writes the call's beginning into the generation it began in, with
 * the full stack taken here (gt_call_convert), and t writes only its end. */
static void switch_during_call(struct gt_thread *t)
{
	int saved = errno;
	t->block_n = gt_stack_capture(t->block_pcs, t->call_site);
	t->call_stack = 1;
	gt_inline_advance(t);
	t->call_stack = 0;
	errno = saved;
}

void gt_call_end(struct gt_thread *t)
{
	t->quiet--; /* the call is over: from here on this is tracer work */
	uint64_t now = gt_now();
	if (__builtin_expect(now >= atomic_load_explicit(&gt_inline_due, memory_order_relaxed), 0) &&
	    atomic_load_explicit(&t->call_t0, memory_order_relaxed) != 0)
		switch_during_call(t);
	uint64_t v = atomic_exchange_explicit(&t->call_t0, 0, memory_order_acq_rel);
	if (v == 0) {
		t->inside--;
		return;
	}
	if (__builtin_expect(v < GT_CALL_CLAIMED && now - v < GT_SHORT_WAIT_NS, 1)) {
		t->inside--;
		return;
	}
	int saved = errno;
	if (v == GT_CALL_CLAIMED) {
		/* The flusher is writing the call's beginning right now. */
		while (atomic_load_explicit(&t->call_t0, memory_order_acquire) != GT_CALL_CONVERTED)
			gt_sys_yield();
		atomic_store_explicit(&t->call_t0, 0, memory_order_relaxed);
		v = GT_CALL_CONVERTED;
	}
	struct section s;
	if (v == GT_CALL_CONVERTED) {
		if (!gt_section_open(&s, t, now))
			goto out;
		if (t->state == GT_T_BLOCKED) {
			gt_event_wake_self(&s, now, now, gt_wake_no_waker(t, s.gen));
		} else if (t->state == GT_T_SYSCALL) {
			ev0(s.b, GT_EV_GO_SYSCALL_END, now);
			t->state = GT_T_RUNNING;
		}
		section_close(&s);
		goto out;
	}
	/* A wait worth showing that no generation switch saw: write it now,
	 * from its start v. */
	struct gt_event e;
	if (!gt_event_open(&e, t, t->call_site, GT_EVENT_WAIT, v))
		goto out;
	uint64_t stk = gt_event_stack(&e);
	uint64_t reason = gt_call_reason(t->call_kind);
	if (reason) {
		ev2(e.s.b, GT_EV_GO_BLOCK, e.ts, reason, stk);
		t->state = GT_T_BLOCKED;
		gt_event_wake_self(&e.s, now, now, gt_wake_no_waker(t, e.s.gen));
	} else {
		ev2(e.s.b, GT_EV_GO_SYSCALL_BEGIN, e.ts, ++t->p->seq, stk);
		ev0(e.s.b, GT_EV_GO_SYSCALL_END, now);
	}
	section_close(&e.s);
out:
	t->inside--;
	errno = saved;
}

void gt_call_cancelled(struct gt_thread *t)
{
	if (atomic_exchange(&t->call_t0, 0) == GT_CALL_CLAIMED) {
		while (atomic_load(&t->call_t0) != GT_CALL_CONVERTED)
			gt_sys_yield();
		atomic_store(&t->call_t0, 0);
	}
}
