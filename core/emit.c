/* emit.c — write sections and the events of a thread's life. */
#include "emit.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

#include "../encoder/writer.h"
#include "chunk.h"
#include "section.h"
#include "sys.h"
#include "hash.h"
#include "identity.h"
#include "inline.h"
#include "clock.h"
#include "log.h"
#include "pressure.h"
#include "stack.h"

struct gt_batch *gt_room_slow(struct gt_thread *t, uint64_t gen, uint64_t ts)
{
	struct gt_chunk *c = t->chunk[gen & 1];
	if (c) {
		if (c->gen == gen)
			gt_chunk_push_full(c);
		else
			gt_chunk_put(c); /* cannot happen: the flusher took it */
		t->chunk[gen & 1] = NULL;
	}
	c = gt_chunk_get();
	if (!c) {
		if (atomic_exchange(&gt.on, 0))
			gt_warn("out of memory for trace buffers; tracing stops here");
		return NULL;
	}
	uint64_t start = atomic_load_explicit(&gt.gen_start[gen & 1], memory_order_relaxed);
	if (ts < start)
		ts = start; /* see tracer.h, gen_start */
	c->gen = gen;
	c->serial = t->serial;
	c->index = t->chunk_index++;
	gt_batch_begin(&c->b, c->data, GT_CHUNK_DATA, gen, t->m, ts);
	t->chunk[gen & 1] = c;
	return &c->b;
}

/* proc_status writes the P's status once per generation. */
static void proc_status(struct section *s, uint64_t ts, uint64_t pstatus)
{
	struct gt_proc *p = s->t->p;
	if (p->status_gen == s->gen)
		return;
	ev2(s->b, GT_EV_PROC_STATUS, ts, p->id, pstatus);
	p->status_gen = s->gen;
	p->seq = 0;
}

/* restate writes the thread's G and P status at its first event in a new
 * generation (invariant 4). */
static void restate(struct section *s, uint64_t ts)
{
	struct gt_thread *t = s->t;
	proc_status(s, ts, t->state == GT_T_SYSCALL ? GT_P_SYSCALL : GT_P_RUNNING);
	switch (t->state) {
	case GT_T_RUNNING:
		ev3(s->b, GT_EV_GO_STATUS, ts, t->g, t->m, GT_G_RUNNING);
		break;
	case GT_T_RUNNABLE:
		ev3(s->b, GT_EV_GO_STATUS, ts, t->g, GT_NO_THREAD, GT_G_RUNNABLE);
		break;
	case GT_T_BLOCKED:
		ev3(s->b, GT_EV_GO_STATUS, ts, t->g, GT_NO_THREAD, GT_G_WAITING);
		break;
	case GT_T_SYSCALL:
		ev3(s->b, GT_EV_GO_STATUS, ts, t->g, t->m, GT_G_SYSCALL);
		break;
	}
	t->g_seq = 0;
	t->prev_gen = t->wrote_gen;
	t->state_before = t->state;
	t->wrote_gen = s->gen;
}

/* born marks the thread's first generation; called inside its first section. */
static void born(struct section *s, uint8_t state)
{
	struct gt_thread *t = s->t;
	t->prev_gen = 0;
	t->wrote_gen = s->gen;
	t->born_gen = s->gen;
	t->state = state;
	t->state_before = state;
}

/* gt_section_open_slow: gt_section_open (section.h) when the open chunk is
 * missing or full, or the thread's first event in this generation. The
 * section is already entered (s->t, s->gen set). */
int gt_section_open_slow(struct section *s, struct gt_thread *t, uint64_t ts)
{
	int saved = errno; /* a new chunk may take a lock or mmap */
	s->b = room(t, s->gen, ts);
	if (__builtin_expect(!s->b, 0)) {
		section_leave(t);
		errno = saved;
		return 0;
	}
	if (t->wrote_gen != s->gen && t->state != GT_T_NONE)
		restate(s, ts);
	errno = saved;
	return 1;
}


/* label writes GoLabel for a pending pthread_setname_np. pre: running G. */
static void label(struct section *s, uint64_t ts)
{
	struct gt_thread *t = s->t;
	if (!atomic_load_explicit(&t->label_pending, memory_order_relaxed))
		return;
	int saved = errno;
	char name[16];
	int n = gt_thread_take_label(t, name);
	if (n > 0) {
		uint64_t id = gt_strtab_put(&gt.strings[s->gen & 1], name, (size_t)n);
		if (id)
			ev1(s->b, GT_EV_GO_LABEL, ts, id);
	}
	errno = saved;
}

/* adopt announces a thread the tracer did not see start (created before the
 * library was loaded, or by raw clone): GoCreateSyscall, then it takes its
 * P and starts running. */
