/* log.c — one-line warnings on stderr. */
#include "log.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Set in the flusher, whose descriptor table is its own (core/flusher.h):
 * its fd 2 is not the program's stderr. */
static __thread int private_table;

void gt_log_private_table(void)
{
	private_table = 1;
}

/* stderr_fd: the program's standard error as a descriptor of this thread's
 * table; *own: the caller closes it. In the flusher, a copy taken from the
 * program's table with pidfd_getfd (a socket to the journal works too),
 * else reopened through /proc (a terminal, a pipe, a file). */
static int stderr_fd(int *own)
{
	*own = 0;
	if (!private_table)
		return 2;
	*own = 1;
	int pfd = (int)gt_sys_call(SYS_pidfd_open, getpid(), 0);
	if (pfd >= 0) {
		int fd = (int)gt_sys_call(SYS_pidfd_getfd, pfd, 2, 0);
		gt_sys_call(SYS_close, pfd);
		if (fd >= 0)
			return fd;
	}
	return (int)gt_sys_call(SYS_openat, AT_FDCWD, "/proc/self/fd/2", O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
}

static void put(const char *s, size_t n)
{
	int own, fd = stderr_fd(&own);
	if (fd < 0)
		return;
	while (n > 0) {
		long w = gt_sys_call(SYS_write, fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		s += w;
		n -= (size_t)w;
	}
	if (own)
		gt_sys_call(SYS_close, fd);
}

void gt_warn(const char *fmt, ...)
{
	int saved = errno;
	char buf[512];
	size_t n = (size_t)snprintf(buf, sizeof buf, "gotrace: ");
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + n, sizeof buf - n - 1, fmt, ap);
	va_end(ap);
	if (m > 0)
		n += (size_t)m < sizeof buf - n - 1 ? (size_t)m : sizeof buf - n - 2;
	buf[n++] = '\n';
	put(buf, n);
	errno = saved;
}

void gt_warn_line(const char *line)
{
	int saved = errno;
	size_t n = strlen(line);
	put(line, n);
	if (n == 0 || line[n - 1] != '\n')
		put("\n", 1);
	errno = saved;
}
