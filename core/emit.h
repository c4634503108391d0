/* emit.h — the tracer's API for the interposers: one call per moment in a
 * thread's life (it waits, it is woken, it creates a thread, ...). Each call
 * captures what it needs, opens a write section and appends the events.
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

#include "call.h"
#include "clock.h"
#include "strtab.h"
#include "thread.h"
#include "tracer.h"
#include "wake.h"

/* gt_enter returns the calling thread's state when its calls should be
 * traced, NULL when they should pass straight through. */
static inline struct gt_thread *gt_enter(void)
{
	struct gt_thread *t = &gt_self;
	if (__builtin_expect(t->inside != 0, 0))
		return NULL;
	if (__builtin_expect(!atomic_load_explicit(&gt.on, memory_order_relaxed), 0))
		return NULL;
	return t;
}

/* gt_block: the thread is about to wait on `key` (0: nothing can wake it
 * early) in the interposed function at `site`; writes GoBlock(reason).
 * Returns 1 when it did: only then does the wait end with gt_unblock (a
 * signal handler's wait inside another wait records nothing). */
int gt_block(struct gt_thread *t, enum gt_str reason, uintptr_t site, uintptr_t key);

/* gt_unblock: the wait ended; woken says it ended by a release (not a
 * timeout or error), so a waker's record may be used. Writes GoUnblock(self)
 * and GoStart. */
void gt_unblock(struct gt_thread *t, int woken);

/* gt_waited: a call that may or may not have waited ran from t0 until now.
 * If it took at least min_ns (GT_SHORT_WAIT_NS, core/call.h), writes the wait after the fact: GoBlock(reason)
 * at t0, GoUnblock(self) and GoStart now. For waits nobody else releases
 * (barriers): no cost but two clock reads when it did not wait. */
void gt_waited(struct gt_thread *t, enum gt_str reason, uintptr_t site, uint64_t t0, uint64_t min_ns);

/* Calls that may wait in the kernel (I/O, poll, waitpid ...) cost nothing
 * but two clock reads when they return at once. gt_call_begin notes the
 * start; gt_call_end, after the real call, writes the wait after the fact
 * when it lasted GT_SHORT_WAIT_NS or more: GoBlock("network") ... GoUnblock
 * + GoStart for sockets, GoSyscallBegin ... GoSyscallEnd for the rest. A
 * call still running when a generation ends is converted by the switch
 * (core/call.h), so a long wait is never shown as running. Traced calls
 * made while one of these runs (signal handlers) pass through. */

void gt_call_begin_slow(struct gt_thread *t, int kind, uintptr_t site, uintptr_t caller);
void gt_call_end(struct gt_thread *t);

static inline void gt_call_begin(struct gt_thread *t, int kind, uintptr_t site, uintptr_t caller)
{
	t->inside++;
	t->quiet++;
	if (__builtin_expect(t->state != GT_T_RUNNING, 0)) {
		gt_call_begin_slow(t, kind, site, caller);
		return;
	}
	t->call_kind = (uint8_t)kind;
	t->call_site = site;
	t->call_caller = caller;
	atomic_store_explicit(&t->call_t0, gt_now(), memory_order_release);
}

/* gt_release: the caller releases `key` at `site`, called from `caller`; if
 * a traced thread waits on it, leave a wake record. Cheap when nobody waits. */
void gt_wake_release(uintptr_t key, uintptr_t site, uintptr_t caller);
static inline void gt_release(uintptr_t key, uintptr_t site, uintptr_t caller)
{
	if (__builtin_expect(gt_has_waiters(key), 0))
		gt_wake_release(key, site, caller);
}

/* gt_yield_begin / gt_yield_end: sched_yield as GoStop + GoStart. */
void gt_yield_begin(struct gt_thread *t, uintptr_t site);
void gt_yield_end(struct gt_thread *t);

/* gt_create: the thread created goroutine new_g starting at start_pc;
 * writes GoCreate and returns the generation it went into (0: not written,
 * the new thread will announce itself). */
uint64_t gt_create(struct gt_thread *t, uint64_t new_g, uintptr_t start_pc, uintptr_t site);

/* gt_new_goroutine reserves a goroutine id. */
uint64_t gt_new_goroutine(void);

/* gt_thread_begin: first moment of a thread we created: registers it as
 * goroutine g and writes ProcStart + GoStart (GoStatus first when the
 * creation was in an earlier generation than create_gen). */
void gt_thread_begin(struct gt_thread *t, uint64_t g, uintptr_t start_pc, uint64_t create_gen);

/* gt_thread_end: the thread is exiting: GoDestroy + ProcStop, then it is
 * never traced again. */
void gt_thread_end(struct gt_thread *t);

/* gt_main_begin: announces the main thread (the constructor's thread) as
 * goroutine 1 in the first generation. */
void gt_main_begin(struct gt_thread *t);

/* gt_label: the calling thread set the name of thread th. */
void gt_label(struct gt_thread *t, pthread_t th, const char *name);

#endif