static int adopt(struct gt_thread *t)
{
	int saved = errno;
	if (!t->registered)
		gt_thread_register(t, 0, 0);
	errno = saved;
	if (!t->p)
		return -1;
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		return -1;
	ev1(s.b, GT_EV_GO_CREATE_SYSCALL, ts, t->g);
	proc_status(&s, ts, GT_P_IDLE);
	ev2(s.b, GT_EV_PROC_START, ts, t->p->id, ++t->p->seq);
	ev0(s.b, GT_EV_GO_SYSCALL_END_BLOCKED, ts);
	t->g_seq = 0;
	ev2(s.b, GT_EV_GO_START, ts, t->g, ++t->g_seq);
	born(&s, GT_T_RUNNING);
	label(&s, ts);
	section_close(&s);
	return 0;
}

/* ready makes sure the thread is announced and running; 0 when the event
 * may be written. */
int gt_ready_slow(struct gt_thread *t)
{
	if (__builtin_expect(t->state == GT_T_NONE, 0) && adopt(t) != 0)
		return -1;
	return t->state == GT_T_RUNNING ? 0 : -1;
}

int gt_announced_slow(struct gt_thread *t)
{
	if (__builtin_expect(t->state == GT_T_NONE, 0) && adopt(t) != 0)
		return -1;
	return t->state != GT_T_NONE && t->state != GT_T_DEAD && t->p ? 0 : -1;
}

int gt_block(struct gt_thread *t, enum gt_str reason, uintptr_t site, uintptr_t key)
{
	int done = 0;
	t->inside++;
	if (gt_ready(t) != 0)
		goto out;
	t->block_n = gt_stack_capture(t->block_pcs, site);
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	label(&s, ts);
	uint64_t stk = gt_stack_id(t, s.gen, t->block_pcs, t->block_n);
	ev2(s.b, GT_EV_GO_BLOCK, ts, reason, stk);
	t->state = GT_T_BLOCKED;
	t->block_ts = ts;
	t->wait_key = key;
	section_close(&s);
	if (key)
		gt_waiter_add(key, 1);
	done = 1;
out:
	t->inside--;
	return done;
}

/* wake_self writes GoUnblock(self) at uts with stack stk and GoStart at now. */
static void wake_self(struct section *s, uint64_t uts, uint64_t now, uint64_t stk)
{
	struct gt_thread *t = s->t;
	ev3(s->b, GT_EV_GO_UNBLOCK, uts, t->g, ++t->g_seq, stk);
	ev2(s->b, GT_EV_GO_START, now, t->g, ++t->g_seq);
	t->state = GT_T_RUNNING;
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
	uint64_t uts = now;
	uintptr_t wpcs[GT_WAKE_FRAMES];
	unsigned wn = 0;
	if (woken && key)
		wn = gt_wake_find(key, t->block_ts, now, wpcs, &uts);
	struct section s;
	if (!gt_section_open(&s, t, uts))
		goto out;
	uint64_t stk = wn ? gt_stack_id(t, s.gen, wpcs, wn) : gt_stack_id(t, s.gen, t->block_pcs, t->block_n);
	wake_self(&s, uts, now, stk);
	label(&s, now);
	section_close(&s);
out:
	t->inside--;
}

void gt_waited(struct gt_thread *t, enum gt_str reason, uintptr_t site, uint64_t t0, uint64_t min_ns)
{
	uint64_t now = gt_now();
	if (now - t0 < min_ns)
		return;
	t->inside++;
	if (gt_ready(t) != 0)
		goto out;
	t->block_n = gt_stack_capture(t->block_pcs, site);
	struct section s;
	if (!gt_section_open(&s, t, t0))
		goto out;
	label(&s, t0);
	uint64_t stk = gt_stack_id(t, s.gen, t->block_pcs, t->block_n);
	ev2(s.b, GT_EV_GO_BLOCK, t0, reason, stk);
	t->state = GT_T_BLOCKED;
	wake_self(&s, now, now, stk);
	section_close(&s);
out:
	t->inside--;
}

void gt_wake_release(uintptr_t key, uintptr_t site, uintptr_t caller)
{
	gt_wake_leave(key, gt_now(), site, caller);
}

