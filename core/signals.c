/* signals.c — the tracer's signal handlers and the policy that chooses
 * them (signals.h).
 *
 * The death handler: the program's view is SIG_DFL for a signal that ends
 * the process, so the process is about to die. It has the final generation
 * written (gt_flusher_final: from any context, or it gives up safely),
 * restores SIG_DFL and lets the signal do exactly what it would have done:
 * a fault re-executes the faulting instruction, anything else is sent
 * again to the same thread and delivered when the handler returns, so the
 * process dies by the same signal with the same core-dump bit. It is
 * async-signal-safe and leaves errno as it found it.
 *
 * The snapshot handler (GOTRACE_FLIGHT_SIGNAL while the program's view is
 * SIG_DFL) counts and pokes the flusher. With a handler of the program's
 * own for that signal, a trampoline asks for the snapshot and then calls
 * the program's handler. The same trampoline stands in front of a
 * program's SA_RESETHAND handler for a signal that ends the process: after
 * the kernel's reset the view is SIG_DFL, and the death handler is put
 * back (core/sigview.c). */
#include "signals.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "cpusample.h"
#include "flusher.h"
#include "real.h"
#include "sys.h"
#include "thread.h"
#include "tracer.h"

/* Long enough for the flusher to symbolize and write a generation, and for
 * a writer stuck in a section to be given up (WRITER_WAIT_NS). */
#define FINAL_WAIT_MS 4000

static int flight_sig; /* the snapshot signal with the flight recorder on, else 0 */
static int cpu_sig;    /* the CPU sampler's signal (core/cpusample.h), else 0 */

/* Per thread: snapshot handlers and program handlers run on it (TLS of
 * the initial-exec model: safe in a handler). Only that thread writes
 * them; a handler that interrupts the thread between a load and a store
 * finishes before the thread goes on, so plain increments suffice. */
static __thread unsigned snapshots_here, handlers_here;

void gt_signals_marks(struct gt_sigmarks *m)
{
	m->snapshots = snapshots_here;
	m->handlers = handlers_here;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

int gt_signals_only_snapshot_since(const struct gt_sigmarks *m)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return snapshots_here != m->snapshots && handlers_here == m->handlers;
}

int gt_signal_ends_process(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGTSTP: case SIGTTIN: case SIGTTOU: case SIGSTOP: case SIGKILL:
		return 0;
	}
	return gt_sigview_managed(sig);
}

/* refaults: the kernel raised sig for the instruction the thread returns
 * to, which raises it again once SIG_DFL is back. An action-optional
 * machine check (BUS_MCEERR_AO) is not about that instruction. */
static int refaults(int sig, const siginfo_t *si)
{
	if (!si || si->si_code <= 0) /* sent by kill, tgkill, sigqueue */
		return 0;
	if (sig == SIGBUS)
		return si->si_code != BUS_MCEERR_AO;
	return sig == SIGSEGV || sig == SIGILL || sig == SIGFPE;
}

static void on_death(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	int own = gt_sigview_own_process(); /* a vfork child writes nothing of ours */
	/* Not raising gt_self.inside first: gt_flusher_final tells from it
	 * whether this thread may write the final generation itself (only a
	 * thread with nothing of the tracer interrupted may). */
	if (own) {
		atomic_store(&gt.dying, 1); /* no malloc in this final (core/gen_stacks.c) */
		gt_flusher_final(FINAL_WAIT_MS);
	}
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	GT_REAL(sigaction)(sig, &dfl, NULL);
	if (own)
		gt_sigview_forget_installed(sig);
	if (!refaults(sig, si)) {
		gt_sys_call(SYS_tgkill, (pid_t)gt_sys_call(SYS_getpid), (pid_t)gt_sys_call(SYS_gettid), sig);
		/* Delivered when the interrupted code's mask is back. */
		if (ucv)
			sigdelset(&((ucontext_t *)ucv)->uc_sigmask, sig);
	}
	errno = saved;
}

static void on_snapshot_signal(int sig)
{
	(void)sig;
	int saved = errno;
	if (gt_sigview_own_process()) {
		snapshots_here++;
		gt_flusher_snapshot();
	}
	errno = saved;
}

/* trampoline: in front of a program's handler when the program's view
 * needs bookkeeping at delivery (SA_RESETHAND), when the signal is the
 * snapshot signal, and in flight mode for every handler (counted, so that
 * a sleep it interrupts is not resumed). */
static void trampoline(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct gt_sigwrap w;
	gt_sigview_wrapped(sig, &w);
	if (w.reset)
		gt_sigview_reset_delivered(sig);
	if (sig == flight_sig && gt_sigview_own_process())
		gt_flusher_snapshot();
	errno = saved;
	if (w.fn == NULL || w.fn == (void *)SIG_DFL || w.fn == (void *)SIG_IGN)
		return; /* changed meanwhile by another thread */
	handlers_here++;
	if (w.siginfo)
		((void (*)(int, siginfo_t *, void *))w.fn)(sig, si, uc);
	else
		((void (*)(int))w.fn)(sig);
}

