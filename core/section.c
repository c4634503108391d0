/* section.c — the slow halves of the write section (section.h): a new
 * chunk, the statuses re-stated at a thread's first event in a generation,
 * a pending thread name, and announcing a thread the tracer did not see
 * start. */
#include "section.h"

#include <errno.h>

#include "clock.h"
#include "identity.h"
#include "log.h"

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
		ts = start + GT_LIFTED_NS(t->serial); /* see tracer.h, gen_start */
	c->gen = gen;
	c->serial = t->serial;
	c->index = t->chunk_index++;
	gt_batch_begin(&c->b, c->data, GT_CHUNK_DATA, gen, t->m, ts);
	t->chunk[gen & 1] = c;
	return &c->b;
}

void gt_section_proc_status(struct section *s, uint64_t ts, uint64_t pstatus)
{
	struct gt_proc *p = s->t->p;
	if (p->status_gen == s->gen)
		return;
	ev2(s->b, GT_EV_PROC_STATUS, ts, p->id, pstatus);
	p->status_gen = s->gen;
	p->seq = 0;
}

void gt_section_identity(struct section *s, uint64_t ts, uint64_t stk)
{
	uint64_t was = atomic_load_explicit(&gt.identity_gen, memory_order_relaxed);
	if (was >= s->gen ||
	    !atomic_compare_exchange_strong_explicit(&gt.identity_gen, &was, s->gen, memory_order_relaxed,
						     memory_order_relaxed))
		return;
	int saved = errno;
	const char *who = gt.identity + sizeof GT_IDENTITY_PREFIX;
	struct gt_strtab *st = &gt.strings[s->gen & 1];
	uint64_t cat = gt_strtab_put(st, GT_IDENTITY_PREFIX, sizeof GT_IDENTITY_PREFIX - 1);
	uint64_t msg = gt_strtab_put(st, who, strnlen(who, GT_IDENTITY_MAX));
	if (cat && msg)
		ev4(s->b, GT_EV_USER_LOG, ts, 0, cat, msg, stk);
	errno = saved;
}

/* restate writes the thread's G and P status at its first event in a new
 * generation (invariant 4). */
static void restate(struct section *s, uint64_t ts)
{
	struct gt_thread *t = s->t;
	gt_section_proc_status(s, ts, t->state == GT_T_SYSCALL ? GT_P_SYSCALL : GT_P_RUNNING);
	switch (t->state) {
	case GT_T_RUNNING:
		ev3(s->b, GT_EV_GO_STATUS, ts, t->g, t->m, GT_G_RUNNING);
		gt_section_identity(s, ts, 0);
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
	/* Not running now: the identity waits for its G to run. */
	if (t->state != GT_T_RUNNING && atomic_load_explicit(&gt.identity_gen, memory_order_relaxed) < s->gen)
		atomic_fetch_or_explicit(&t->label_pending, GT_PENDING_IDENTITY, memory_order_relaxed);
	t->g_seq = 0;
	t->prev_gen = t->wrote_gen;
	t->state_before = t->state;
	t->wrote_gen = s->gen;
}

void gt_section_born(struct section *s, uint8_t state)
{
	struct gt_thread *t = s->t;
	t->prev_gen = 0;
	t->wrote_gen = s->gen;
	t->born_gen = s->gen;
	t->state = state;
	t->state_before = state;
}

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

void gt_section_label_slow(struct section *s, uint64_t ts)
{
	struct gt_thread *t = s->t;
	if (atomic_load_explicit(&t->label_pending, memory_order_relaxed) & GT_PENDING_IDENTITY) {
		atomic_fetch_and_explicit(&t->label_pending, ~GT_PENDING_IDENTITY, memory_order_relaxed);
		gt_section_identity(s, ts, 0);
	}
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
	gt_section_proc_status(&s, ts, GT_P_IDLE);
	ev2(s.b, GT_EV_PROC_START, ts, t->p->id, ++t->p->seq);
	ev0(s.b, GT_EV_GO_SYSCALL_END_BLOCKED, ts);
	t->g_seq = 0;
	ev2(s.b, GT_EV_GO_START, ts, t->g, ++t->g_seq);
	gt_section_born(&s, GT_T_RUNNING);
	gt_section_label(&s, ts);
	section_close(&s);
	return 0;
}

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
