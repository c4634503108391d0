/* block.c — a traced thread waits and is woken (block.h). */
#include "block.h"

#include <errno.h>

#include "call.h"
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
	uint64_t stk = gt_event_stack(&e);
	t->undo_chunk = t->chunk[e.s.gen & 1];
	t->undo_gen = e.s.gen;
	t->undo_off = (uint32_t)e.s.b->len;
	t->undo_ts = e.s.b->last_ts;
	ev2(e.s.b, GT_EV_GO_BLOCK, e.ts, reason, stk);
	t->undo_end = (uint32_t)e.s.b->len;
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

/* take_back: a keyed wait shorter than GT_SHORT_WAIT_NS that no recorded
 * release ended: the object was freed before the waiter counted itself in
 * (between its try and its GoBlock), so the releaser saw no waiter and left
 * no record; the thread did not wait for anyone but spun. Its GoBlock is
 * taken back, when it is still the last thing in the thread's chunk of
 * this generation (nothing written since, not even a signal handler's
 * event; no mark can follow it: the thread was not running), as calls
 * that may wait are recorded only from GT_SHORT_WAIT_NS. 1 when done. */
static int take_back(struct gt_thread *t, uint64_t ts)
{
	struct section s;
	if (!t->undo_chunk || !gt_section_open(&s, t, ts))
		return 0;
	int done = 0;
	if (s.gen == t->undo_gen && t->chunk[s.gen & 1] == t->undo_chunk && s.b->len == t->undo_end) {
		s.b->len = t->undo_off;
		s.b->last_ts = t->undo_ts;
		t->state = GT_T_RUNNING;
		done = 1;
	}
	section_close(&s);
	t->undo_chunk = NULL;
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
	struct gt_waker w;
	unsigned wn = 0;
	if (woken && key)
		wn = gt_wake_find(key, t->block_ts, now, &w);
	if (!wn)
		uts = start; /* no waker: runnable when it ran */
	else if (start < (uts = w.ts))
		start = uts;
	struct section s;
	if (!wn && woken && key && now - t->block_ts < GT_SHORT_WAIT_NS && take_back(t, start))
		goto out;
	if (!gt_section_open(&s, t, gt_wake_open_ts(wn ? &w : NULL, uts)))
		goto out;
	gt_event_woken(&s, uts, start, wn ? &w : NULL);
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

/* The releaser's mark (core/wake_ins.h): its full stack is taken (a
 * remembered one when the wrapper handed its frame: ra, cfa), then a write
 * section is opened, which makes sure it has a chunk in the generation and
 * has re-stated its statuses there (a releaser that wrote nothing yet in
 * this generation opens its chunk now: the waiter's GoUnblock must follow
 * its GoStatus); the mark is where that chunk ends. The release time is
 * read after the stack and is never before the chunk's last event. No
 * event is written. pre: t->inside raised, no section open. */
static void release_marked(struct gt_thread *t, uintptr_t key, uintptr_t site, uintptr_t caller, uintptr_t ra,
			   uintptr_t cfa)
{
	if (t->state != GT_T_RUNNING || !t->side) {
		gt_wake_leave(key, gt_now(), site, caller, NULL);
		return;
	}
	int saved = errno; /* the program's, around its unlock */
	struct gt_stack st;
	gt_stack_take_at(&st, site, ra, cfa);
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts)) {
		gt_wake_leave(key, ts, site, caller, NULL);
		errno = saved;
		return;
	}
	struct gt_wake_mark m;
	m.stk = gt_stack_take_id(t, s.gen, &st);
	m.gen = s.gen;
	m.chunk = t->chunk[s.gen & 1];
	m.off = (uint32_t)s.b->len;
	m.last_ts = s.b->last_ts;
	if (ts < m.last_ts)
		ts = m.last_ts;
	section_close(&s);
	gt_wake_leave(key, ts, site, caller, &m);
	errno = saved;
}

void gt_wake_release_thread(struct gt_thread *t, uintptr_t key, uintptr_t site, uintptr_t caller)
{
	t->inside++;
	release_marked(t, key, site, caller, 0, 0);
	t->inside--;
}

/* inside raised: tracer work, perhaps a section this call interrupts (a
 * signal handler's sem_post): no section here, no mark */
static int can_mark(struct gt_thread *t)
{
	return t->inside == 0 && atomic_load_explicit(&gt.on, memory_order_relaxed) && t->state == GT_T_RUNNING;
}

void gt_wake_release(uintptr_t key, uintptr_t site, uintptr_t caller)
{
	struct gt_thread *t = &gt_self;
	if (!can_mark(t)) {
		gt_wake_leave(key, gt_now(), site, caller, NULL);
		return;
	}
	t->inside++;
	release_marked(t, key, site, caller, 0, 0);
	t->inside--;
}

void gt_wake_release_at(uintptr_t key, uintptr_t site, uintptr_t caller, uintptr_t cfa)
{
	struct gt_thread *t = &gt_self;
	if (!can_mark(t)) {
		gt_wake_leave(key, gt_now(), site, caller, NULL);
		return;
	}
	t->inside++;
	release_marked(t, key, site, caller, caller, cfa);
	t->inside--;
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
