/* real.h — the real libc functions behind every interposed one.
 *
 * Resolved in one place (gt_real_resolve), once, from the library's
 * constructor or from the first wrapper called before it (another library's
 * constructor may run first). A missing required symbol aborts with a
 * message: a wrapper that cannot call through has no honest way to go on. */
#ifndef GT_REAL_H
#define GT_REAL_H

#include <pthread.h>
#include <semaphore.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

struct gt_real {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*pthread_join)(pthread_t, void **);
	int (*pthread_tryjoin_np)(pthread_t, void **);
	int (*pthread_timedjoin_np)(pthread_t, void **, const struct timespec *);
	int (*pthread_clockjoin_np)(pthread_t, void **, clockid_t, const struct timespec *);
	int (*pthread_setname_np)(pthread_t, const char *);

	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);

	int (*rwlock_rdlock)(pthread_rwlock_t *);
	int (*rwlock_tryrdlock)(pthread_rwlock_t *);
	int (*rwlock_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rwlock_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rwlock_wrlock)(pthread_rwlock_t *);
	int (*rwlock_trywrlock)(pthread_rwlock_t *);
	int (*rwlock_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rwlock_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rwlock_unlock)(pthread_rwlock_t *);

	int (*spin_lock)(pthread_spinlock_t *);
	int (*spin_trylock)(pthread_spinlock_t *);
	int (*spin_unlock)(pthread_spinlock_t *);

	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);

	int (*barrier_wait)(pthread_barrier_t *);

	int (*sem_wait)(sem_t *);
	int (*sem_trywait)(sem_t *);
	int (*sem_timedwait)(sem_t *, const struct timespec *);
	int (*sem_clockwait)(sem_t *, clockid_t, const struct timespec *);
	int (*sem_post)(sem_t *);

	int (*nanosleep)(const struct timespec *, struct timespec *);
	int (*clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);
	int (*usleep)(useconds_t);
	unsigned (*sleep)(unsigned);
	int (*sched_yield)(void);

	/* I/O and other calls that may wait in the kernel. */
	ssize_t (*read)(int, void *, size_t);
	ssize_t (*readv)(int, const struct iovec *, int);
	ssize_t (*pread)(int, void *, size_t, off_t);
	ssize_t (*preadv)(int, const struct iovec *, int, off_t);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*writev)(int, const struct iovec *, int);
	ssize_t (*pwrite)(int, const void *, size_t, off_t);
	ssize_t (*pwritev)(int, const struct iovec *, int, off_t);
	ssize_t (*recv)(int, void *, size_t, int);
	ssize_t (*recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
	ssize_t (*recvmsg)(int, struct msghdr *, int);
	int (*recvmmsg)(int, struct mmsghdr *, unsigned, int, struct timespec *);
	ssize_t (*send)(int, const void *, size_t, int);
	ssize_t (*sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	ssize_t (*sendmsg)(int, const struct msghdr *, int);
	int (*sendmmsg)(int, struct mmsghdr *, unsigned, int);
	int (*accept)(int, struct sockaddr *, socklen_t *);
	int (*accept4)(int, struct sockaddr *, socklen_t *, int);
	int (*connect)(int, const struct sockaddr *, socklen_t);
	int (*poll)(struct pollfd *, nfds_t, int);
	int (*ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
	int (*select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
	int (*pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *);
	int (*epoll_wait)(int, struct epoll_event *, int, int);
	int (*epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
	int (*open)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	int (*creat)(const char *, mode_t);
	int (*fsync)(int);
	int (*fdatasync)(int);
	int (*flock)(int, int);
	int (*fcntl)(int, int, ...);
	ssize_t (*sendfile)(int, int, off_t *, size_t);
	ssize_t (*splice)(int, off_t *, int, off_t *, size_t, unsigned);
	pid_t (*waitpid)(pid_t, int *, int);
	pid_t (*wait)(int *);
	pid_t (*wait4)(pid_t, int *, int, struct rusage *);
	int (*waitid)(idtype_t, id_t, siginfo_t *, int);
	int (*system)(const char *);
	int (*pclose)(FILE *);
	int (*close)(int);
	int (*dup)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	int (*socket)(int, int, int);
	int (*socketpair)(int, int, int, int[2]);
	int (*pipe)(int[2]);
	int (*pipe2)(int[2], int);
	FILE *(*fopen)(const char *, const char *);
	FILE *(*fdopen)(int, const char *);
	int (*fclose)(FILE *);
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	sighandler_t (*signal)(int, sighandler_t);

	/* Endings and exec (interpose/exec.c). Resolved here, never when
	 * called: a child made by a raw clone may have inherited the loader's
	 * lock held by another thread, and dlsym would wait on it forever. */
	void (*_exit)(int);
	void (*_Exit)(int);
	void (*quick_exit)(int);
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
};

extern struct gt_real gt_real;

/* gt_real_resolve fills gt_real; idempotent and thread-safe. */
void gt_real_resolve(void);

/* GT_REAL(f): the real function f, resolving first if needed. */
#define GT_REAL(f) (__builtin_expect(gt_real.f != NULL, 1) ? gt_real.f : (gt_real_resolve(), gt_real.f))

#endif
