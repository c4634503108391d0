/* signals.c — final flush on terminating signals and crashes.
 *
 * The handler does no tracer work itself (the signal may have interrupted
 * malloc or the tracer on this thread): it asks the flusher thread to write
 * the final generation, waits a bounded time, restores the default action
 * and re-raises, so the exit status (death by that signal, core dump) is
 * what it would have been untraced. */
#include "signals.h"

#include <errno.h>
#include <stdatomic.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "flusher.h"
#include "log.h"
#include "thread.h"
#include "tracer.h"

static const int taken[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

/* Long enough for the flusher to symbolize and write a generation, and for
 * a writer stuck in a section to be given up (WRITER_WAIT_NS). */
#define FINAL_WAIT_MS 4000

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	int saved = errno;
	/* Not raising gt_self.inside first: gt_flusher_final tells from it
	 * whether this thread may write the final generation itself. */
	gt_flusher_final(FINAL_WAIT_MS);
	gt_self.inside++;
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	/* A fault re-executes the faulting instruction on return and dies by
	 * it; anything else is sent again and delivered when we return. */
	if (sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE)
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	else if (si && si->si_code <= 0) /* sent by kill(), not a fault */
		syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	gt_self.inside--;
	errno = saved;
}

static _Atomic unsigned snapshot_signals;

unsigned gt_snapshot_signals(void)
{
	return atomic_load_explicit(&snapshot_signals, memory_order_acquire);
}

/* The flight recorder's snapshot signal: the flusher does the work. */
static void on_snapshot_signal(int sig)
{
	(void)sig;
	int saved = errno;
	atomic_fetch_add_explicit(&snapshot_signals, 1, memory_order_release);
	gt_flusher_snapshot();
	errno = saved;
}

/* install_snapshot_signal takes GOTRACE_FLIGHT_SIGNAL, unless the program
 * already handles or ignores that signal (it keeps its own meaning). */
static void install_snapshot_signal(void)
{
	if (!gt.flight_bytes || !gt.flight_signal)
		return;
	struct sigaction old;
	if (sigaction(gt.flight_signal, NULL, &old) != 0)
		return;
	if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) {
		gt_warn("flight recorder: signal %d already has a handler; set GOTRACE_FLIGHT_SIGNAL to another one for snapshots",
			gt.flight_signal);
		return;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_snapshot_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(gt.flight_signal, &sa, NULL);
}

void gt_signals_install(void)
{
	install_snapshot_signal();
	for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
		struct sigaction old;
		if (sigaction(taken[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(taken[i], &sa, NULL);
	}
}
