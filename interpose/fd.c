/* fd.c — keeps the fd-kind cache (core/fdkind.h) and the epoll set
 * summaries (core/readiness.h) right: every call that creates, duplicates
 * or closes a descriptor updates them, traced or not. Nothing here writes
 * events. */
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/readiness.h"
#include "interpose.h"

/* born: fd is a new descriptor of kind k. Its number was free, so whatever
 * we remembered of it (a closed descriptor, a member of a set) is gone. */
static void born(int fd, enum gt_fdkind k)
{
	if (fd >= 0) {
		gt_fd_closed(fd);
		gt_fdkind_set(fd, k);
	}
}

GT_EXPORT int close(int fd)
{
	gt_fd_closed(fd);
	return GT_REAL(close)(fd);
}

/* dup'd: to is a copy of fd: the same kind and, for an epoll descriptor,
 * the same set (its summary copied). */
static void dupd(int fd, int to)
{
	if (to < 0 || to == fd)
		return;
	enum gt_fdkind k = fd >= 0 && fd < GT_FDKIND_MAX
		? (enum gt_fdkind)atomic_load_explicit(&gt_fdkinds[fd], memory_order_relaxed) : GT_FD_UNKNOWN;
	born(to, k);
	gt_epset_dup(fd, to);
}

GT_EXPORT int dup(int fd)
{
	int r = GT_REAL(dup)(fd);
	dupd(fd, r);
	return r;
}

/* dup2 and dup3 close `to` first when it is open. */
GT_EXPORT int dup2(int fd, int to)
{
	int r = GT_REAL(dup2)(fd, to);
	if (r >= 0)
		dupd(fd, to);
	return r;
}

GT_EXPORT int dup3(int fd, int to, int flags)
{
	int r = GT_REAL(dup3)(fd, to, flags);
	if (r >= 0)
		dupd(fd, to);
	return r;
}

GT_EXPORT int socket(int domain, int type, int proto)
{
	int r = GT_REAL(socket)(domain, type, proto);
	born(r, GT_FD_SOCKET);
	return r;
}

GT_EXPORT int socketpair(int domain, int type, int proto, int sv[2])
{
	int r = GT_REAL(socketpair)(domain, type, proto, sv);
	if (r == 0) {
		born(sv[0], GT_FD_SOCKET);
		born(sv[1], GT_FD_SOCKET);
	}
	return r;
}

GT_EXPORT int pipe(int fds[2])
{
	int r = GT_REAL(pipe)(fds);
	if (r == 0) {
		born(fds[0], GT_FD_PIPE);
		born(fds[1], GT_FD_PIPE);
	}
	return r;
}

GT_EXPORT int pipe2(int fds[2], int flags)
{
	int r = GT_REAL(pipe2)(fds, flags);
	if (r == 0) {
		born(fds[0], GT_FD_PIPE);
		born(fds[1], GT_FD_PIPE);
	}
	return r;
}

/* issue 15 item 2: the anonymous descriptors a readiness wait is told by,
 * and the epoll set. */
GT_EXPORT int eventfd(unsigned int initval, int flags)
{
	int r = GT_REAL(eventfd)(initval, flags);
	born(r, GT_FD_EVENTFD);
	return r;
}

GT_EXPORT int timerfd_create(int clockid, int flags)
{
	int r = GT_REAL(timerfd_create)(clockid, flags);
	born(r, GT_FD_TIMERFD);
	return r;
}

GT_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	sigset_t sf_buf;
	int sf_stripped;
	int r = GT_REAL(signalfd)(fd, gt_sample_filter(mask, &sf_buf, &sf_stripped), flags);
	if (fd == -1) /* else the mask of an existing one changed */
		born(r, GT_FD_SIGNALFD);
	return r;
}

GT_EXPORT int inotify_init(void)
{
	int r = GT_REAL(inotify_init)();
	born(r, GT_FD_INOTIFY);
	return r;
}

GT_EXPORT int inotify_init1(int flags)
{
	int r = GT_REAL(inotify_init1)(flags);
	born(r, GT_FD_INOTIFY);
	return r;
}

GT_EXPORT int epoll_create(int size)
{
	int r = GT_REAL(epoll_create)(size);
	if (r >= 0) {
		born(r, GT_FD_EPOLL);
		gt_epset_created(r);
	}
	return r;
}

GT_EXPORT int epoll_create1(int flags)
{
	int r = GT_REAL(epoll_create1)(flags);
	if (r >= 0) {
		born(r, GT_FD_EPOLL);
		gt_epset_created(r);
	}
	return r;
}

GT_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	int r = GT_REAL(epoll_ctl)(epfd, op, fd, ev);
	if (r == 0) {
		int saved = errno;
		gt_epset_ctl(epfd, op, fd);
		errno = saved;
	}
	return r;
}

/* stdio opens and closes descriptors inside libc, past our wrappers. */
GT_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f = GT_REAL(fopen)(path, mode);
	if (f)
		born(fileno(f), GT_FD_UNKNOWN);
	return f;
}

GT_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f = GT_REAL(fopen)(path, mode);
	if (f)
		born(fileno(f), GT_FD_UNKNOWN);
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