void gt_yield_begin(struct gt_thread *t, uintptr_t site)
{
	t->inside++;
	if (gt_ready(t) != 0)
		goto out;
	uintptr_t *pcs = t->side->pcs;
	unsigned n = gt_stack_capture(pcs, site);
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	ev2(s.b, GT_EV_GO_STOP, ts, GT_STR_YIELD, gt_stack_id(t, s.gen, pcs, n));
	t->state = GT_T_RUNNABLE;
	section_close(&s);
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

uint64_t gt_new_goroutine(void)
{
	return atomic_fetch_add(&gt.next_g, 1);
}

uint64_t gt_create(struct gt_thread *t, uint64_t new_g, uintptr_t start_pc, uintptr_t site)
{
	int saved = errno;
	uint64_t gen = 0;
	t->inside++;
	if (gt_ready(t) != 0)
		goto out;
	uintptr_t *pcs = t->side->pcs;
	unsigned n = gt_stack_capture(pcs, site);
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	label(&s, ts);
	uint64_t new_stk = gt_stack_id(t, s.gen, &start_pc, 1);
	uint64_t stk = gt_stack_id(t, s.gen, pcs, n);
	ev3(s.b, GT_EV_GO_CREATE, ts, new_g, new_stk, stk);
	gen = s.gen;
	section_close(&s);
out:
	t->inside--;
	errno = saved;
	return gen;
}

void gt_thread_begin(struct gt_thread *t, uint64_t g, uintptr_t start_pc, uint64_t create_gen)
{
	int saved = errno;
	t->inside++;
	gt_thread_register(t, g, start_pc);
	if (!t->p)
		goto out;
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	proc_status(&s, ts, GT_P_IDLE);
	ev2(s.b, GT_EV_PROC_START, ts, t->p->id, ++t->p->seq);
	if (s.gen != create_gen)
		ev3(s.b, GT_EV_GO_STATUS, ts, g, GT_NO_THREAD, GT_G_RUNNABLE);
	t->g_seq = 0;
	ev2(s.b, GT_EV_GO_START, ts, g, ++t->g_seq);
	born(&s, GT_T_RUNNING);
	label(&s, ts);
	section_close(&s);
out:
	t->inside--;
	errno = saved;
}

void gt_main_begin(struct gt_thread *t)
{
	t->inside++;
	gt_thread_register(t, 1, 0);
	if (!t->p)
		goto out;
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	proc_status(&s, ts, GT_P_RUNNING);
	uintptr_t main_pc = GT_PC_MAIN;
	uint64_t main_stk = gt_stack_id(t, s.gen, &main_pc, 1);
	ev4(s.b, GT_EV_GO_STATUS_STACK, ts, t->g, t->m, GT_G_RUNNING, main_stk);
	t->g_seq = 0;
	born(&s, GT_T_RUNNING);
	/* Which process this is, where `go tool trace` shows it (core/identity.h). */
	const char *who = gt.identity + sizeof GT_IDENTITY_PREFIX;
	struct gt_strtab *st = &gt.strings[s.gen & 1];
	uint64_t cat = gt_strtab_put(st, GT_IDENTITY_PREFIX, sizeof GT_IDENTITY_PREFIX - 1);
	uint64_t msg = gt_strtab_put(st, who, strlen(who));
	if (cat && msg)
		ev4(s.b, GT_EV_USER_LOG, ts, 0, cat, msg, main_stk);
	section_close(&s);
out:
	t->inside--;
}

void gt_thread_end(struct gt_thread *t)
{
	int saved = errno;
	t->inside++;
	/* Cancelled inside a call that may wait: settle it with the flusher. */
	if (atomic_exchange(&t->call_t0, 0) == GT_CALL_CLAIMED) {
		while (atomic_load(&t->call_t0) != GT_CALL_CONVERTED)
			gt_sys_yield();
		atomic_store(&t->call_t0, 0);
	}
	if (t->state == GT_T_NONE || t->state == GT_T_DEAD || !t->registered)
		goto out;
	if (t->start_pc)
		gt_release((uintptr_t)t->self, t->start_pc, 0); /* wakes joiners */
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	switch (t->state) {
	case GT_T_BLOCKED: /* cancelled in a wait */
		if (t->wait_key)
			gt_waiter_add(t->wait_key, -1);
		wake_self(&s, ts, ts, gt_stack_id(t, s.gen, t->block_pcs, t->block_n));
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
			label(&s, ts);
			section_close(&s);
		}
	}
	t->inside--;
	errno = saved;
}

void gt_call_begin_slow(struct gt_thread *t, int kind, uintptr_t site, uintptr_t caller)
{
	/* pre: t->inside raised by gt_call_begin */
	if (t->state == GT_T_NONE)
		adopt(t);
	if (t->state != GT_T_RUNNING)
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
			wake_self(&s, now, now, gt_stack_id(t, s.gen, t->block_pcs, t->block_n));
		} else if (t->state == GT_T_SYSCALL) {
			ev0(s.b, GT_EV_GO_SYSCALL_END, now);
			t->state = GT_T_RUNNING;
		}
		section_close(&s);
		goto out;
	}
	/* A wait worth showing that no generation switch saw: write it now. */
	t->block_n = gt_stack_capture(t->block_pcs, t->call_site);
	if (!gt_section_open(&s, t, v))
		goto out;
	uint64_t stk = gt_stack_id(t, s.gen, t->block_pcs, t->block_n);
	if (t->call_kind == GT_CALL_NETWORK) {
		ev2(s.b, GT_EV_GO_BLOCK, v, GT_STR_NETWORK, stk);
		t->state = GT_T_BLOCKED;
		wake_self(&s, now, now, stk);
	} else {
		ev2(s.b, GT_EV_GO_SYSCALL_BEGIN, v, ++t->p->seq, stk);
		ev0(s.b, GT_EV_GO_SYSCALL_END, now);
	}
	section_close(&s);
out:
	t->inside--;
	errno = saved;
}
