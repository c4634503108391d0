/* real_table.h — the one list of the real functions behind the library's
 * exported ones: each named once, here. From these lists come the
 * pointers (struct gt_real in core/real.h, struct gt_alloc in
 * core/realalloc.h) and their resolution (core/real.c, core/realalloc.c);
 * the wrapper in interpose/ calls GT_REAL(field) or GT_ALLOC(field).
 *
 * Rows (params are named: a generated fallback forwards nothing, but it is
 * a definition, and C11 wants names there):
 *
 *   NEED(field, symbol, version, ret, params)
 *       required: resolution aborts with a message without it (a wrapper
 *       that cannot call through has no honest way to go on).
 *   WANT(field, symbol, version, ret, params, missing)
 *       optional (newer than the oldest libc or allocator supported): when
 *       the symbol is absent the pointer is set to a generated fallback
 *       whose body is `missing` (ENOSYS for a function the libc does not
 *       have; plain free for free_sized). So no pointer is NULL once
 *       resolved: a missing symbol costs nothing per call, and no wrapper
 *       checks for one.
 *
 * version: the symbol version asked for first (dlvsym), else the default
 * one (dlsym); NULL: the default.
 *
 * Adding an interposed call: a row here, then the exported wrapper in
 * interpose/ calling GT_REAL(field). */
#ifndef GT_REAL_TABLE_H
#define GT_REAL_TABLE_H

/* The fallback body of a pthread-style function that is not there. */
#define GT_MISSING_ENOSYS { return ENOSYS; }

