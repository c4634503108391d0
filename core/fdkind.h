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

/* A pipe's or FIFO's inode number (its low 32 bits), per fd, 0 when not
 * known yet: both ends of one pipe share it, so a writer and a reader of
 * the same pipe compute the same wait key (gt_pipe_key). Issue 16 item 1. */
extern _Atomic uint32_t gt_fdinos[GT_FDKIND_MAX];

/* gt_fdkind_set records fd's kind (GT_FD_UNKNOWN: forget it) and forgets
 * its inode. */
static inline void gt_fdkind_set(int fd, enum gt_fdkind k)
{
	if (fd >= 0 && fd < GT_FDKIND_MAX) {
		atomic_store_explicit(&gt_fdkinds[fd], (uint8_t)k, memory_order_relaxed);
		atomic_store_explicit(&gt_fdinos[fd], 0, memory_order_relaxed);
	}
}

/* The wait key of a pipe of inode ino: odd, so never the address of a lock,
 * a futex word or a thread handle (core/wake.h). */
#define GT_PIPE_KEY(ino) (((uintptr_t)(ino) << 1) | 1)

uintptr_t gt_pipe_key_probe(int fd);

/* Set for good once a wait on a pipe has counted itself a waiter on its
 * key: until then a write to a pipe has nobody to name itself to and skips
 * the key (and the fstat of a descriptor's first key) with one load. */
extern _Atomic int gt_pipe_waited;

/* gt_pipe_key: the wait key of pipe fd (known to be a pipe or FIFO), from
 * the cache when it can (the first use of an fd makes one fstat); 0 if fd
 * is not one after all. */
static inline uintptr_t gt_pipe_key(int fd)
{
	if (fd >= 0 && fd < GT_FDKIND_MAX) {
		uint32_t ino = atomic_load_explicit(&gt_fdinos[fd], memory_order_relaxed);
		if (ino)
			return GT_PIPE_KEY(ino);
	}
	return gt_pipe_key_probe(fd);
}

#endif
