/* syscall.c — libc's syscall(): a futex wait made through it is a block.
 *
 * Rust's standard library, parking_lot and engines with their own latches
 * (InnoDB) wait with syscall(SYS_futex, addr, FUTEX_WAIT..., val, timeout)
 * and wake with FUTEX_WAKE. glibc's own locks make the system call inline,
 * not through this symbol: they are the pthread wrappers' and are not seen
 * twice. The tracer's own system calls never come here (gt_sys_call,
 * core/sys.h).
 *
 * Every call is forwarded with the same six arguments, so each number
 * returns and sets errno as untraced. Recorded:
 *   - futex waits (FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_LOCK_PI,
 *     FUTEX_LOCK_PI2, FUTEX_WAIT_REQUEUE_PI, with or without
 *     FUTEX_PRIVATE_FLAG / FUTEX_CLOCK_REALTIME) and futex_waitv: a call
 *     that may wait in the kernel (GT_CALL_FUTEX, GoBlock "sync.futex"),
 *     written after the fact when it waited GT_SHORT_WAIT_NS or more — a
 *     value mismatch (EAGAIN) records nothing. While it waits the thread
 *     counts itself a waiter on the futex's address;
 *   - futex wakes (FUTEX_WAKE, FUTEX_WAKE_BITSET, FUTEX_REQUEUE,
 *     FUTEX_CMP_REQUEUE, FUTEX_CMP_REQUEUE_PI, FUTEX_UNLOCK_PI, and
 *     FUTEX_WAKE_OP for both its words): a release of the address
 *     (GT_RELEASE), as pthread_mutex_unlock's, so the woken thread's
 *     GoUnblock carries the waker's site and time.
 * The fast path (any other number; a wake nobody traced waits on) reads the
 * arguments, compares and jumps to libc's. */
#include <linux/futex.h>
#include <sys/syscall.h>

#include "interpose.h"

#ifdef SYS_futex_waitv
#define FUTEX_WAITV SYS_futex_waitv
#else
#define FUTEX_WAITV (-1L)
#endif
#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

/* The futex operations that wait for another thread. */
#define WAIT_OPS                                                                                  \
	((1u << FUTEX_WAIT) | (1u << FUTEX_WAIT_BITSET) | (1u << FUTEX_LOCK_PI) | (1u << FUTEX_LOCK_PI2) | \
	 (1u << FUTEX_WAIT_REQUEUE_PI))
/* The ones that wake waiters of the first word. */
#define WAKE_OPS                                                                                   \
	((1u << FUTEX_WAKE) | (1u << FUTEX_WAKE_BITSET) | (1u << FUTEX_REQUEUE) |                       \
	 (1u << FUTEX_CMP_REQUEUE) | (1u << FUTEX_WAKE_OP) | (1u << FUTEX_UNLOCK_PI) |                   \
	 (1u << FUTEX_CMP_REQUEUE_PI))

static inline int futex_op_in(long op, unsigned set)
{
	unsigned cmd = (unsigned)op & FUTEX_CMD_MASK;
	return cmd < 32 && ((set >> cmd) & 1);
}

/* futex_wait: a futex wait; key is the word waited on
 * (0 for futex_waitv: several words, no waker recorded). */
static long futex_wait(long n, long a, long b, long c, long d, long e, long f, uintptr_t key, uintptr_t ra,
			       uintptr_t cfa)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(syscall)(n, a, b, c, d, e, f);
	gt_call_begin_key(t, GT_CALL_FUTEX, GT_SITE_AT(syscall, ra, cfa), ra, key);
	long r = GT_REAL(syscall)(n, a, b, c, d, e, f);
	gt_call_end_woken(t, r >= 0);
	return r;
}

/* The exported syscall is variadic; it is defined here with seven long
 * parameters under the same assembler name. The x86_64 and aarch64 Linux
 * calling conventions pass a variadic call's integer arguments exactly as a
 * prototyped one's (registers, then the stack), so the parameters hold what
 * va_arg would read — as libc's own syscall(), written in assembly, reads
 * them — and the fast path is a few compares and a tail jump to libc's
 * (va_start would spill every register and keep a frame). Arguments a
 * caller did not pass are whatever those registers held, forwarded
 * unchanged, as libc's would hand them to the kernel. */
#if !defined(__x86_64__) && !defined(__aarch64__)
#error "interpose/syscall.c: the seven-long-parameter definition of syscall() is for x86_64 and aarch64"
#endif
long gt_syscall(long n, long a, long b, long c, long d, long e, long f) __asm__("syscall");
/* futex_call: a futex system call (n: SYS_futex or SYS_futex_waitv), from
 * the exported syscall at return address ra, CFA cfa. */
static GT_SLOW long futex_call(long n, long a, long b, long c, long d, long e, long f, uintptr_t ra, uintptr_t cfa)
{
	if (n == FUTEX_WAITV)
		return futex_wait(n, a, b, c, d, e, f, 0, ra, cfa);
	if (futex_op_in(b, WAIT_OPS))
		return futex_wait(n, a, b, c, d, e, f, (uintptr_t)a, ra, cfa);
	if (futex_op_in(b, WAKE_OPS)) {
		if (gt_has_waiters((uintptr_t)a))
			gt_wake_release((uintptr_t)a, GT_FN(syscall), ra);
		/* FUTEX_WAKE_OP wakes the second word's waiters too. */
		if (((unsigned)b & FUTEX_CMD_MASK) == FUTEX_WAKE_OP && gt_has_waiters((uintptr_t)e))
			gt_wake_release((uintptr_t)e, GT_FN(syscall), ra);
	}
	return GT_REAL(syscall)(n, a, b, c, d, e, f);
}

GT_EXPORT long gt_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	if (__builtin_expect(n != SYS_futex && n != FUTEX_WAITV, 1))
		return GT_REAL(syscall)(n, a, b, c, d, e, f);
	return futex_call(n, a, b, c, d, e, f, GT_RA(), GT_CFA());
}