/* The real libc functions (struct gt_real). */
#define GT_REAL_TABLE(NEED, WANT)                                                                                  \
	NEED(pthread_create, "pthread_create", NULL, int,                                                          \
	     (pthread_t *th, const pthread_attr_t *attr, void *(*start)(void *), void *arg))                      \
	NEED(pthread_join, "pthread_join", NULL, int, (pthread_t th, void **res))                                 \
	NEED(pthread_tryjoin_np, "pthread_tryjoin_np", NULL, int, (pthread_t th, void **res))                     \
	NEED(pthread_timedjoin_np, "pthread_timedjoin_np", NULL, int,                                              \
	     (pthread_t th, void **res, const struct timespec *at))                                               \
	WANT(pthread_clockjoin_np, "pthread_clockjoin_np", NULL, int,                                              \
	     (pthread_t th, void **res, clockid_t clk, const struct timespec *at), GT_MISSING_ENOSYS)             \
	NEED(pthread_setname_np, "pthread_setname_np", NULL, int, (pthread_t th, const char *name))               \
                                                                                                                   \
	NEED(mutex_lock, "pthread_mutex_lock", NULL, int, (pthread_mutex_t *m))                                    \
	NEED(mutex_trylock, "pthread_mutex_trylock", NULL, int, (pthread_mutex_t *m))                              \
	NEED(mutex_timedlock, "pthread_mutex_timedlock", NULL, int, (pthread_mutex_t *m, const struct timespec *at)) \
	WANT(mutex_clocklock, "pthread_mutex_clocklock", NULL, int,                                                \
	     (pthread_mutex_t *m, clockid_t clk, const struct timespec *at), GT_MISSING_ENOSYS)                   \
	NEED(mutex_unlock, "pthread_mutex_unlock", NULL, int, (pthread_mutex_t *m))                                \
                                                                                                                   \
	NEED(rwlock_rdlock, "pthread_rwlock_rdlock", NULL, int, (pthread_rwlock_t *l))                             \
	NEED(rwlock_tryrdlock, "pthread_rwlock_tryrdlock", NULL, int, (pthread_rwlock_t *l))                       \
	NEED(rwlock_timedrdlock, "pthread_rwlock_timedrdlock", NULL, int,                                          \
	     (pthread_rwlock_t *l, const struct timespec *at))                                                    \
	WANT(rwlock_clockrdlock, "pthread_rwlock_clockrdlock", NULL, int,                                          \
	     (pthread_rwlock_t *l, clockid_t clk, const struct timespec *at), GT_MISSING_ENOSYS)                  \
	NEED(rwlock_wrlock, "pthread_rwlock_wrlock", NULL, int, (pthread_rwlock_t *l))                             \
	NEED(rwlock_trywrlock, "pthread_rwlock_trywrlock", NULL, int, (pthread_rwlock_t *l))                       \
	NEED(rwlock_timedwrlock, "pthread_rwlock_timedwrlock", NULL, int,                                          \
	     (pthread_rwlock_t *l, const struct timespec *at))                                                    \
	WANT(rwlock_clockwrlock, "pthread_rwlock_clockwrlock", NULL, int,                                          \
	     (pthread_rwlock_t *l, clockid_t clk, const struct timespec *at), GT_MISSING_ENOSYS)                  \
	NEED(rwlock_unlock, "pthread_rwlock_unlock", NULL, int, (pthread_rwlock_t *l))                             \
                                                                                                                   \
	NEED(spin_lock, "pthread_spin_lock", NULL, int, (pthread_spinlock_t *l))                                   \
	NEED(spin_trylock, "pthread_spin_trylock", NULL, int, (pthread_spinlock_t *l))                             \
	NEED(spin_unlock, "pthread_spin_unlock", NULL, int, (pthread_spinlock_t *l))                               \
                                                                                                                   \
	/* The condvar ABI of glibc 2.3.2 (the default version); the old                                       \
	 * GLIBC_2.2.5 layout is not supported. */                                                                \
	NEED(cond_wait, "pthread_cond_wait", "GLIBC_2.3.2", int, (pthread_cond_t *c, pthread_mutex_t *m))         \
	NEED(cond_timedwait, "pthread_cond_timedwait", "GLIBC_2.3.2", int,                                         \
	     (pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at))                                  \
	WANT(cond_clockwait, "pthread_cond_clockwait", NULL, int,                                                  \
	     (pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk, const struct timespec *at), GT_MISSING_ENOSYS) \
	NEED(cond_signal, "pthread_cond_signal", "GLIBC_2.3.2", int, (pthread_cond_t *c))                          \
	NEED(cond_broadcast, "pthread_cond_broadcast", "GLIBC_2.3.2", int, (pthread_cond_t *c))                    \
                                                                                                                   \
	NEED(barrier_wait, "pthread_barrier_wait", NULL, int, (pthread_barrier_t *b))                              \
                                                                                                                   \
	NEED(sem_wait, "sem_wait", NULL, int, (sem_t *s))                                                          \
	NEED(sem_trywait, "sem_trywait", NULL, int, (sem_t *s))                                                    \
	NEED(sem_timedwait, "sem_timedwait", NULL, int, (sem_t *s, const struct timespec *at))                     \
	WANT(sem_clockwait, "sem_clockwait", NULL, int, (sem_t *s, clockid_t clk, const struct timespec *at),      \
	     { errno = ENOSYS; return -1; })                                                                      \
	NEED(sem_post, "sem_post", NULL, int, (sem_t *s))                                                          \
                                                                                                                   \
	NEED(nanosleep, "nanosleep", NULL, int, (const struct timespec *req, struct timespec *rem))                \
	NEED(clock_nanosleep, "clock_nanosleep", NULL, int,                                                        \
	     (clockid_t clk, int flags, const struct timespec *req, struct timespec *rem))                        \
	NEED(usleep, "usleep", NULL, int, (useconds_t us))                                                         \
	NEED(sleep, "sleep", NULL, unsigned, (unsigned s))                                                         \
	NEED(sched_yield, "sched_yield", NULL, int, (void))                                                        \
                                                                                                                   \
	/* I/O and other calls that may wait in the kernel. */                                                    \
	NEED(read, "read", NULL, ssize_t, (int fd, void *buf, size_t n))                                           \
	NEED(readv, "readv", NULL, ssize_t, (int fd, const struct iovec *iov, int n))                              \
	NEED(pread, "pread", NULL, ssize_t, (int fd, void *buf, size_t n, off_t off))                              \
	NEED(preadv, "preadv", NULL, ssize_t, (int fd, const struct iovec *iov, int n, off_t off))                 \
	NEED(write, "write", NULL, ssize_t, (int fd, const void *buf, size_t n))                                   \
	NEED(writev, "writev", NULL, ssize_t, (int fd, const struct iovec *iov, int n))                            \
	NEED(pwrite, "pwrite", NULL, ssize_t, (int fd, const void *buf, size_t n, off_t off))                      \
	NEED(pwritev, "pwritev", NULL, ssize_t, (int fd, const struct iovec *iov, int n, off_t off))               \
	NEED(recv, "recv", NULL, ssize_t, (int fd, void *buf, size_t n, int flags))                                \
	NEED(recvfrom, "recvfrom", NULL, ssize_t,                                                                  \
	     (int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *len))                     \
	NEED(recvmsg, "recvmsg", NULL, ssize_t, (int fd, struct msghdr *msg, int flags))                           \
	NEED(recvmmsg, "recvmmsg", NULL, int,                                                                      \
	     (int fd, struct mmsghdr *v, unsigned n, int flags, struct timespec *timeout))                        \
	NEED(send, "send", NULL, ssize_t, (int fd, const void *buf, size_t n, int flags))                          \
	NEED(sendto, "sendto", NULL, ssize_t,                                                                      \
	     (int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t len))            \
	NEED(sendmsg, "sendmsg", NULL, ssize_t, (int fd, const struct msghdr *msg, int flags))                     \
	NEED(sendmmsg, "sendmmsg", NULL, int, (int fd, struct mmsghdr *v, unsigned n, int flags))                  \
	NEED(accept, "accept", NULL, int, (int fd, struct sockaddr *addr, socklen_t *len))                         \
	NEED(accept4, "accept4", NULL, int, (int fd, struct sockaddr *addr, socklen_t *len, int flags))            \
	NEED(connect, "connect", NULL, int, (int fd, const struct sockaddr *addr, socklen_t len))                  \
	NEED(poll, "poll", NULL, int, (struct pollfd *fds, nfds_t n, int timeout))                                 \
	NEED(ppoll, "ppoll", NULL, int,                                                                            \
	     (struct pollfd *fds, nfds_t n, const struct timespec *timeout, const sigset_t *mask))                \
	NEED(select, "select", NULL, int, (int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout))       \
	NEED(pselect, "pselect", NULL, int,                                                                        \
	     (int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *timeout, const sigset_t *mask))      \
	NEED(epoll_wait, "epoll_wait", NULL, int, (int fd, struct epoll_event *ev, int n, int timeout))            \
	NEED(epoll_pwait, "epoll_pwait", NULL, int,                                                                \
	     (int fd, struct epoll_event *ev, int n, int timeout, const sigset_t *mask))                          \
	NEED(open, "open", NULL, int, (const char *path, int flags, ...))                                          \
	NEED(openat, "openat", NULL, int, (int dir, const char *path, int flags, ...))                             \
	NEED(creat, "creat", NULL, int, (const char *path, mode_t mode))                                           \
	NEED(fsync, "fsync", NULL, int, (int fd))                                                                  \
	NEED(fdatasync, "fdatasync", NULL, int, (int fd))                                                          \
	NEED(flock, "flock", NULL, int, (int fd, int op))                                                          \
	NEED(fcntl, "fcntl", NULL, int, (int fd, int cmd, ...))                                                    \
	NEED(sendfile, "sendfile", NULL, ssize_t, (int out, int in, off_t *off, size_t n))                         \
	NEED(splice, "splice", NULL, ssize_t,                                                                      \
	     (int in, off_t *in_off, int out, off_t *out_off, size_t n, unsigned flags))                          \
	NEED(waitpid, "waitpid", NULL, pid_t, (pid_t pid, int *status, int options))                               \
	NEED(wait, "wait", NULL, pid_t, (int *status))                                                             \
	NEED(wait4, "wait4", NULL, pid_t, (pid_t pid, int *status, int options, struct rusage *usage))             \
	NEED(waitid, "waitid", NULL, int, (idtype_t type, id_t id, siginfo_t *info, int options))                  \
	NEED(system, "system", NULL, int, (const char *command))                                                   \
	NEED(pclose, "pclose", NULL, int, (FILE *f))                                                               \
	NEED(close, "close", NULL, int, (int fd))                                                                  \
	NEED(dup, "dup", NULL, int, (int fd))                                                                      \
	NEED(dup2, "dup2", NULL, int, (int fd, int to))                                                            \
	NEED(dup3, "dup3", NULL, int, (int fd, int to, int flags))                                                 \
	NEED(socket, "socket", NULL, int, (int domain, int type, int protocol))                                    \
	NEED(socketpair, "socketpair", NULL, int, (int domain, int type, int protocol, int sv[2]))                 \
	NEED(pipe, "pipe", NULL, int, (int fds[2]))                                                                \
	NEED(pipe2, "pipe2", NULL, int, (int fds[2], int flags))                                                   \
	NEED(sbrk, "sbrk", NULL, void *, (intptr_t incr))                                                          \
	NEED(brk, "brk", NULL, int, (void *addr))                                                                  \
	NEED(fopen, "fopen", NULL, FILE *, (const char *path, const char *mode))                                   \
	NEED(fdopen, "fdopen", NULL, FILE *, (int fd, const char *mode))                                           \
	NEED(fclose, "fclose", NULL, int, (FILE *f))                                                               \
	NEED(sigaction, "sigaction", NULL, int, (int sig, const struct sigaction *act, struct sigaction *old))     \
	NEED(signal, "signal", NULL, sighandler_t, (int sig, sighandler_t handler))                                \
	/* sigaltstack may be called from a handler and dlclose with the                                          \
	 * loader's state in flux: both found by the constructor, not when called. */                             \
	NEED(sigaltstack, "sigaltstack", NULL, int, (const stack_t *ss, stack_t *old))                             \
	NEED(dlclose, "dlclose", NULL, int, (void *handle))                                                        \
	NEED(libc_start_main, "__libc_start_main", NULL, int,                                                      \
	     (int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void), void (*fini)(void),  \
	      void (*rtld_fini)(void), void *stack_end))                                                          \
                                                                                                                   \
	/* Endings and exec (interpose/exec.c). Resolved here, never when                                      \
	 * called: a child made by a raw clone may have inherited the loader's                                    \
	 * lock held by another thread, and dlsym would wait on it forever. */                                    \
	NEED(_exit, "_exit", NULL, void, (int status))                                                             \
	NEED(_Exit, "_Exit", NULL, void, (int status))                                                             \
	NEED(quick_exit, "quick_exit", NULL, void, (int status))                                                   \
	NEED(execve, "execve", NULL, int, (const char *path, char *const argv[], char *const envp[]))              \
	NEED(execvpe, "execvpe", NULL, int, (const char *file, char *const argv[], char *const envp[]))            \
	NEED(fexecve, "fexecve", NULL, int, (int fd, char *const argv[], char *const envp[]))                             \
                                                                                                                   \
	/* issue 15 item 4: prctl (PR_SET_NAME names the calling thread). */                                              \
	NEED(prctl, "prctl", NULL, int, (int option, ...))                                                                \
                                                                                                                   \
	/* issue 15 item 9: signal waits */                                                                               \
	NEED(pause, "pause", NULL, int, (void))                                                                           \
	NEED(sigsuspend, "sigsuspend", NULL, int, (const sigset_t *mask))                                                 \
	NEED(sigwait, "sigwait", NULL, int, (const sigset_t *set, int *sig))                                              \
	NEED(sigwaitinfo, "sigwaitinfo", NULL, int, (const sigset_t *set, siginfo_t *info))                               \
	NEED(sigtimedwait, "sigtimedwait", NULL, int,                                                                     \
	     (const sigset_t *set, siginfo_t *info, const struct timespec *timeout))                                      \
	/* issue 17: the CPU sampler's signal stays out of the program's masks */                                      \
	NEED(sigprocmask, "sigprocmask", NULL, int, (int how, const sigset_t *set, sigset_t *old))                        \
	NEED(pthread_sigmask, "pthread_sigmask", NULL, int, (int how, const sigset_t *set, sigset_t *old))                \
                                                                                                                          \
	/* Item 10 (issue 15): the longjmp family, to time a wait left by a jump. */                                     \
	NEED(longjmp, "longjmp", NULL, void, (struct __jmp_buf_tag *env, int val))                                        \
	NEED(_longjmp, "_longjmp", NULL, void, (struct __jmp_buf_tag *env, int val))                                      \
	NEED(siglongjmp, "siglongjmp", NULL, void, (struct __jmp_buf_tag *env, int val))                                  \
	NEED(longjmp_chk, "__longjmp_chk", NULL, void, (struct __jmp_buf_tag *env, int val))                                  \
                                                                                                                   \
	/* issue 15 item 2: descriptors a readiness wait is told by, the epoll set */                                     \
	NEED(epoll_create, "epoll_create", NULL, int, (int size))                                                         \
	NEED(epoll_create1, "epoll_create1", NULL, int, (int flags))                                                      \
	NEED(epoll_ctl, "epoll_ctl", NULL, int, (int epfd, int op, int fd, struct epoll_event *ev))                       \
	WANT(epoll_pwait2, "epoll_pwait2", NULL, int,                                                                     \
	     (int epfd, struct epoll_event *ev, int n, const struct timespec *timeout, const sigset_t *mask),            \
	     { errno = ENOSYS; return -1; })                                                                              \
	NEED(eventfd, "eventfd", NULL, int, (unsigned int initval, int flags))                                            \
	NEED(timerfd_create, "timerfd_create", NULL, int, (int clockid, int flags))                                       \
	NEED(signalfd, "signalfd", NULL, int, (int fd, const sigset_t *mask, int flags))                                  \
	NEED(inotify_init, "inotify_init", NULL, int, (void))                                                             \
	NEED(inotify_init1, "inotify_init1", NULL, int, (int flags))                                                          \
                                                                                                                   \
	/* issue 15 item 1: raw futex waits (syscall(SYS_futex, ...)) */                                                 \
	NEED(syscall, "syscall", NULL, long, (long number, ...))                                             \
                                                                                                                   \
	/* issue 15 item 3: stdio calls that may reach the kernel (interpose/stdio.c) */                                  \
	NEED(io_fwrite, "fwrite", NULL, size_t, (const void *p, size_t size, size_t n, FILE *f))                          \
	NEED(io_fwrite_unlocked, "fwrite_unlocked", NULL, size_t, (const void *p, size_t size, size_t n, FILE *f))        \
	NEED(io_fputs, "fputs", NULL, int, (const char *s, FILE *f))                                                      \
	NEED(io_fputs_unlocked, "fputs_unlocked", NULL, int, (const char *s, FILE *f))                                    \
	NEED(io_puts, "puts", NULL, int, (const char *s))                                                                 \
	NEED(io_fputc, "fputc", NULL, int, (int c, FILE *f))                                                              \
	NEED(io_fputc_unlocked, "fputc_unlocked", NULL, int, (int c, FILE *f))                                            \
	NEED(io_putc, "putc", NULL, int, (int c, FILE *f))                                                                \
	NEED(io_putc_unlocked, "putc_unlocked", NULL, int, (int c, FILE *f))                                              \
	NEED(io_putchar, "putchar", NULL, int, (int c))                                                                   \
	NEED(io_putchar_unlocked, "putchar_unlocked", NULL, int, (int c))                                                 \
	NEED(io_overflow, "__overflow", NULL, int, (FILE *f, int c))                                                      \
	NEED(io_fflush, "fflush", NULL, int, (FILE *f))                                                                   \
	NEED(io_fflush_unlocked, "fflush_unlocked", NULL, int, (FILE *f))                                                 \
	NEED(io_vfprintf, "vfprintf", NULL, int, (FILE *f, const char *fmt, va_list ap))                                  \
	NEED(io_vfprintf_chk, "__vfprintf_chk", NULL, int, (FILE *f, int flag, const char *fmt, va_list ap))              \
	NEED(io_fread, "fread", NULL, size_t, (void *p, size_t size, size_t n, FILE *f))                                  \
	NEED(io_fread_unlocked, "fread_unlocked", NULL, size_t, (void *p, size_t size, size_t n, FILE *f))                \
	NEED(io_fread_chk, "__fread_chk", NULL, size_t, (void *p, size_t len, size_t size, size_t n, FILE *f))            \
	NEED(io_fread_unlocked_chk, "__fread_unlocked_chk", NULL, size_t, (void *p, size_t len, size_t size, size_t n, FILE *f))\
	NEED(io_fgets, "fgets", NULL, char *, (char *s, int n, FILE *f))                                                  \
	NEED(io_fgets_unlocked, "fgets_unlocked", NULL, char *, (char *s, int n, FILE *f))                                \
	NEED(io_fgets_chk, "__fgets_chk", NULL, char *, (char *s, size_t len, int n, FILE *f))                            \
	NEED(io_fgets_unlocked_chk, "__fgets_unlocked_chk", NULL, char *, (char *s, size_t len, int n, FILE *f))          \
	NEED(io_getdelim, "getdelim", NULL, ssize_t, (char **line, size_t *n, int delim, FILE *f))                        \
	NEED(io_getline, "getline", NULL, ssize_t, (char **line, size_t *n, FILE *f))                                     \
	NEED(io_fgetc, "fgetc", NULL, int, (FILE *f))                                                                     \
	NEED(io_fgetc_unlocked, "fgetc_unlocked", NULL, int, (FILE *f))                                                   \
	NEED(io_getc, "getc", NULL, int, (FILE *f))                                                                       \
	NEED(io_getc_unlocked, "getc_unlocked", NULL, int, (FILE *f))                                                     \
	NEED(io_getchar, "getchar", NULL, int, (void))                                                                    \
	NEED(io_getchar_unlocked, "getchar_unlocked", NULL, int, (void))                                                  \
	NEED(io_uflow, "__uflow", NULL, int, (FILE *f))                                                                   \
	NEED(io_underflow, "__underflow", NULL, int, (FILE *f))

