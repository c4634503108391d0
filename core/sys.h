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

static inline int gt_gettid(void) { return (int)syscall(SYS_gettid); }

/* gt_sys_yield: sched_yield without passing through the library's own
 * exported wrapper (which would write a GoStop for the tracer's spin). */
static inline void gt_sys_yield(void) { syscall(SYS_sched_yield); }

/* gt_sys_set_name names the calling thread (PR_SET_NAME), and
 * gt_sys_take_pending takes a pending signal out of the set without
 * waiting: direct system calls, not the library's exported prctl and
 * sigtimedwait wrappers. */
static inline void gt_sys_set_name(const char *name)
{
	syscall(SYS_prctl, 15 /* PR_SET_NAME */, name, 0, 0, 0);
}

static inline void gt_sys_take_pending(const void *set)
{
	static const struct timespec zero = { 0, 0 };
	syscall(SYS_rt_sigtimedwait, set, NULL, &zero, 8 /* the kernel's sigset size */);
}

static inline long gt_futex_wait(void *addr, int expect, const struct timespec *rel)
{
	return syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, expect, rel, NULL, 0);
}

static inline long gt_futex_wake(void *addr, int n)
{
	return syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* gt_write_all writes every byte of iov[0..n) to fd, retrying short writes
 * and EINTR. Returns 0, or the errno of the failure. */
int gt_write_all(int fd, struct iovec *iov, int n);

#endif
