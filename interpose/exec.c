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
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../core/advance.h"
#include "../core/sys.h"
#include "../core/flusher.h"
#include "../core/inline.h"
#include "../core/sink.h"
#include "interpose.h"

extern char **environ;

#define CLAIMED_ENV "GOTRACE_CLAIMED"

/* final_write: the image ends (_exit and the like): write the final
 * generation. */
static void final_write(void)
{
	if (!atomic_load(&gt.on) || getpid() != gt.pid)
		return;
	atomic_store(&gt.on, 0);
	gt_flusher_final(10000);
}

/* before_exec: the image may end in exec. An image that wrote a generation
 * already writes the one in progress (the new image writes a file of its
 * own); an image that wrote nothing yet leaves no file, and if it is the
 * first image of the run it hands its name to the new one (*handover: drop
 * the claim from the new image's environment). A vfork child shares our
 * memory but is not us: it does nothing. */
static void before_exec(int *handover)
{
	*handover = 0;
	if (!atomic_load(&gt.on) || getpid() != gt.pid)
		return;
	if (!gt_sink_created() && !gt.flight_bytes) {
		*handover = !gt_sink_later_image();
		return;
	}
	/* Other threads run until exec ends them: the flusher writes the end
	 * with its own descriptor table (an exec that fails has ended the
	 * trace of such an image). A single-threaded image writes the
	 * generation in progress itself and goes on tracing if exec fails; the
	 * flight recorder's window is written whole. */
	if (gt_flusher_running()) {
		atomic_store(&gt.on, 0);
		gt_flusher_final(10000);
		return;
	}
	gt_inline_switch(&gt_self, 0, gt.flight_bytes ? GT_ADV_FINAL : GT_ADV_NEXT, 10000);
}

/* without_claim returns envp without GOTRACE_CLAIMED, in memory of its own
 * (mmap: fine in a vfork child), or envp itself when it has none. */
static char *const *without_claim(char *const envp[], size_t *mapped)
{
	*mapped = 0;
	if (!envp)
		return envp;
	size_t n = 0, hit = 0, len = sizeof CLAIMED_ENV - 1;
	for (; envp[n]; n++)
		hit += strncmp(envp[n], CLAIMED_ENV, len) == 0 && envp[n][len] == '=';
	if (!hit)
		return envp;
	size_t bytes = (n + 1) * sizeof(char *);
	char **v = gt_sys_mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED)
		return envp;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!(strncmp(envp[i], CLAIMED_ENV, len) == 0 && envp[i][len] == '='))
			v[k++] = envp[i];
	v[k] = NULL;
	*mapped = bytes;
	return v;
}

GT_EXPORT void _exit(int status)
{
	final_write();
	GT_REAL(_exit)(status);
	__builtin_unreachable();
}

GT_EXPORT void _Exit(int status)
{
	final_write();
	GT_REAL(_Exit)(status);
	__builtin_unreachable();
}

/* quick_exit runs its own handlers, then ends like _exit (inside libc). */
GT_EXPORT void quick_exit(int status)
{
	final_write();
	GT_REAL(quick_exit)(status);
	__builtin_unreachable();
}

/* EXEC_WITH(call, envp): the exec call with envp stripped of the claim when
 * the name is handed over; the copy is unmapped again if exec fails. */
#define EXEC_WITH(envp, call_with)                                          \
	do {                                                                \
		int handover_;                                              \
		before_exec(&handover_);                                    \
		size_t mapped_ = 0;                                         \
		char *const *env_ = handover_ ? without_claim((envp), &mapped_) : (envp); \
		int r_ = call_with(env_);                                   \
		int e_ = errno;                                             \
		if (mapped_)                                                \
			gt_sys_munmap((void *)env_, mapped_);                      \
		errno = e_;                                                 \
		return r_;                                                  \
	} while (0)

GT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
#define CALL(e) GT_REAL(execve)(path, argv, e)
	EXEC_WITH(envp, CALL);
#undef CALL
}

GT_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

GT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
#define CALL(e) GT_REAL(execvpe)(file, argv, e)
	EXEC_WITH(envp, CALL);
#undef CALL
}

GT_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

GT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
#define CALL(e) GT_REAL(fexecve)(fd, argv, e)
	EXEC_WITH(envp, CALL);
#undef CALL
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