/* The fallback body of an allocation function the allocator does not have. */
#define GT_MISSING_NOMEM { errno = ENOMEM; return NULL; }

/* The real allocator (struct gt_alloc): the next malloc after this library
 * (glibc's, or one the program loads, such as jemalloc). Resolved with the
 * bootstrap of core/realalloc.c: dlsym may itself allocate. Only the four
 * that every allocator has are required; free_sized and free_aligned_sized
 * are glibc 2.39's; malloc_usable_size is an allocator's extension
 * (without it a recorded free has no size). */
#define GT_ALLOC_TABLE(NEED, WANT)                                                                                 \
	NEED(malloc, "malloc", NULL, void *, (size_t n))                                                           \
	NEED(calloc, "calloc", NULL, void *, (size_t n, size_t size))                                              \
	NEED(realloc, "realloc", NULL, void *, (void *p, size_t n))                                                \
	NEED(free, "free", NULL, void, (void *p))                                                                  \
	WANT(posix_memalign, "posix_memalign", NULL, int, (void **out, size_t align, size_t n), { return ENOMEM; }) \
	WANT(aligned_alloc, "aligned_alloc", NULL, void *, (size_t align, size_t n), GT_MISSING_NOMEM)             \
	WANT(memalign, "memalign", NULL, void *, (size_t align, size_t n), GT_MISSING_NOMEM)                       \
	WANT(valloc, "valloc", NULL, void *, (size_t n), GT_MISSING_NOMEM)                                         \
	WANT(pvalloc, "pvalloc", NULL, void *, (size_t n), GT_MISSING_NOMEM)                                       \
	WANT(free_sized, "free_sized", NULL, void, (void *p, size_t n), { GT_ALLOC(free)(p); })                    \
	WANT(free_aligned_sized, "free_aligned_sized", NULL, void, (void *p, size_t align, size_t n),              \
	     { GT_ALLOC(free)(p); })                                                                               \
	WANT(usable, "malloc_usable_size", NULL, size_t, (void *p), { return 0; })

#endif
