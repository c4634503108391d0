/* exec.c — endings that skip the library's destructor: _exit, _Exit,
 * quick_exit and exec.
 *
 * _exit, _Exit and quick_exit write the final generation first. exec writes the
 * generation in progress (the new image writes its own file, see
 * docs/design.md); if exec fails, tracing goes on. Neither does anything in
 * a vfork child, which shares the parent's memory (and the parent's trace
 * state): only the process that opened the trace writes it. */
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "../core/advance.h"
#include "interpose.h"

extern char **environ;

static void flush_before_image_ends(int final)
{
	struct gt_thread *t = &gt_self;
	if (!atomic_load(&gt.on) || getpid() != gt.pid)
		return;
	t->inside++;
	if (final)
		atomic_store(&gt.on, 0);
	gt_advance(final);
	t->inside--;
}

GT_EXPORT void _exit(int status)
{
	flush_before_image_ends(1);
	GT_REAL(_exit)(status);
	__builtin_unreachable();
}

GT_EXPORT void _Exit(int status)
{
	flush_before_image_ends(1);
	GT_REAL(_Exit)(status);
	__builtin_unreachable();
}

/* quick_exit runs its own handlers, then ends like _exit (inside libc). */
GT_EXPORT void quick_exit(int status)
{
	flush_before_image_ends(1);
	GT_REAL(quick_exit)(status);
	__builtin_unreachable();
}

GT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	flush_before_image_ends(0);
	return GT_REAL(execve)(path, argv, envp);
}

GT_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

GT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	flush_before_image_ends(0);
	return GT_REAL(execvpe)(file, argv, envp);
}

GT_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

GT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	flush_before_image_ends(0);
	return GT_REAL(fexecve)(fd, argv, envp);
}

/* The execl family passes its arguments inline; libc's own versions call
 * the internal execve, past our wrapper, so gather them and call ours. */
#define EXECL_MAX_ARGS 4096

#define GATHER_ARGS(argv, arg0, ap)                                     \
	do {                                                            \
		argv[0] = (char *)arg0;                                 \
		size_t i_ = 1;                                          \
		while (i_ < EXECL_MAX_ARGS && (argv[i_] = va_arg(ap, char *)) != NULL) \
			i_++;                                           \
		argv[EXECL_MAX_ARGS] = NULL;                            \
	} while (0)

GT_EXPORT int execl(const char *path, const char *arg0, ...)
{
	char *argv[EXECL_MAX_ARGS + 1];
	va_list ap;
	va_start(ap, arg0);
	GATHER_ARGS(argv, arg0, ap);
	va_end(ap);
	return execve(path, argv, environ);
}

GT_EXPORT int execlp(const char *file, const char *arg0, ...)
{
	char *argv[EXECL_MAX_ARGS + 1];
	va_list ap;
	va_start(ap, arg0);
	GATHER_ARGS(argv, arg0, ap);
	va_end(ap);
	return execvpe(file, argv, environ);
}

GT_EXPORT int execle(const char *path, const char *arg0, ...)
{
	char *argv[EXECL_MAX_ARGS + 1];
	va_list ap;
	va_start(ap, arg0);
	GATHER_ARGS(argv, arg0, ap);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}
