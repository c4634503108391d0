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
 * Also: seccomp(SECCOMP_SET_MODE_STRICT) and prctl(PR_SET_SECCOMP,
 * SECCOMP_MODE_STRICT) made through it take the thread out of the trace
 * first (core/seal.h), as the prctl wrapper does.
 * The fast path (any other number) is four compares and a jump to libc's
 * (x86_64: 12 instructions, no frame); a wake nobody traced waits on adds
 * the op's decoding and one hash and load of the waiter bits. */
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "../core/seal.h"
#include "interpose.h"

/* futex_waitv (Linux 5.16): the same number on x86_64 and aarch64. */
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define FUTEX_WAITV SYS_futex_waitv
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
static GT_SLOW long futex_wait(long n, long a, long b, long c, long d, long e, long f, uintptr_t key, uintptr_t ra,
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

/* futex_woke: a wake of word a (and of e for FUTEX_WAKE_OP) that a traced
 * thread may wait on: the release's record, as pthread_mutex_unlock's. */
static GT_SLOW void futex_woke(long a, long b, long e, uintptr_t ra)
{
	if (gt_has_waiters((uintptr_t)a))
		gt_wake_release((uintptr_t)a, GT_FN(syscall), ra);
	if (((unsigned)b & FUTEX_CMD_MASK) == FUTEX_WAKE_OP && gt_has_waiters((uintptr_t)e))
		gt_wake_release((uintptr_t)e, GT_FN(syscall), ra);
}

/* The exported syscall is variadic. Its arguments are read as seven longs:
 * the x86_64 and aarch64 Linux calling conventions pass a variadic call's
 * integer arguments exactly as a prototyped one's (registers, then the
 * stack), so these parameters hold what va_arg would read, as libc's own
 * syscall(), written in assembly, reads them. Arguments a caller did not
 * pass are whatever those registers held, forwarded unchanged, as libc
 * would hand them to the kernel.
 *
 * On x86_64 the exported symbol is a stub in assembly (below) that jumps
 * to libc's syscall for every number but the futex ones, with the caller's
 * registers and stack untouched: eight instructions, no frame. The futex
 * numbers (and every call before libc's is resolved) jump to gt_syscall_c,
 * which then runs as if the program had called it: its return address and
 * CFA are the program's call's. Elsewhere gt_syscall_c is the export. */
#if defined(__x86_64__)
#define GT_SYSCALL_C_NAME "gt_syscall_c"
#define GT_SYSCALL_C_VIS __attribute__((visibility("hidden"), used))
#elif defined(__aarch64__)
#define GT_SYSCALL_C_NAME "syscall"
#define GT_SYSCALL_C_VIS GT_EXPORT
#else
#error "interpose/syscall.c: the seven-long-parameter reading of syscall()'s arguments is for x86_64 and aarch64"
#endif

/* Where the stub jumps for a number that is not a futex one: libc's
 * syscall once resolved, gt_syscall_c until then. */
long (*gt_syscall_next)(long, ...) __attribute__((visibility("hidden")));

long gt_syscall_c(long n, long a, long b, long c, long d, long e, long f) __asm__(GT_SYSCALL_C_NAME);
GT_SYSCALL_C_VIS long gt_syscall_c(long n, long a, long b, long c, long d, long e, long f)
{
	if (n == SYS_futex) {
		if (futex_op_in(b, WAIT_OPS))
			return futex_wait(n, a, b, c, d, e, f, (uintptr_t)a, GT_RA(), GT_CFA());
		if (futex_op_in(b, WAKE_OPS) &&
		    __builtin_expect(gt_has_waiters((uintptr_t)a) ||
					     (((unsigned)b & FUTEX_CMD_MASK) == FUTEX_WAKE_OP && gt_has_waiters((uintptr_t)e)),
				     0))
			futex_woke(a, b, e, GT_RA());
	} else if (n == FUTEX_WAITV) {
		return futex_wait(n, a, b, c, d, e, f, 0, GT_RA(), GT_CFA());
	} else if ((n == SYS_seccomp && a == SECCOMP_SET_MODE_STRICT) ||
		   (n == SYS_prctl && a == PR_SET_SECCOMP && b == SECCOMP_MODE_STRICT)) {
		gt_seal_before_strict(GT_SITE(syscall)); /* core/seal.h */
	}
	long (*real)(long, ...) = GT_REAL(syscall);
	__atomic_store_n(&gt_syscall_next, real, __ATOMIC_RELAXED);
	return real(n, a, b, c, d, e, f);
}

#if defined(__x86_64__)
#define GT_STR_(x) #x
#define GT_STR(x) GT_STR_(x)
#ifdef __CET__
#define GT_ENDBR "	endbr64\n"
#else
#define GT_ENDBR ""
#endif
__asm__(".pushsection .text\n"
	".globl syscall\n"
	".type syscall, @function\n"
	".p2align 4\n"
	"syscall:\n"
	".cfi_startproc\n"
	GT_ENDBR
	"	cmpq $" GT_STR(SYS_futex) ", %rdi\n"
	"	je 1f\n"
	"	cmpq $" GT_STR(FUTEX_WAITV) ", %rdi\n"
	"	je 1f\n"
	"	cmpq $" GT_STR(SYS_seccomp) ", %rdi\n"
	"	je 1f\n"
	"	cmpq $" GT_STR(SYS_prctl) ", %rdi\n"
	"	je 1f\n"
	"	movq gt_syscall_next(%rip), %r11\n" /* not %rax: %al counts vector arguments */
	"	testq %r11, %r11\n"
	"	je 1f\n"
	"	jmp *%r11\n"
	"1:	jmp gt_syscall_c\n"
	".cfi_endproc\n"
	".size syscall, .-syscall\n"
	".popsection\n");
#endif
