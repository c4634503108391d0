/* readiness.h — what a readiness wait (poll, ppoll, select, pselect,
 * epoll_wait, epoll_pwait, epoll_pwait2) waits for, told by the kinds of
 * the descriptors it watches (issue 15 item 2; docs/design.md, "Calls that
 * may wait in the kernel").
 *
 * Each descriptor kind has a rank; a set of descriptors waits for what its
 * highest-ranked member is:
 *
 *   rank 5  socket                              network
 *   rank 4  eventfd                             sync.eventfd
 *   rank 3  signalfd                            sync.signal
 *   rank 2  pipe, FIFO, tty/char device, inotify network
 *   rank 1  regular file, other anonymous inode syscall
 *   rank 0  timerfd, not open, no descriptor    sleep
 *
 * An epoll descriptor has the rank of its own set. An epoll set is known
 * from epoll_ctl: per epoll descriptor, the number of members of each rank
 * (so EPOLL_CTL_DEL and a member's close can take one away), in a fixed
 * table that never allocates; epoll_wait reads it with no system call.
 * Each member descriptor remembers the first set it was added to (and the
 * rank it counted with), so its close takes it out of that set, as the
 * kernel does. A set whose creation was not seen (inherited over exec, a
 * raw system call, a descriptor past the table) has rank 5, as every
 * epoll wait had before. */
#ifndef GT_READINESS_H
#define GT_READINESS_H

#include <stdatomic.h>
#include <stdint.h>

#include "call.h"
#include "fdkind.h"

enum { GT_READY_RANKS = 6, GT_READY_UNKNOWN_SET = 5 };

/* Epoll descriptors below this have a summary of their set. */
#define GT_EPSET_MAX 16384

struct gt_epset {
	_Atomic uint32_t state; /* bit 0: the set is known; above: its generation */
	_Atomic uint32_t n[GT_READY_RANKS];
};

extern struct gt_epset gt_epsets[GT_EPSET_MAX];

/* gt_ready_kind_rank: the rank of a descriptor kind (not of an epoll one). */
static inline int gt_ready_kind_rank(enum gt_fdkind k)
{
	switch (k) {
	case GT_FD_SOCKET: return 5;
	case GT_FD_EVENTFD: return 4;
	case GT_FD_SIGNALFD: return 3;
	case GT_FD_PIPE: case GT_FD_CHAR: case GT_FD_INOTIFY: return 2;
	case GT_FD_FILE: case GT_FD_OTHER: case GT_FD_EPOLL: case GT_FD_UNKNOWN: return 1;
	default: return 0; /* timerfd, not open */
	}
}

/* gt_ready_call_kind: what a wait whose highest rank is r is recorded as. */
static inline int gt_ready_call_kind(int r)
{
	static const uint8_t kinds[GT_READY_RANKS] = {
		GT_CALL_SLEEP, GT_CALL_SYSCALL, GT_CALL_NETWORK, GT_CALL_SIGNAL, GT_CALL_EVENTFD, GT_CALL_NETWORK,
	};
	return kinds[r];
}

/* gt_epset_rank: the rank of epoll descriptor epfd's set, from its summary. */
static inline int gt_epset_rank(int epfd)
{
	if (epfd < 0 || epfd >= GT_EPSET_MAX)
		return GT_READY_UNKNOWN_SET;
	struct gt_epset *e = &gt_epsets[epfd];
	if (!(atomic_load_explicit(&e->state, memory_order_acquire) & 1))
		return GT_READY_UNKNOWN_SET;
	for (int r = GT_READY_RANKS - 1; r > 0; r--)
		if (atomic_load_explicit(&e->n[r], memory_order_relaxed))
			return r;
	return 0;
}

/* gt_ready_fd_rank: the rank of one watched descriptor. */
static inline int gt_ready_fd_rank(int fd)
{
	enum gt_fdkind k = gt_fdkind(fd);
	return k == GT_FD_EPOLL ? gt_epset_rank(fd) : gt_ready_kind_rank(k);
}

/* Keeping the summaries right (interpose/fd.c, interpose/net.c), each
 * after the real call succeeded: */
void gt_epset_created(int epfd);            /* epoll_create, epoll_create1: an empty set */
void gt_epset_ctl(int epfd, int op, int fd); /* epoll_ctl */
void gt_epset_dup(int from, int to);         /* dup, dup2, dup3, fcntl(F_DUPFD): the same set */
/* gt_fd_closed: fd is closed (close, dup2/dup3 onto it, fclose): out of
 * the set it was added to, and, if it was an epoll descriptor, its
 * summary forgotten. Also forgets fd's kind. */
void gt_fd_closed(int fd);

#endif
