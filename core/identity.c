/* identity.c — which process a trace is (identity.h). */
#include "identity.h"

#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys.h"
#include "tracer.h"

static char cmd[GT_IDENTITY_CMD_MAX];
static unsigned cpu_hz; /* the CPU sampling rate, 0 when off (gt_identity_set_cpu_hz) */

/* put_arg appends one argument, quoted when it holds a space or a quote, with
 * control bytes, quotes and backslashes escaped C-style. */
static size_t put_arg(char *buf, size_t at, size_t cap, const char *a)
{
	int quote = a[0] == 0 || strpbrk(a, " \t\"'\\") != NULL;
	if (quote && at + 1 < cap)
		buf[at++] = '"';
	for (const unsigned char *p = (const unsigned char *)a; *p && at + 5 < cap; p++) {
		if (*p == '"' || *p == '\\') {
			buf[at++] = '\\';
			buf[at++] = (char)*p;
		} else if (*p < 0x20 || *p == 0x7f) {
			at += (size_t)snprintf(buf + at, cap - at, "\\x%02x", *p);
		} else {
			buf[at++] = (char)*p;
		}
	}
	if (quote && at + 1 < cap)
		buf[at++] = '"';
	buf[at] = 0;
	return at;
}

/* format rewrites gt.identity only when it changed: a thread writing the
 * generation's UserLog (core/section.h) may be reading it. */
static void format(void)
{
	char now[GT_IDENTITY_MAX];
	char hz[24] = "";
	if (cpu_hz)
		snprintf(hz, sizeof hz, " cpu_hz=%u", cpu_hz);
	snprintf(now, sizeof now, "%s pid=%d ppid=%d%s cmd=%s", GT_IDENTITY_PREFIX, (int)getpid(), (int)getppid(), hz,
		 cmd);
	if (strcmp(now, gt.identity) != 0)
		memcpy(gt.identity, now, strlen(now) + 1);
}

void gt_identity_init(int argc, char **argv)
{
	size_t at = 0;
	cmd[0] = 0;
	for (int i = 0; argv && i < argc && argv[i] && at + 8 < sizeof cmd; i++) {
		if (i > 0)
			cmd[at++] = ' ';
		at = put_arg(cmd, at, sizeof cmd, argv[i]);
	}
	format();
}

void gt_identity_after_fork(void)
{
	format();
}

void gt_identity_refresh(void)
{
	/* /proc/self/cmdline: the arguments as the process shows them now
	 * (Chromium's zygote children retitle themselves --type=renderer). A
	 * transient descriptor, by the caller's rules (core/sink.h). */
	char raw[GT_IDENTITY_CMD_MAX];
	int fd = (int)gt_sys_call(SYS_openat, AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	long n = gt_sys_call(SYS_read, fd, raw, sizeof raw - 1);
	gt_sys_call(SYS_close, fd);
	if (n <= 0)
		return;
	raw[n] = 0;
	/* A retitled process (redis, postgres, Chromium) pads its title with
	 * NULs: no empty arguments at the end. */
	while (n > 1 && raw[n - 1] == 0 && raw[n - 2] == 0)
		n--;
	char *argv[256];
	int argc = 0;
	for (long i = 0; i < n && argc < 256; ) {
		argv[argc++] = raw + i;
		i += (long)strlen(raw + i) + 1;
	}
	gt_identity_init(argc, argv);
}

void gt_identity_set_cpu_hz(unsigned hz)
{
	cpu_hz = hz;
	format();
}
