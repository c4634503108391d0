/* section.h — the write section: what every event writer in core/ uses
 * (see invariant 1 in tracer.h). Internal to the library. The fast halves
 * are inline here; their slow halves are in core/section.c. */
#ifndef GT_SECTION_H
#define GT_SECTION_H

#include <stdatomic.h>
#include <stdint.h>

#include "../encoder/writer.h"
#include "chunk.h"
#include "inline.h"
#include "pressure.h"
#include "thread.h"
#include "tracer.h"

/* Bytes every write section may use without checking again: the largest
 * sequence one section writes (announcement + event) is ~200 bytes. */
#define SECTION_ROOM 384

/* An open write section of thread t in generation gen, writing into b. */
struct section {
	struct gt_thread *t;
	uint64_t gen;
	struct gt_batch *b;
};

static inline uint64_t section_enter(struct gt_thread *t)
{
	uint32_t s = atomic_load_explicit(&t->wseq, memory_order_relaxed);
	atomic_store_explicit(&t->wseq, s + 1, memory_order_relaxed);
	/* The flag store must be visible before the generation load (the
	 * flusher stores the generation, then reads the flags). With
	 * membarrier the flusher's barrier orders both for us. */
	if (gt.asym_fence)
		atomic_signal_fence(memory_order_seq_cst);
	else
		atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&gt.gen, memory_order_acquire);
}

static inline void section_leave(struct gt_thread *t)
{
	uint32_t s = atomic_load_explicit(&t->wseq, memory_order_relaxed);
	atomic_store_explicit(&t->wseq, s + 1, memory_order_release);
}

struct gt_batch *gt_room_slow(struct gt_thread *t, uint64_t gen, uint64_t ts);

static inline struct gt_batch *room(struct gt_thread *t, uint64_t gen, uint64_t ts)
{
	struct gt_chunk *c = t->chunk[gen & 1];
	if (__builtin_expect(c && c->b.len + SECTION_ROOM <= c->b.end, 1))
		return &c->b;
	return gt_room_slow(t, gen, ts);
}

static inline void ev0(struct gt_batch *b, uint8_t type, uint64_t ts)
{
	gt_batch_event(b, type, ts, 0, NULL);
}

static inline void ev1(struct gt_batch *b, uint8_t type, uint64_t ts, uint64_t a)
{
	gt_batch_event(b, type, ts, 1, &a);
}

static inline void ev2(struct gt_batch *b, uint8_t type, uint64_t ts, uint64_t a, uint64_t c)
{
	uint64_t args[2] = { a, c };
	gt_batch_event(b, type, ts, 2, args);
}

static inline void ev3(struct gt_batch *b, uint8_t type, uint64_t ts, uint64_t a, uint64_t c, uint64_t d)
{
	uint64_t args[3] = { a, c, d };
	gt_batch_event(b, type, ts, 3, args);
}

static inline void ev4(struct gt_batch *b, uint8_t type, uint64_t ts, uint64_t a, uint64_t c, uint64_t d,
		       uint64_t e)
{
	uint64_t args[4] = { a, c, d, e };
	gt_batch_event(b, type, ts, 4, args);
}

/* gt_section_open enters a write section for an announced thread, makes
 * room, and re-states its statuses at its first event in a generation.
 * Returns 0 (and leaves no section open) when memory ran out. Inline: the
 * common case (room in the open chunk, statuses already written in this
 * generation) is a few loads and compares; the rest is
 * gt_section_open_slow's. Preserves errno. */
int gt_section_open_slow(struct section *s, struct gt_thread *t, uint64_t ts);

static inline int gt_section_open(struct section *s, struct gt_thread *t, uint64_t ts)
{
	/* No flusher and a generation due: end it first, outside any section
	 * (core/inline.h; invariant 2). One load while a flusher runs. */
	if (__builtin_expect(ts >= atomic_load_explicit(&gt_inline_due, memory_order_relaxed), 0))
		gt_inline_advance(t);
	/* Over the event budget: wait for the flusher before the section
	 * (core/pressure.h; invariant 2). */
	if (__builtin_expect(atomic_load_explicit(&gt_chunk_pressure, memory_order_relaxed), 0) &&
	    gt_pressure_wait() != 0)
		return 0;
	s->t = t;
	s->gen = section_enter(t);
	struct gt_chunk *c = t->chunk[s->gen & 1];
	if (__builtin_expect(c && c->b.len + SECTION_ROOM <= c->b.end && t->wrote_gen == s->gen, 1)) {
		s->b = &c->b;
		return 1;
	}
	return gt_section_open_slow(s, t, ts);
}

static inline void section_close(struct section *s)
{
	section_leave(s->t);
}

/* gt_section_proc_status writes the P's status once per generation (the
 * thread's P, s->t->p). */
void gt_section_proc_status(struct section *s, uint64_t ts, uint64_t pstatus);

/* gt_section_born marks the thread's first generation, with its G in
 * state; inside its first section. */
void gt_section_born(struct section *s, uint8_t state);

/* gt_section_identity writes the process identity as a UserLog (category
 * gotrace.process, core/identity.h) on the thread's G, at stack stk, if no
 * thread has written it in this generation yet: the first running G of
 * each generation does, so any window of generations (a flight-recorder
 * snapshot) shows its process in `go tool trace`. pre: running G. */
void gt_section_identity(struct section *s, uint64_t ts, uint64_t stk);

/* gt_section_label writes GoLabel for a pending pthread_setname_np (the
 * name is taken at the thread's next event while its G runs). pre: running
 * G. Preserves errno. */
void gt_section_label_slow(struct section *s, uint64_t ts);
static inline void gt_section_label(struct section *s, uint64_t ts)
{
	if (__builtin_expect(atomic_load_explicit(&s->t->label_pending, memory_order_relaxed) != 0, 0))
		gt_section_label_slow(s, ts);
}

/* gt_ready announces the thread if it never was (GoCreateSyscall: a thread
 * started before the library was loaded, or by a raw clone); 0 when it now
 * runs its G. */
int gt_ready_slow(struct gt_thread *t);
static inline int gt_ready(struct gt_thread *t)
{
	return __builtin_expect(t->state == GT_T_RUNNING, 1) ? 0 : gt_ready_slow(t);
}

/* gt_announced announces the thread if it never was; 0 when it holds a P
 * (enough for heap events and metrics, whatever its G does). */
int gt_announced_slow(struct gt_thread *t);
static inline int gt_announced(struct gt_thread *t)
{
	return __builtin_expect(t->state == GT_T_RUNNING && t->p != NULL, 1) ? 0 : gt_announced_slow(t);
}

#endif
