/* sys.h — the tracer's own system calls, made directly so they never pass
 * through an interposed libc wrapper (ours or another preloaded library's). */
#ifndef GT_SYS_H
#define GT_SYS_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* gt_sys_call(n, args...): system call n with up to six arguments, made
 * with the instruction itself, never through libc's syscall(), which the
 * library exports (interpose/syscall.c: a futex wait is a block). Like
 * libc's: returns -1 with errno set on failure, so callers keep their logic.
 * Arguments are converted to long, as syscall()'s callers' would be read. */
static inline long gt_sys_call6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	r = x0;
#else
#error "gt_sys_call: x86_64 and aarch64 only"
#endif
	if (__builtin_expect((unsigned long)r > -4096UL, 0)) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
#define gt_sys_call_(n, a, b, c, d, e, f, ...)                                                    \
	gt_sys_call6((long)(n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define gt_sys_call(...) gt_sys_call_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

/* gt_sys_mmap / gt_sys_munmap: the tracer's own mappings, made with the
 * instruction itself: the library exports mmap and munmap
 * (interpose/mmap.c), which record the program's mappings as spans. */
static inline void *gt_sys_mmap(void *addr, unsigned long len, int prot, int flags, int fd, long off)
{
	long r = gt_sys_call(SYS_mmap, addr, len, prot, flags, fd, off);
	return r == -1 ? (void *)-1 : (void *)r;
}

static inline int gt_sys_munmap(void *addr, unsigned long len)
{
	return (int)gt_sys_call(SYS_munmap, addr, len);
}

static inline int gt_gettid(void) { return (int)gt_sys_call(SYS_gettid); }

/* gt_sys_yield: sched_yield without passing through the library's own
 * exported wrapper (which would write a GoStop for the tracer's spin). */
static inline void gt_sys_yield(void) { gt_sys_call(SYS_sched_yield); }

/* gt_sys_set_name names the calling thread (PR_SET_NAME), and
 * gt_sys_take_pending takes a pending signal out of the set without
 * waiting: direct system calls, not the library's exported prctl and
 * sigtimedwait wrappers. */
static inline void gt_sys_set_name(const char *name)
{
	gt_sys_call(SYS_prctl, 15 /* PR_SET_NAME */, name, 0, 0, 0);
}

static inline void gt_sys_take_pending(const void *set)
{
	static const struct timespec zero = { 0, 0 };
	gt_sys_call(SYS_rt_sigtimedwait, set, NULL, &zero, 8 /* the kernel's sigset size */);
}

static inline long gt_futex_wait(void *addr, int expect, const struct timespec *rel)
{
	return gt_sys_call(SYS_futex, addr, FUTEX_WAIT_PRIVATE, expect, rel, NULL, 0);
}

static inline long gt_futex_wake(void *addr, int n)
{
	return gt_sys_call(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* gt_write_all writes every byte of iov[0..n) to fd, retrying short writes
 * and EINTR. Returns 0, or the errno of the failure. */
int gt_write_all(int fd, struct iovec *iov, int n);

#endif
