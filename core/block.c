/* block.c — a traced thread waits and is woken (block.h). */
#include "block.h"

#include "event.h"

/* One blocking wait in this many has its own CPU time measured (two
 * system calls); the others use the thread's last measurement. */
#define WAIT_CPU_EVERY 16

int gt_block(struct gt_thread *t, enum gt_str reason, uintptr_t site, uintptr_t key)
{
	int done = 0;
	struct gt_event e;
	if (!gt_event_begin(&e, t, site, GT_EVENT_WAIT, 0))
		goto out;
	gt_section_label(&e.s, e.ts);
	ev2(e.s.b, GT_EV_GO_BLOCK, e.ts, reason, gt_event_stack(&e));
	t->state = GT_T_BLOCKED;
	t->block_ts = e.ts;
	t->wait_key = key;
	t->wait_reason = (uint8_t)reason; /* core/deadlock.h */
	section_close(&e.s);
	/* The wait's own CPU time (the kernel's way in and out of it) is shown
	 * as running just before the wake-up (gt_unblock). Reading the thread's
	 * CPU clock is a system call (no vDSO for it): it is measured on one
	 * wait in WAIT_CPU_EVERY, and the others take the last measurement. */
	if (t->wait_cpu_left == 0) {
		t->block_cpu = gt_thread_cpu_ns();
		t->wait_cpu_left = WAIT_CPU_EVERY;
	} else {
		t->block_cpu = 0;
		t->wait_cpu_left--;
	}
	if (key)
		gt_waiter_add(key, 1);
	done = 1;
out:
	t->inside--;
	return done;
}

void gt_unblock(struct gt_thread *t, int woken)
{
	if (t->state != GT_T_BLOCKED)
		return;
	t->inside++;
	uintptr_t key = t->wait_key;
	if (key)
		gt_waiter_add(key, -1);
	t->wait_key = 0;
	uint64_t now = gt_now();
	/* Running again from when the CPU time the wait itself used began:
	 * the time after the wait returned less that CPU time (never before
	 * the wait began, nor before its waker's release). */
	uint64_t used = t->wait_cpu_est;
	if (t->block_cpu) {
		used = gt_thread_cpu_ns() - t->block_cpu;
		/* a wait's own CPU is the kernel's fixed cost, not the wait's
		 * length: keep the smaller of the last two, so that a preempted
		 * measurement does not stand for the next ones */
		uint64_t prev = t->wait_cpu_prev ? t->wait_cpu_prev : used;
		t->wait_cpu_est = prev < used ? prev : used;
		t->wait_cpu_prev = used;
		t->block_cpu = 0;
	}
	uint64_t start = now - t->block_ts > used ? now - used : t->block_ts;
	uint64_t uts = now;
	uintptr_t wpcs[GT_WAKE_FRAMES];
	unsigned wn = 0;
	if (woken && key)
		wn = gt_wake_find(key, t->block_ts, now, wpcs, &uts);
	if (!wn)
		uts = start; /* no waker: runnable when it ran */
	else if (start < uts)
		start = uts;
	struct section s;
	if (!gt_section_open(&s, t, uts))
		goto out;
	uint64_t stk = wn ? gt_stack_id(t, s.gen, wpcs, wn) : gt_wake_no_waker(t, s.gen);
	gt_event_wake_self(&s, uts, start, stk);
	gt_section_label(&s, now);
	section_close(&s);
out:
	t->inside--;
}

void gt_waited(struct gt_thread *t, enum gt_str reason, uintptr_t site, uint64_t t0, uint64_t min_ns)
{
	uint64_t now = gt_now();
	if (now - t0 < min_ns)
		return;
	struct gt_event e;
	if (!gt_event_begin(&e, t, site, GT_EVENT_WAIT, t0))
		goto out;
	gt_section_label(&e.s, e.ts);
	uint64_t stk = gt_event_stack(&e);
	ev2(e.s.b, GT_EV_GO_BLOCK, e.ts, reason, stk);
	t->state = GT_T_BLOCKED;
	gt_event_wake_self(&e.s, now, now, gt_wake_no_waker(t, e.s.gen));
	section_close(&e.s);
out:
	t->inside--;
}

void gt_wake_release(uintptr_t key, uintptr_t site, uintptr_t caller)
{
	gt_wake_leave(key, gt_now(), site, caller);
}

void gt_yield_begin(struct gt_thread *t, uintptr_t site)
{
	struct gt_event e;
	if (!gt_event_begin(&e, t, site, GT_EVENT_SCRATCH, 0))
		goto out;
	ev2(e.s.b, GT_EV_GO_STOP, e.ts, GT_STR_YIELD, gt_event_stack(&e));
	t->state = GT_T_RUNNABLE;
	section_close(&e.s);
out:
	t->inside--;
}

void gt_yield_end(struct gt_thread *t)
{
	if (t->state != GT_T_RUNNABLE)
		return;
	t->inside++;
	uint64_t ts = gt_now();
	struct section s;
	if (gt_section_open(&s, t, ts)) {
		ev2(s.b, GT_EV_GO_START, ts, t->g, ++t->g_seq);
		t->state = GT_T_RUNNING;
		section_close(&s);
	}
	t->inside--;
}
