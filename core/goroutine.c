/* goroutine.c — a traced thread's life as a goroutine (goroutine.h). */
#include "goroutine.h"

#include <errno.h>
#include <string.h>

#include "block.h"
#include "callwait.h"
#include "event.h"
#include "hash.h"
#include "heapsite.h"
#include "identity.h"

uint64_t gt_new_goroutine(void)
{
	return atomic_fetch_add(&gt.next_g, 1);
}

uint64_t gt_create(struct gt_thread *t, uint64_t new_g, uintptr_t start_pc, uintptr_t site, uint64_t at,
		   uint32_t *kept)
{
	int saved = errno;
	uint64_t gen = 0;
	struct gt_event e;
	if (kept)
		*kept = 0;
	if (!gt_event_begin(&e, t, site, GT_EVENT_SCRATCH, at))
		goto out;
	gt_section_label(&e.s, e.ts);
	uint64_t new_stk = gt_stack_id(t, e.s.gen, &start_pc, 1);
	ev3(e.s.b, GT_EV_GO_CREATE, e.ts, new_g, new_stk, gt_event_stack(&e));
	gen = e.s.gen;
	section_close(&e.s);
	if (kept && *e.n) /* the scratch stack is still there: outside the section */
		*kept = gt_heapsite_get(e.pcs, *e.n, gt_hash_words(e.pcs, *e.n));
out:
	t->inside--;
	errno = saved;
	return gen;
}

void gt_thread_begin(struct gt_thread *t, uint64_t g, uintptr_t start_pc, uint64_t create_gen, uint64_t created)
{
	int saved = errno;
	t->inside++;
	gt_thread_register(t, g, start_pc);
	if (!t->p)
		goto out;
	/* strictly after the GoCreate (and the creator's statuses stamped
	 * with it): Go's readers may skip an event that ties in time with the
	 * earliest one when that one cannot advance (core/event.h,
	 * gt_event_woken) */
	uint64_t ts = gt_began_running(gt_now(), created + 1);
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	gt_section_proc_status(&s, ts, GT_P_IDLE);
	ev2(s.b, GT_EV_PROC_START, ts, t->p->id, ++t->p->seq);
	if (s.gen != create_gen)
		ev3(s.b, GT_EV_GO_STATUS, ts, g, GT_NO_THREAD, GT_G_RUNNABLE);
	t->g_seq = 0;
	ev2(s.b, GT_EV_GO_START, ts, g, ++t->g_seq);
	gt_section_born(&s, GT_T_RUNNING);
	gt_section_label(&s, ts);
	section_close(&s);
out:
	t->inside--;
	errno = saved;
}

void gt_main_begin(struct gt_thread *t, uint64_t ts)
{
	t->inside++;
	gt_thread_register(t, 1, 0);
	if (!t->p)
		goto out;
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	gt_section_proc_status(&s, ts, GT_P_RUNNING);
	uintptr_t main_pc = GT_PC_MAIN;
	uint64_t main_stk = gt_stack_id(t, s.gen, &main_pc, 1);
	ev4(s.b, GT_EV_GO_STATUS_STACK, ts, t->g, t->m, GT_G_RUNNING, main_stk);
	t->g_seq = 0;
	gt_section_born(&s, GT_T_RUNNING);
	/* Which process this is, where `go tool trace` shows it (core/identity.h). */
	atomic_store_explicit(&gt.identity_gen, 0, memory_order_relaxed); /* a forked child's first */
	gt_section_identity(&s, ts, main_stk);
	section_close(&s);
out:
	t->inside--;
}

void gt_thread_end_call(struct gt_thread *t)
{
	int saved = errno;
	/* Cancelled (or ended from a signal handler) inside a call that may
	 * wait in the kernel: the call ends now, and its wait is written as
	 * gt_call_end would have after the real call returned; it also lowers
	 * what gt_call_begin raised. */
	if (atomic_load_explicit(&t->call_t0, memory_order_acquire) != 0 && t->quiet > 0)
		gt_call_end(t);
	errno = saved;
}

void gt_thread_end(struct gt_thread *t)
{
	int saved = errno;
	gt_thread_end_call(t);
	t->inside++;
	gt_call_cancelled(t);
	if (t->state == GT_T_NONE || t->state == GT_T_DEAD || !t->registered)
		goto out;
	if (t->start_pc && gt_has_waiters((uintptr_t)t->self)) /* wakes joiners */
		gt_wake_release_thread(t, (uintptr_t)t->self, t->start_pc, 0);
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	switch (t->state) {
	case GT_T_BLOCKED: /* cancelled in a wait */
		if (t->wait_key)
			gt_waiter_add(t->wait_key, -1);
		gt_event_wake_self(&s, ts, ts, gt_wake_no_waker(t, s.gen));
		break;
	case GT_T_RUNNABLE:
		ev2(s.b, GT_EV_GO_START, ts, t->g, ++t->g_seq);
		break;
	case GT_T_SYSCALL:
		ev0(s.b, GT_EV_GO_SYSCALL_END, ts);
		break;
	}
	ev0(s.b, GT_EV_GO_DESTROY, ts);
	ev0(s.b, GT_EV_PROC_STOP, ts);
	t->state = GT_T_DEAD;
	section_close(&s);
out:
	gt_thread_unregister(t);
	gt_thread_side_free(t);
	t->state = GT_T_DEAD;
	/* t->inside stays raised: nothing on this thread is traced again. */
	errno = saved;
}

void gt_label(struct gt_thread *t, pthread_t th, const char *name)
{
	int saved = errno;
	t->inside++;
	gt_thread_set_label(th, name);
	if (pthread_equal(th, pthread_self()) && gt_ready(t) == 0) {
		uint64_t ts = gt_now();
		struct section s;
		if (gt_section_open(&s, t, ts)) {
			gt_section_label(&s, ts);
			section_close(&s);
		}
	}
	t->inside--;
	errno = saved;
}
