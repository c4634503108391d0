/* fd.c — keeps the fd-kind cache (core/fdkind.h) right: every call that
 * creates, duplicates or closes a descriptor updates it, traced or not.
 * Nothing here writes events. */
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "interpose.h"

GT_EXPORT int close(int fd)
{
	gt_fdkind_set(fd, GT_FD_UNKNOWN);
	return GT_REAL(close)(fd);
}

GT_EXPORT int dup(int fd)
{
	int r = GT_REAL(dup)(fd);
	gt_fdkind_set(r, GT_FD_UNKNOWN);
	return r;
}

GT_EXPORT int dup2(int fd, int to)
{
	int r = GT_REAL(dup2)(fd, to);
	gt_fdkind_set(to, GT_FD_UNKNOWN);
	return r;
}

GT_EXPORT int dup3(int fd, int to, int flags)
{
	int r = GT_REAL(dup3)(fd, to, flags);
	gt_fdkind_set(to, GT_FD_UNKNOWN);
	return r;
}

GT_EXPORT int socket(int domain, int type, int proto)
{
	int r = GT_REAL(socket)(domain, type, proto);
	gt_fdkind_set(r, GT_FD_SOCKET);
	return r;
}

GT_EXPORT int socketpair(int domain, int type, int proto, int sv[2])
{
	int r = GT_REAL(socketpair)(domain, type, proto, sv);
	if (r == 0) {
		gt_fdkind_set(sv[0], GT_FD_SOCKET);
		gt_fdkind_set(sv[1], GT_FD_SOCKET);
	}
	return r;
}

GT_EXPORT int pipe(int fds[2])
{
	int r = GT_REAL(pipe)(fds);
	if (r == 0) {
		gt_fdkind_set(fds[0], GT_FD_PIPE);
		gt_fdkind_set(fds[1], GT_FD_PIPE);
	}
	return r;
}

GT_EXPORT int pipe2(int fds[2], int flags)
{
	int r = GT_REAL(pipe2)(fds, flags);
	if (r == 0) {
		gt_fdkind_set(fds[0], GT_FD_PIPE);
		gt_fdkind_set(fds[1], GT_FD_PIPE);
	}
	return r;
}

/* stdio opens and closes descriptors inside libc, past our wrappers. */
GT_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f = GT_REAL(fopen)(path, mode);
	if (f)
		gt_fdkind_set(fileno(f), GT_FD_UNKNOWN);
	return f;
}

GT_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f = GT_REAL(fopen)(path, mode);
	if (f)
		gt_fdkind_set(fileno(f), GT_FD_UNKNOWN);
	return f;
}

GT_EXPORT FILE *fdopen(int fd, const char *mode)
{
	FILE *f = GT_REAL(fdopen)(fd, mode);
	gt_fdkind_set(fd, GT_FD_UNKNOWN);
	return f;
}

/* fclose is interpose/stdio.c's (it may wait to flush): it resets the
 * descriptor's kind there. */
