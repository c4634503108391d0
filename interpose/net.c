/* net.c — socket calls and readiness waits. A socket call that waits is
 * GoBlock("network"). A readiness wait (poll, ppoll, select, pselect, the
 * epoll_wait family) is recorded as what the descriptors it watches wait
 * for, by one rule (core/readiness.h): a socket makes it network, else an
 * eventfd sync.eventfd, a signalfd sync.signal, a pipe, tty or inotify
 * network, a file a syscall; timerfds alone, or no descriptor at all
 * (select(0, NULL, NULL, NULL, &tv): PostgreSQL's pg_usleep, MariaDB's
 * my_sleep), a sleep. A zero timeout waits for nothing: a syscall if slow.
 * An epoll wait reads its set's summary, kept by
 * epoll_ctl (interpose/fd.c), with no system call. */
/* glibc declares poll's array write-only; we read the caller's fds before
 * the call, which GCC then takes for a read of uninitialized memory. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>

#include "../core/readiness.h"
#include "interpose.h"


/* Looking at more descriptors than this to classify a wait is not worth
 * it: the ones not looked at count as unknown (a syscall) at least. */
#define CLASSIFY_MAX 64

/* A wait with a zero timeout waits for nothing: when it takes long, that is
 * the kernel's work over the descriptors, a system call, whatever they are
 * (and the descriptors are not looked at). */
#define ZERO_TIMEOUT GT_CALL_SYSCALL

static int poll_kind(const struct pollfd *fds, nfds_t n, int zero)
{
	if (zero)
		return ZERO_TIMEOUT;
	int rank = 0;
	for (nfds_t i = 0; i < n && i < CLASSIFY_MAX; i++) {
		if (fds[i].fd < 0)
			continue; /* poll ignores it */
		int r = gt_ready_fd_rank(fds[i].fd);
		if (r > rank)
			rank = r;
	}
	if (n > CLASSIFY_MAX && rank < 1)
		rank = 1;
	return gt_ready_call_kind(rank);
}

/* select_kind also sets *only to the one descriptor watched when there is
 * exactly one and it is watched for reading only (else -1). */
static int select_kind(int nfds, const fd_set *r, const fd_set *w, const fd_set *e, int zero, int *only)
{
	*only = -1;
	if (zero)
		return ZERO_TIMEOUT;
	int rank = 0, seen = 0, one = -1;
	for (int fd = 0; fd < nfds && fd < FD_SETSIZE; fd++) {
		int rd = r && FD_ISSET(fd, r);
		if (rd || (w && FD_ISSET(fd, w)) || (e && FD_ISSET(fd, e))) {
			if (++seen > CLASSIFY_MAX) {
				if (rank < 1)
					rank = 1;
				break;
			}
			one = rd && seen == 1 && !(w && FD_ISSET(fd, w)) && !(e && FD_ISSET(fd, e)) ? fd : -1;
			int k = gt_ready_fd_rank(fd);
			if (k > rank)
				rank = k;
		}
	}
	if (nfds > FD_SETSIZE && rank < 1)
		rank = 1;
	if (seen == 1)
		*only = one;
	return gt_ready_call_kind(rank);
}

static int epoll_kind(int epfd, int zero)
{
	return zero ? ZERO_TIMEOUT : gt_ready_call_kind(gt_epset_rank(epfd));
}

#define TS_ZERO(ts) ((ts) && (ts)->tv_sec == 0 && (ts)->tv_nsec == 0)
#define TV_ZERO(tv) ((tv) && (tv)->tv_sec == 0 && (tv)->tv_usec == 0)

GT_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, recv, GT_REAL(recv)(fd, buf, n, flags));
}

GT_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *a, socklen_t *al)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, recvfrom, GT_REAL(recvfrom)(fd, buf, n, flags, a, al));
}

GT_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, recvmsg, GT_REAL(recvmsg)(fd, msg, flags));
}

GT_EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned n, int flags, struct timespec *timeout)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, recvmmsg, GT_REAL(recvmmsg)(fd, v, n, flags, timeout));
}

GT_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, send, GT_REAL(send)(fd, buf, n, flags));
}

GT_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *a, socklen_t al)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, sendto, GT_REAL(sendto)(fd, buf, n, flags, a, al));
}

GT_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, sendmsg, GT_REAL(sendmsg)(fd, msg, flags));
}

GT_EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, sendmmsg, GT_REAL(sendmmsg)(fd, v, n, flags));
}

/* accept's result is a socket: cache it (its number was free: what we
 * remembered of it, a set it was in, is gone). */
