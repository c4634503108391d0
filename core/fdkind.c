/* fdkind.c — classifying a descriptor with fstat, and the cache. */
#include "fdkind.h"
#include "sys.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

_Atomic uint8_t gt_fdkinds[GT_FDKIND_MAX];
_Atomic uint32_t gt_fdinos[GT_FDKIND_MAX];

/* An anonymous inode (no file type in st_mode) is named by its link in
 * /proc/self/fd: "anon_inode:[eventfd]", "anon_inode:inotify" ... */
static enum gt_fdkind anon_kind(int fd)
{
	static const char pre[] = "/proc/self/fd/";
	char path[sizeof pre + 12], link[64];
	char digits[12];
	int n = 0;
	unsigned v = (unsigned)fd;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(path, pre, sizeof pre - 1);
	for (int i = 0; i < n; i++)
		path[sizeof pre - 1 + i] = digits[n - 1 - i];
	path[sizeof pre - 1 + n] = 0;
	long len = gt_sys_call(SYS_readlink, path, link, sizeof link - 1);
	if (len <= 0)
		return GT_FD_OTHER;
	link[len] = 0;
	static const struct { const char *name; enum gt_fdkind k; } names[] = {
		{ "anon_inode:[eventfd]", GT_FD_EVENTFD },
		{ "anon_inode:[timerfd]", GT_FD_TIMERFD },
		{ "anon_inode:[signalfd]", GT_FD_SIGNALFD },
		{ "anon_inode:[eventpoll]", GT_FD_EPOLL },
		{ "anon_inode:inotify", GT_FD_INOTIFY },
		{ "anon_inode:[inotify]", GT_FD_INOTIFY },
	};
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(link, names[i].name) == 0)
			return names[i].k;
	return GT_FD_OTHER;
}

enum gt_fdkind gt_fdkind_probe(int fd)
{
	int saved = errno;
	struct stat st;
	enum gt_fdkind k;
	if (gt_sys_call(SYS_fstat, fd, &st) != 0) {
		errno = saved;
		return GT_FD_BAD; /* not cached: the number may be opened later */
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFSOCK: k = GT_FD_SOCKET; break;
	case S_IFIFO: k = GT_FD_PIPE; break;
	case S_IFCHR: k = GT_FD_CHAR; break;
	case S_IFREG: case S_IFDIR: case S_IFBLK: k = GT_FD_FILE; break;
	default: k = anon_kind(fd); break;
	}
	errno = saved;
	gt_fdkind_set(fd, k);
	return k;
}

_Atomic int gt_pipe_waited;

uintptr_t gt_pipe_key_probe(int fd)
{
	int saved = errno;
	struct stat st;
	long r = gt_sys_call(SYS_fstat, fd, &st);
	errno = saved;
	if (r != 0 || (st.st_mode & S_IFMT) != S_IFIFO)
		return 0;
	uint32_t ino = (uint32_t)st.st_ino ? (uint32_t)st.st_ino : 1;
	if (fd >= 0 && fd < GT_FDKIND_MAX)
		atomic_store_explicit(&gt_fdinos[fd], ino, memory_order_relaxed);
	return GT_PIPE_KEY(ino);
}