/* on_sample: the CPU sampler's signal (core/cpusample.h). It also counts
 * as the tracer's own signal for the waits that resume after one
 * (gt_signals_only_snapshot_since): a CPU-time timer fires while its
 * thread runs, but may fire as the thread enters a wait, which then
 * returns EINTR untraced programs would not see. */
static void on_sample(int sig, siginfo_t *si, void *uc)
{
	if (!gt_cpu_is_ours(si)) {
		/* The program sent it (kill, raise, sigqueue, a timer of its
		 * own) while its view is SIG_DFL: it dies of it, as untraced. */
		on_death(sig, si, uc);
		return;
	}
	snapshots_here++;
	gt_cpu_on_signal(sig, si, uc);
}

static int is_ours(void *fn)
{
	return fn == (void *)on_death || fn == (void *)on_snapshot_signal || fn == (void *)trampoline ||
	       fn == (void *)on_sample;
}

/* Set by gt_signals_give_back: the kernel gets the program's own actions. */
static int given_back;

static int policy_action(int sig, const struct sigaction *view, struct sigaction *k, struct gt_sigwrap *w)
{
	*k = *view;
	memset(w, 0, sizeof *w);
	if (given_back)
		return 0;
	if (sig == cpu_sig && gt_cpu_signal() == sig) {
		if (view->sa_handler == SIG_DFL) {
			/* Small handler, on the program's alternate stack when
			 * it has one (a thread near the end of a small stack);
			 * calls it interrupts restart. */
			memset(k, 0, sizeof *k);
			k->sa_sigaction = on_sample;
			k->sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
			sigemptyset(&k->sa_mask);
			return 1;
		}
		/* The program sets its own action for the signal: it is the
		 * program's from now on; sampling stops. */
		gt_cpu_release();
	}
	if (view->sa_handler == SIG_IGN)
		return 0; /* ignored stays ignored, and is inherited across exec */
	if (view->sa_handler == SIG_DFL) {
		if (sig == flight_sig) {
			memset(k, 0, sizeof *k);
			k->sa_handler = on_snapshot_signal;
			k->sa_flags = SA_RESTART;
			sigemptyset(&k->sa_mask);
			return 1;
		}
		/* SIGSYS stays SIG_DFL in the kernel: a program that traps
		 * seccomp violations (Chromium's sandbox) reads its action
		 * with the raw system call before it installs its own, and
		 * complains about any handler it finds. A death by SIGSYS
		 * keeps the generations written before it. */
		if (!gt_signal_ends_process(sig) || sig == SIGSYS)
			return 0;
		memset(k, 0, sizeof *k);
		k->sa_sigaction = on_death;
		/* Every signal blocked: nothing interrupts the final flush. On
		 * the program's alternate stack if it has one (a stack
		 * overflow's SIGSEGV). */
		k->sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
		sigfillset(&k->sa_mask);
		return 1;
	}
	if (!flight_sig && !((view->sa_flags & SA_RESETHAND) && gt_signal_ends_process(sig)))
		return 0; /* the program's handler, exactly */
	w->fn = (void *)view->sa_sigaction;
	w->siginfo = (view->sa_flags & SA_SIGINFO) != 0;
	w->reset = (view->sa_flags & SA_RESETHAND) != 0;
	k->sa_sigaction = trampoline;
	k->sa_flags |= SA_SIGINFO;
	return 1;
}

void gt_signals_install(void)
{
	flight_sig = gt.flight_bytes ? gt.flight_signal : 0;
	cpu_sig = gt_cpu_choose_signal(flight_sig);
	static const struct gt_sigpolicy policy = { policy_action, is_ours };
	gt_sigview_take_over(&policy);
	/* The threads registered before the signal was known (the main
	 * thread) get their timers now. */
	if (gt_cpu_signal()) {
		gt_lock(&gt.reg_lock);
		if (gt_self.registered)
			gt_cpu_thread_start(&gt_self);
		gt_unlock(&gt.reg_lock);
	}
}

void gt_signals_give_back(void)
{
	/* The CPU sampler's signal keeps its small handler: a sample signal
	 * queued before the thread's timer was deleted may still arrive, and
	 * finds no ring (core/cpusample.c). The program's default action for
	 * it would end the process. */
	int keep = gt_signals_cpu();
	given_back = 1;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != keep && gt_sigview_managed(sig))
			gt_sigview_refresh(sig);
}

int gt_signals_cpu(void)
{
	return cpu_sig && gt_cpu_signal() == cpu_sig ? cpu_sig : 0;
}
