/* fs.c — file system calls that may wait (open, fsync, file locks, copies):
 * a wait is a system call (GoSyscallBegin/End). New descriptors are
 * forgotten by the fd-kind cache, so their kind is looked up afresh. */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "../core/readiness.h"
#include "interpose.h"

static int fresh(int fd)
{
	if (fd >= 0)
		gt_fd_closed(fd); /* a free number: nothing we knew of it holds */
	return fd;
}

/* The optional mode argument of open/openat: there only with O_CREAT or
 * O_TMPFILE. */
#define MODE_ARG(mode, flags)                                                \
	mode_t mode = 0;                                                     \
	if (((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE) {     \
		va_list ap_;                                                 \
		va_start(ap_, flags);                                        \
		mode = (mode_t)va_arg(ap_, int);                             \
		va_end(ap_);                                                 \
	}

static int open_traced(const char *path, int flags, mode_t mode)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, open, GT_REAL(open)(path, flags, mode));
}

static int openat_traced(int dirfd, const char *path, int flags, mode_t mode)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, openat, GT_REAL(openat)(dirfd, path, flags, mode));
}

GT_EXPORT int open(const char *path, int flags, ...)
{
	MODE_ARG(mode, flags);
	return fresh(open_traced(path, flags, mode));
}

GT_EXPORT int open64(const char *path, int flags, ...)
{
	MODE_ARG(mode, flags);
	return fresh(open_traced(path, flags, mode));
}

GT_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(mode, flags);
	return fresh(openat_traced(dirfd, path, flags, mode));
}

GT_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(mode, flags);
	return fresh(openat_traced(dirfd, path, flags, mode));
}

GT_EXPORT int creat(const char *path, mode_t mode)
{
	return fresh(open_traced(path, O_CREAT | O_WRONLY | O_TRUNC, mode));
}

GT_EXPORT int fsync(int fd)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, fsync, GT_REAL(fsync)(fd));
}

GT_EXPORT int fdatasync(int fd)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, fdatasync, GT_REAL(fdatasync)(fd));
}

GT_EXPORT int flock(int fd, int op)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, flock, GT_REAL(flock)(fd, op));
}

static int fcntl_wait(int fd, int cmd, void *arg)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, fcntl, GT_REAL(fcntl)(fd, cmd, arg));
}

static int fcntl_any(int fd, int cmd, void *arg)
{
	switch (cmd) {
	case F_SETLKW:
	case F_OFD_SETLKW:
		return fcntl_wait(fd, cmd, arg);
	case F_DUPFD:
	case F_DUPFD_CLOEXEC: {
		int r = fresh(GT_REAL(fcntl)(fd, cmd, arg));
		if (r >= 0)
			gt_epset_dup(fd, r); /* an epoll descriptor's copy: the same set */
		return r;
	}
	default:
		return GT_REAL(fcntl)(fd, cmd, arg);
	}
}

GT_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_any(fd, cmd, arg);
}

GT_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_any(fd, cmd, arg);
}

GT_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t n)
{
	GT_WAIT_CALL(gt_fd_call_kind(out), sendfile, GT_REAL(sendfile)(out, in, off, n));
}

GT_EXPORT ssize_t sendfile64(int out, int in, off_t *off, size_t n)
{
	GT_WAIT_CALL(gt_fd_call_kind(out), sendfile64, GT_REAL(sendfile)(out, in, off, n));
}

GT_EXPORT ssize_t splice(int in, off_t *off_in, int out, off_t *off_out, size_t n, unsigned flags)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, splice, GT_REAL(splice)(in, off_in, out, off_out, n, flags));
}
