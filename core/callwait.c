/* callwait.c — the thread's side of calls that may wait in the kernel
 * (callwait.h; the protocol: core/call.h). */
#include "callwait.h"
#include "seal.h"

#include <errno.h>

#include "event.h"
#include "inline.h"
#include "sys.h"
#include "wake.h"

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

void gt_call_begin_key(struct gt_thread *t, int kind, uintptr_t site, uintptr_t caller, uintptr_t key)
{
	gt_call_begin(t, kind, site, caller);
	if (key && atomic_load_explicit(&t->call_t0, memory_order_relaxed) != 0) {
		t->call_key = key;
		gt_waiter_add(key, 1);
	}
}

/* waker: who ended a wait on key (0: none) begun at t0 that returned at
 * *uts, woken or not: the number of frames of the waker's [site, caller],
 * with w filled and *uts set to its release time, when a record is found;
 * else 0 (the GoUnblock then carries kernel.wakeup, at the return). */
static unsigned waker(uintptr_t key, int woken, uint64_t t0, uint64_t *uts, struct gt_waker *w)
{
	unsigned n = woken && key ? gt_wake_find(key, t0, *uts, w) : 0;
	if (n)
		*uts = w->ts;
	return n;
}

static void call_end(struct gt_thread *t, int woken)
{
	t->quiet--; /* the call is over: from here on this is tracer work */
	uint64_t now = gt_now();
	uintptr_t key = t->call_key;
	if (key) {
		t->call_key = 0;
		gt_waiter_add(key, -1);
	}
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
	struct gt_waker w;
	uint64_t uts = now;
	if (v == GT_CALL_CONVERTED) {
		/* the section opens at the release time: the GoUnblock is its
		 * first event (statuses re-stated before it) */
		unsigned wn = t->state == GT_T_BLOCKED ? waker(key, woken, t->block_ts, &uts, &w) : 0;
		if (!gt_section_open(&s, t, t->state == GT_T_BLOCKED ? gt_wake_open_ts(wn ? &w : NULL, uts) : uts))
			goto out;
		if (t->state == GT_T_BLOCKED) {
			gt_event_woken(&s, uts, now, wn ? &w : NULL);
		} else if (t->state == GT_T_SYSCALL) {
			ev0(s.b, GT_EV_GO_SYSCALL_END, now);
			t->state = GT_T_RUNNING;
		}
		section_close(&s);
		goto out;
	}
	/* A wait worth showing that no generation switch saw: write it now,
	 * from its start v (to the jump that left it, if it did not return). */
	if (t->call_left && t->call_jumped > v && t->call_jumped < now)
		now = uts = t->call_jumped;
	struct gt_event e;
	if (!gt_event_open(&e, t, t->call_site, GT_EVENT_WAIT, v))
		goto out;
	if (t->call_left) {
		/* The stack here is the one after the jump: the wait's own is
		 * the interposed call and its caller, as a conversion writes. */
		t->block_pcs[0] = t->call_site;
		t->block_pcs[1] = t->call_caller;
		t->block_n = t->call_caller ? 2 : 1;
	}
	uint64_t stk = gt_event_stack(&e);
	uint64_t reason = gt_call_reason(t->call_kind);
	if (reason) {
		ev2(e.s.b, GT_EV_GO_BLOCK, e.ts, reason, stk);
		t->state = GT_T_BLOCKED;
		unsigned wn = waker(key, woken, v, &uts, &w);
		gt_event_woken(&e.s, uts, now, wn ? &w : NULL);
	} else {
		ev2(e.s.b, GT_EV_GO_SYSCALL_BEGIN, e.ts, ++t->p->seq, stk);
		ev0(e.s.b, GT_EV_GO_SYSCALL_END, now);
	}
	section_close(&e.s);
out:
	t->call_left = 0;
	t->inside--;
	errno = saved;
}

void gt_call_end(struct gt_thread *t) { call_end(t, 0); }

void gt_call_end_woken(struct gt_thread *t, int woken) { call_end(t, woken); }

struct gt_thread *gt_enter_nested(struct gt_thread *t)
{
	if (__builtin_expect(!t->call_left, 1) || t->inside >= GT_INSIDE_SEALED)
		return NULL; /* tracer work, a nested call, a handler, a thread
			      * that left the trace (core/seal.h): pass through */
	/* The wait was left by a jump to a frame above the waiting wrapper
	 * (gt_call_jump): only the wait's own raise of `inside` and `quiet`
	 * can remain (the jump landed in the program, so any wrapper around
	 * the wait, such as system's waitpid, was left too). */
	t->inside = 1;
	t->quiet = 1;
	gt_call_end(t);
	if (!atomic_load_explicit(&gt.on, memory_order_relaxed))
		return NULL;
	return t;
}

/* jump_target: the stack pointer a jmp_buf restores, or 0 if unknown.
 * glibc stores it mangled with the thread's pointer guard (x86-64:
 * xor with %fs:0x30, then rotate left by 17). */
static uintptr_t jump_target(const void *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	uintptr_t v = (uintptr_t)((const long *)env)[6], guard;
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	return ((v >> 17) | (v << 47)) ^ guard;
#else
	(void)env;
	return 0;
#endif
}

void gt_call_jump(const void *env)
{
	struct gt_thread *t = &gt_self;
	if (t->quiet == 0 || t->inside != t->quiet || atomic_load_explicit(&t->call_t0, memory_order_relaxed) == 0)
		return; /* no wait pending, or tracer work interrupted */
	uintptr_t to = jump_target(env);
	const struct gt_stack_bounds *b = &t->bounds;
	if (to <= t->call_sp || (b->hi && to >= b->hi) || (b->alt_hi && to >= b->alt_lo && to < b->alt_hi))
		return; /* unknown, or a jump within the handler */
	t->call_jumped = gt_now();
	t->call_left = 1;
}

void gt_call_cancelled(struct gt_thread *t)
{
	if (atomic_exchange(&t->call_t0, 0) == GT_CALL_CLAIMED) {
		while (atomic_load(&t->call_t0) != GT_CALL_CONVERTED)
			gt_sys_yield();
		atomic_store(&t->call_t0, 0);
	}
}
