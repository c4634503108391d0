/* fdkind.h — what a file descriptor is (socket, pipe, tty, file, eventfd,
 * timerfd ...), cached per fd so that a read, write or readiness wait can be
 * classified without a syscall.
 *
 * The cache is kept right by the wrappers that create, duplicate and close
 * descriptors (interpose/fd.c); an entry is filled on first use from fstat
 * (and, for an anonymous inode, readlink of /proc/self/fd/N, which names
 * it "anon_inode:[eventfd]" ...). Descriptors at or above GT_FDKIND_MAX are
 * classified afresh each time. */
#ifndef GT_FDKIND_H
#define GT_FDKIND_H

#include <stdatomic.h>
#include <stdint.h>

enum gt_fdkind {
	GT_FD_UNKNOWN = 0, /* not cached yet */
	GT_FD_SOCKET,
	GT_FD_PIPE,        /* pipes and FIFOs */
	GT_FD_CHAR,        /* ttys and other character devices */
	GT_FD_FILE,        /* regular files, directories, block devices */
	GT_FD_OTHER,       /* an anonymous inode of no kind below (pidfd, userfaultfd ...) */
	GT_FD_BAD,         /* not open */
	/* issue 15 item 2: the anonymous inodes a readiness wait is told by */
	GT_FD_EVENTFD,
	GT_FD_TIMERFD,
	GT_FD_SIGNALFD,
	GT_FD_EPOLL,
	GT_FD_INOTIFY,
	GT_FD_NKINDS,
};

#define GT_FDKIND_MAX 65536

extern _Atomic uint8_t gt_fdkinds[GT_FDKIND_MAX];

enum gt_fdkind gt_fdkind_probe(int fd);

/* gt_fdkind returns fd's kind, from the cache when it can. */
static inline enum gt_fdkind gt_fdkind(int fd)
{
	if (fd >= 0 && fd < GT_FDKIND_MAX) {
		uint8_t k = atomic_load_explicit(&gt_fdkinds[fd], memory_order_relaxed);
		if (k != GT_FD_UNKNOWN)
			return (enum gt_fdkind)k;
	}
	return gt_fdkind_probe(fd);
}

/* gt_fdkind_set records fd's kind (GT_FD_UNKNOWN: forget it). */
static inline void gt_fdkind_set(int fd, enum gt_fdkind k)
{
	if (fd >= 0 && fd < GT_FDKIND_MAX)
		atomic_store_explicit(&gt_fdkinds[fd], (uint8_t)k, memory_order_relaxed);
}

#endif
