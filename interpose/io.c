/* io.c — read and write family: a wait on a socket is GoBlock("network"), on
 * anything else a system call (GoSyscallBegin/End). Calls that return at
 * once record nothing. */
#include <sys/uio.h>
#include <unistd.h>

#include "interpose.h"

GT_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	GT_WAIT_CALL(gt_fd_call_kind(fd), read, GT_REAL(read)(fd, buf, n));
}

GT_EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
	GT_WAIT_CALL(gt_fd_call_kind(fd), readv, GT_REAL(readv)(fd, iov, cnt));
}

GT_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	GT_WAIT_CALL(gt_fd_call_kind(fd), pread, GT_REAL(pread)(fd, buf, n, off));
}

GT_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	GT_WAIT_CALL(gt_fd_call_kind(fd), pread64, GT_REAL(pread)(fd, buf, n, off));
}

GT_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
	GT_WAIT_CALL(gt_fd_call_kind(fd), preadv, GT_REAL(preadv)(fd, iov, cnt, off));
}

/* PIPE_RELEASE: in the exported wrapper, before the real write; k is fd's
 * kind, read once for this and for the call's kind. */
#define PIPE_RELEASE(k, fd, fn)                                          \
	do {                                                             \
		if (__builtin_expect((k) == GT_FD_PIPE, 0) &&            \
		    atomic_load_explicit(&gt_pipe_waited, memory_order_relaxed)) \
			GT_RELEASE(gt_pipe_key(fd), fn);                 \
	} while (0)
#define KIND_CALL(k) ((k) == GT_FD_SOCKET ? GT_CALL_NETWORK : GT_CALL_SYSCALL)

GT_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	enum gt_fdkind k = gt_fdkind(fd);
	PIPE_RELEASE(k, fd, write);
	GT_WAIT_CALL(KIND_CALL(k), write, GT_REAL(write)(fd, buf, n));
}

GT_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	enum gt_fdkind k = gt_fdkind(fd);
	PIPE_RELEASE(k, fd, writev);
	GT_WAIT_CALL(KIND_CALL(k), writev, GT_REAL(writev)(fd, iov, cnt));
}

GT_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	GT_WAIT_CALL(gt_fd_call_kind(fd), pwrite, GT_REAL(pwrite)(fd, buf, n, off));
}

GT_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	GT_WAIT_CALL(gt_fd_call_kind(fd), pwrite64, GT_REAL(pwrite)(fd, buf, n, off));
}

GT_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	GT_WAIT_CALL(gt_fd_call_kind(fd), pwritev, GT_REAL(pwritev)(fd, iov, cnt, off));
}
