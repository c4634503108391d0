/* block.h — a traced thread waits and is woken: GoBlock when it begins to
 * wait, GoUnblock(self) + GoStart when the wait ends, waits measured after
 * the fact, releases that leave a wake record for the waiter (core/wake.h),
 * and sched_yield as GoStop + GoStart. For the interposers (core/emit.h). */
#ifndef GT_BLOCK_H
#define GT_BLOCK_H

#include <stdint.h>

#include "strtab.h"
#include "thread.h"
#include "wake.h"

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
 * If it took at least min_ns (GT_SHORT_WAIT_NS, core/call.h), writes the
 * wait after the fact: GoBlock(reason) at t0, GoUnblock(self) and GoStart
 * now. For waits nobody else releases (barriers): no cost but two clock
 * reads when it did not wait. */
void gt_waited(struct gt_thread *t, enum gt_str reason, uintptr_t site, uint64_t t0, uint64_t min_ns);

/* gt_release: the caller releases `key` at `site`, called from `caller`; if
 * a traced thread waits on it, leave a wake record with the releaser's
 * mark: its full stack and its place in its event stream, where the woken
 * waiter's GoUnblock is then written (core/wake_ins.h). Cheap when nobody
 * waits. gt_wake_release_thread: the same for the calling thread t when
 * its `inside` guard is raised but no section is open (a thread's exit
 * waking its joiners). */
void gt_wake_release(uintptr_t key, uintptr_t site, uintptr_t caller);
void gt_wake_release_thread(struct gt_thread *t, uintptr_t key, uintptr_t site, uintptr_t caller);
/* gt_wake_release_at: gt_wake_release from an exported wrapper (GT_RELEASE)
 * that hands its return address (caller) and CFA along, so the releaser's
 * stack can be a remembered one (core/stack.h). */
void gt_wake_release_at(uintptr_t key, uintptr_t site, uintptr_t caller, uintptr_t cfa);
static inline void gt_release(uintptr_t key, uintptr_t site, uintptr_t caller)
{
	if (__builtin_expect(gt_has_waiters(key), 0))
		gt_wake_release(key, site, caller);
}

/* gt_yield_begin / gt_yield_end: sched_yield as GoStop + GoStart. */
void gt_yield_begin(struct gt_thread *t, uintptr_t site);
void gt_yield_end(struct gt_thread *t);

#endif
