/* log.c — one-line warnings on stderr. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void put(const char *s, size_t n)
{
	while (n > 0) {
		long w = syscall(SYS_write, 2, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
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