#define ACCEPTED(call)                                    \
	do {                                              \
		int fd_ = call;                           \
		if (fd_ >= 0) {                           \
			gt_fd_closed(fd_);                \
			gt_fdkind_set(fd_, GT_FD_SOCKET); \
		}                                         \
		return fd_;                               \
	} while (0)

static int accept_traced(int fd, struct sockaddr *a, socklen_t *al)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, accept, GT_REAL(accept)(fd, a, al));
}

static int accept4_traced(int fd, struct sockaddr *a, socklen_t *al, int flags)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, accept4, GT_REAL(accept4)(fd, a, al, flags));
}

GT_EXPORT int accept(int fd, struct sockaddr *a, socklen_t *al)
{
	ACCEPTED(accept_traced(fd, a, al));
}

GT_EXPORT int accept4(int fd, struct sockaddr *a, socklen_t *al, int flags)
{
	ACCEPTED(accept4_traced(fd, a, al, flags));
}

GT_EXPORT int connect(int fd, const struct sockaddr *a, socklen_t al)
{
	GT_WAIT_CALL(GT_CALL_NETWORK, connect, GT_REAL(connect)(fd, a, al));
}

/* pipe_key: a wait for one pipe or FIFO (fd) to be readable waits for a
 * write (issue 16 item 1): the pipe's key (core/fdkind.h), so that a write
 * of another thread of the process names itself on the wake-up
 * (interpose/io.c); 0 for any other wait (several descriptors, a socket,
 * a wait for writing). */
static uintptr_t pipe_key(int fd, int kind)
{
	if (fd < 0 || kind != GT_CALL_NETWORK || gt_fdkind(fd) != GT_FD_PIPE)
		return 0;
	if (!atomic_load_explicit(&gt_pipe_waited, memory_order_relaxed))
		atomic_store_explicit(&gt_pipe_waited, 1, memory_order_relaxed);
	return gt_pipe_key(fd);
}

static uintptr_t poll_key(const struct pollfd *fds, nfds_t n, int kind)
{
	if (n != 1 || !(fds[0].events & POLLIN) || (fds[0].events & POLLOUT))
		return 0;
	return pipe_key(fds[0].fd, kind);
}

GT_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(poll)(fds, n, timeout);
	int kind = poll_kind(fds, n, timeout == 0);
	gt_call_begin_key(t, kind, GT_SITE(poll), GT_CALLER(), poll_key(fds, n, kind));
	int r = GT_REAL(poll)(fds, n, timeout);
	gt_call_end_woken(t, r > 0);
	return r;
}

GT_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(ppoll)(fds, n, ts, mask);
	int kind = poll_kind(fds, n, TS_ZERO(ts));
	gt_call_begin_key(t, kind, GT_SITE(ppoll), GT_CALLER(), poll_key(fds, n, kind));
	int r = GT_REAL(ppoll)(fds, n, ts, mask);
	gt_call_end_woken(t, r > 0);
	return r;
}

GT_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(select)(nfds, r, w, e, tv);
	int only, kind = select_kind(nfds, r, w, e, TV_ZERO(tv), &only);
	gt_call_begin_key(t, kind, GT_SITE(select), GT_CALLER(), pipe_key(only, kind));
	int n = GT_REAL(select)(nfds, r, w, e, tv);
	gt_call_end_woken(t, n > 0);
	return n;
}

GT_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts, const sigset_t *mask)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(pselect)(nfds, r, w, e, ts, mask);
	int only, kind = select_kind(nfds, r, w, e, TS_ZERO(ts), &only);
	gt_call_begin_key(t, kind, GT_SITE(pselect), GT_CALLER(), pipe_key(only, kind));
	int n = GT_REAL(pselect)(nfds, r, w, e, ts, mask);
	gt_call_end_woken(t, n > 0);
	return n;
}

GT_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	GT_WAIT_CALL(epoll_kind(epfd, timeout == 0), epoll_wait, GT_REAL(epoll_wait)(epfd, ev, max, timeout));
}

GT_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
	GT_WAIT_CALL(epoll_kind(epfd, timeout == 0), epoll_pwait, GT_REAL(epoll_pwait)(epfd, ev, max, timeout, mask));
}

GT_EXPORT int epoll_pwait2(int epfd, struct epoll_event *ev, int max, const struct timespec *timeout,
			   const sigset_t *mask)
{
	GT_WAIT_CALL(epoll_kind(epfd, TS_ZERO(timeout)), epoll_pwait2, GT_REAL(epoll_pwait2)(epfd, ev, max, timeout, mask));
}
