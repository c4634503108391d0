/* stack.h — stacks on the hot path: raw PCs from the tracer's own unwinder
 * (core/unwind.h), and their id in
 * a generation's stack table through a small per-thread cache. Symbols are
 * the flusher's job (core/symbols.h). */
#ifndef GT_STACK_H
#define GT_STACK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../encoder/wire.h"
#include "hash.h"
#include "stacklocal.h"
#include "thread.h"
#include "tracer.h"

struct gt_thread;

/* Synthetic frames: PCs no code can have, named by the flusher. */
#define GT_PC_SYNTHETIC 0xfff0000000000000ull
#define GT_PC_MAIN (GT_PC_SYNTHETIC | 1) /* "main": the main thread's goroutine */
#define GT_PC_MAIN_NAME "main"          /* its name */
/* "kernel.wakeup": the waker of a wake-up no thread of the program caused
 * (core/event.h, gt_wake_no_waker). */
#define GT_PC_WAKE (GT_PC_SYNTHETIC | 2)
#define GT_PC_WAKE_NAME "kernel.wakeup"

/* gt_stack_init finds the library's own mapping, publishes the first
 * module table and the main thread's stack range. From the constructor. */
void gt_stack_init(void);

/* std::thread's start routine (libstdc++'s execute_native_thread_routine),
 * once a thread was seen starting there (interpose/thread.c), else 0:
 * written stacks leave off an outermost frame inside it
 * (core/gen_stacks.c), so a std::thread's stacks end at its callable. */
uintptr_t gt_stack_std_entry(void);
void gt_stack_set_std_entry(uintptr_t entry);

/* A new thread's stack, as pthread_create's attributes say (interpose/
 * thread.c): gt_stack_hint in the creator, gt_stack_thread_start as the
 * new thread's first step, which sets its stack range for the unwinder
 * (left unknown when the thread's stack is not where the hint says). */
struct gt_stack_hint {
	uintptr_t user_top; /* top of a stack the program supplied, or 0 */
	size_t size, guard;
};
void gt_stack_hint(const pthread_attr_t *attr, struct gt_stack_hint *h);
void gt_stack_thread_start(struct gt_thread *t, const struct gt_stack_hint *h);

/* gt_stack_capture writes [site, return addresses of the interposed
 * function's callers...] to pcs, at most gt.max_frames entries (1 means no
 * unwinding) and returns the count. Frames of this library are
 * skipped. When the interposed function left its return address and frame
 * (GT_SITE in interpose/interpose.h), a stack seen before from the same caller and SP is reused
 * after checking that every return address is still in its stack slot: a
 * few loads instead of an unwind. */
unsigned gt_stack_capture_slow(uintptr_t *pcs, uintptr_t site);
static inline unsigned gt_stack_capture(uintptr_t *pcs, uintptr_t site)
{
	if (gt.max_frames == 1) { /* GOTRACE_STACKS=0 */
		pcs[0] = site;
		return 1;
	}
	return gt_stack_capture_slow(pcs, site);
}

/* gt_stack_id returns the id of pcs[0..n) in generation gen's stack table
 * (0 for n == 0). Call inside a write section of generation gen. */
uint64_t gt_stack_id_slow(struct gt_thread *t, uint64_t gen, const uintptr_t *pcs, unsigned n, uint64_t h);
static inline uint64_t gt_stack_id(struct gt_thread *t, uint64_t gen, const uintptr_t *pcs, unsigned n)
{
	if (n == 0)
		return 0;
	uint64_t h = gt_hash_words(pcs, n);
	struct gt_side *side = t->side; /* the cache lives there; none yet: no cache */
	if (__builtin_expect(side != NULL, 1)) {
		struct gt_stack_cache_entry *e = &side->stack_cache[h & (GT_STACK_CACHE - 1)];
		if (__builtin_expect(e->hash == h && e->gen == gen, 1))
			return e->id;
	}
	return gt_stack_id_slow(t, gen, pcs, n, h);
}

/* A stack taken for one event, whose id is wanted in the event's section:
 * when it is a remembered stack (the common case on a hot call site), its
 * frames are not even copied, and its id is cached in the remembered
 * stack, per generation: no hashing either. */
struct gt_stack {
	uintptr_t site;
	unsigned n;                  /* frames in pcs; 0: only in memo */
	struct gt_stack_memo *memo;  /* the remembered stack, or NULL */
	uintptr_t *pcs;              /* the thread's buffer (struct gt_side), or own */
	uintptr_t own[1];            /* no side area (out of memory): the site only */
};

/* gt_stack_take_at captures the stack at the interposed function site
 * (like gt_stack_capture), called from return address ra with CFA cfa (0,
 * 0: unknown, no remembered stack). */
void gt_stack_take_at(struct gt_stack *s, uintptr_t site, uintptr_t ra, uintptr_t cfa);

/* gt_stack_take_id returns the id of s in generation gen (inside a write
 * section of gen). */
uint64_t gt_stack_take_id_slow(struct gt_thread *t, uint64_t gen, struct gt_stack *s);
static inline uint64_t gt_stack_take_id(struct gt_thread *t, uint64_t gen, struct gt_stack *s)
{
	struct gt_stack_memo *m = s->memo;
	if (__builtin_expect(m && m->id_gen == gen && m->id_site == s->site, 1))
		return m->id;
	return gt_stack_take_id_slow(t, gen, s);
}

/* gt_stack_capture_regs unwinds the calling thread from an interrupted
 * context's registers (a signal handler's ucontext: pc exact) into pcs,
 * at most max frames; returns the count (0: nothing safe to read). For a
 * registered thread with its side area, not inside the tracer (the
 * unwinder's scratch memory and module hazard are the thread's alone).
 * Async-signal-safe: no lock, no allocation, no system call. */
unsigned gt_stack_capture_regs(struct gt_thread *t, uintptr_t pc, uintptr_t sp, uintptr_t rbp, uintptr_t *pcs,
			       unsigned max);

/* gt_stack_forget_sizes clears every remembered stack's size table. */
struct gt_side;
void gt_stack_forget_sizes(struct gt_side *side);

#endif
