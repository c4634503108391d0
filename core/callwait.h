/* callwait.h — the thread's side of calls that may wait in the kernel (I/O,
 * poll, waitpid ...; the protocol: core/call.h). For the interposers
 * (core/emit.h).
 *
 * Such calls cost nothing but two clock reads when they return at once.
 * gt_call_begin notes the start; gt_call_end, after the real call, writes
 * the wait after the fact when it lasted GT_SHORT_WAIT_NS or more:
 * GoBlock("network") ... GoUnblock + GoStart for sockets, GoSyscallBegin
 * ... GoSyscallEnd for the rest. A call still running when a generation
 * ends is converted by the switch (gt_call_convert, core/call.h), so a long
 * wait is never shown as running. Traced calls made while one of these
 * runs (signal handlers) pass through. */
#ifndef GT_CALLWAIT_H
#define GT_CALLWAIT_H

#include <stdatomic.h>
#include <stdint.h>

#include "call.h"
#include "clock.h"
#include "thread.h"

void gt_call_begin_slow(struct gt_thread *t, int kind, uintptr_t site, uintptr_t caller);
void gt_call_end(struct gt_thread *t);

/* gt_sp: the stack pointer where it is called (inlined: the caller's). */
static inline __attribute__((always_inline)) uintptr_t gt_sp(void)
{
#if defined(__x86_64__)
	uintptr_t sp;
	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	return sp;
#elif defined(__aarch64__)
	uintptr_t sp;
	__asm__ volatile("mov %0, sp" : "=r"(sp));
	return sp;
#else
	return (uintptr_t)__builtin_frame_address(0);
#endif
}

static inline __attribute__((always_inline)) void gt_call_begin(struct gt_thread *t, int kind, uintptr_t site,
								   uintptr_t caller)
{
	t->inside++;
	t->quiet++;
	t->call_sp = gt_sp();
	t->call_left = 0;
	if (__builtin_expect(t->state != GT_T_RUNNING, 0)) {
		gt_call_begin_slow(t, kind, site, caller);
		return;
	}
	t->call_kind = (uint8_t)kind;
	t->call_site = site;
	t->call_caller = caller;
	atomic_store_explicit(&t->call_t0, gt_now(), memory_order_release);
}

/* A wait left without returning: a signal handler that interrupts the
 * wait may siglongjmp to a frame above the waiting wrapper, which then
 * never runs its gt_call_end, and `inside`/`quiet` stay raised. The
 * longjmp wrappers call gt_call_jump(env): a jump whose target stack
 * pointer (read from env) lies above the wrapper's frame (call_sp) on the
 * thread's own stack marks the call left, at that time. The thread's next
 * traced call (gt_enter_nested: gt_enter's path when `inside` is raised),
 * or its end, ends the wait at the jump's time and traces on. A jump
 * whose target cannot be read (not x86-64 glibc) leaves the wait pending,
 * as before: the thread reads as still waiting. */
struct gt_thread *gt_enter_nested(struct gt_thread *t);
void gt_call_jump(const void *env);

/* gt_call_begin_key: a call that waits on a word another thread releases (a
 * futex wait): as gt_call_begin, and while the call is pending the thread
 * counts itself a waiter on key (core/wake.h), so a release of key (a
 * futex wake, GT_RELEASE) leaves a wake record. It ends with
 * gt_call_end_woken: woken says the call returned because it was woken (not
 * a timeout or an error); then the GoUnblock carries the waker's site and
 * release time, when a record of key is found. */
void gt_call_begin_key(struct gt_thread *t, int kind, uintptr_t site, uintptr_t caller, uintptr_t key);
void gt_call_end_woken(struct gt_thread *t, int woken);

/* gt_call_cancelled: the thread ends (cancelled, or exiting from a signal
 * handler) perhaps inside such a call: settles it with the switch, which
 * may be converting it right now. */
void gt_call_cancelled(struct gt_thread *t);

#endif
