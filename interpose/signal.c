/* signal.c — every libc call that sets or reads a signal disposition, so
 * that the program sees only its own view (core/sigview.h) while the
 * kernel holds the tracer's death handler where the program has SIG_DFL.
 *
 * signal(), sysv_signal(), sigset(), sigignore() and siginterrupt() call
 * sigaction inside libc, out of our sight: each is done here the way glibc
 * documents it, on top of the virtual sigaction. sighold, sigrelse and
 * sigpause change only the signal mask and pass through. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "../core/cpusample.h"
#include "../core/signals.h"
#include "../core/thread.h"
#include "../core/sigview.h"
#include "interpose.h"

GT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return gt_sigview_sigaction(sig, act, old);
}

/* glibc exports the same function as __sigaction too. */
int gt___sigaction(int sig, const struct sigaction *act, struct sigaction *old) __asm__("__sigaction");
GT_EXPORT int gt___sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return gt_sigview_sigaction(sig, act, old);
}

/* Signals siginterrupt(sig, 1) asked not to restart calls: signal() then
 * installs without SA_RESTART (glibc keeps the same set). Bit sig - 1. */
static _Atomic unsigned long long interrupting;

/* valid_for_signal: what glibc's signal() accepts before calling
 * sigaction (KILL and STOP are refused by sigaction itself). */
static int valid_for_signal(int sig, sighandler_t handler)
{
	if (handler == SIG_ERR || sig < 1 || sig >= NSIG || (sig >= 32 && sig < SIGRTMIN)) {
		errno = EINVAL;
		return 0;
	}
	return 1;
}

/* set_simple installs handler for sig the way the one-argument calls do:
 * sig blocked while it runs (block_self) and flags; returns the old one. */
static sighandler_t set_simple(int sig, sighandler_t handler, int block_self, int flags)
{
	if (!valid_for_signal(sig, handler))
		return SIG_ERR;
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (block_self)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = flags;
	if (gt_sigview_sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* bsd_signal: BSD semantics (glibc's signal): sig blocked while its
 * handler runs, calls restarted unless siginterrupt said otherwise. */
static sighandler_t bsd_signal_impl(int sig, sighandler_t handler)
{
	int interrupt = sig >= 1 && sig <= 64 && ((atomic_load(&interrupting) >> (sig - 1)) & 1);
	return set_simple(sig, handler, 1, interrupt ? 0 : SA_RESTART);
}

GT_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	return bsd_signal_impl(sig, handler);
}

GT_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return bsd_signal_impl(sig, handler);
}

/* ssignal: glibc's other name for signal. */
GT_EXPORT sighandler_t ssignal(int sig, sighandler_t handler)
{
	return bsd_signal_impl(sig, handler);
}

/* sysv_signal: System V semantics: one-shot, not blocked while it runs,
 * calls interrupted (glibc also sets the historical no-op SA_INTERRUPT,
 * which the kernel drops or keeps as it does untraced). */
static sighandler_t sysv_signal_impl(int sig, sighandler_t handler)
{
	return set_simple(sig, handler, 0, SA_RESETHAND | SA_NODEFER | SA_INTERRUPT);
}

GT_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	return sysv_signal_impl(sig, handler);
}

sighandler_t gt___sysv_signal(int sig, sighandler_t handler) __asm__("__sysv_signal");
GT_EXPORT sighandler_t gt___sysv_signal(int sig, sighandler_t handler)
{
	return sysv_signal_impl(sig, handler);
}

/* sigset (System V): SIG_HOLD blocks sig and returns its disposition (or
 * SIG_HOLD if it was blocked already); anything else becomes the
 * disposition (empty mask, no flags) and unblocks sig, returning SIG_HOLD
 * if it was blocked, else the previous disposition. */
GT_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	sigset_t one, was;
	struct sigaction act, old;
	sigemptyset(&one);
	if (sigaddset(&one, sig) < 0)
		return SIG_ERR;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &one, &was) < 0)
			return SIG_ERR;
		if (sigismember(&was, sig))
			return SIG_HOLD;
		if (gt_sigview_sigaction(sig, NULL, &old) < 0)
			return SIG_ERR;
		return old.sa_handler;
	}
	memset(&act, 0, sizeof act);
	act.sa_handler = disp;
	sigemptyset(&act.sa_mask);
	act.sa_flags = 0;
	if (gt_sigview_sigaction(sig, &act, &old) < 0)
		return SIG_ERR;
	if (sigprocmask(SIG_UNBLOCK, &one, &was) < 0)
		return SIG_ERR;
	return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
}

GT_EXPORT int sigignore(int sig)
{
	struct sigaction act;
	memset(&act, 0, sizeof act);
	act.sa_handler = SIG_IGN;
	sigemptyset(&act.sa_mask);
	return gt_sigview_sigaction(sig, &act, NULL);
}

/* siginterrupt: whether sig's handler interrupts calls (no SA_RESTART) or
 * lets them restart, on the current action, remembered for signal(). */
GT_EXPORT int siginterrupt(int sig, int interrupt)
{
	struct sigaction act;
	if (gt_sigview_sigaction(sig, NULL, &act) < 0)
		return -1;
	unsigned long long bit = sig > 0 && sig <= 64 ? 1ull << (sig - 1) : 0;
	if (interrupt) {
		atomic_fetch_or(&interrupting, bit);
		act.sa_flags &= ~SA_RESTART;
	} else {
		atomic_fetch_and(&interrupting, ~bit);
		act.sa_flags |= SA_RESTART;
	}
	return gt_sigview_sigaction(sig, &act, NULL) < 0 ? -1 : 0;
}

/* Signal waits (issue 15 item 9): pause, sigsuspend and the sigwait family
 * wait for a signal as a goroutine waits on signal.Notify's channel: a
 * GoBlock("sync.signal"), written after the fact like the other kernel
 * waits (GT_WAIT_CALL; a call that returns at once records nothing). The
 * tracer's own snapshot signal is not the program's: a wait only it cut
 * short (no handler of the program's ran) waits again, as sleeps do
 * (interpose/sleep.c). sigwait itself retries EINTR inside glibc. */
/* AGAIN_AFTER_SNAPSHOT(call): call (which fails with -1 and errno), made
 * again while only the snapshot signal interrupted it. */
#define AGAIN_AFTER_SNAPSHOT(call)                                                                      \
	({                                                                                              \
		int got_;                                                                               \
		struct gt_sigmarks m_;                                                                  \
		do {                                                                                    \
			gt_signals_marks(&m_);                                                          \
			got_ = (call);                                                                 \
		} while (got_ < 0 && errno == EINTR && gt_signals_only_snapshot_since(&m_));             \
		got_;                                                                                   \
	})

GT_EXPORT int pause(void)
{
	GT_WAIT_CALL(GT_CALL_SIGNAL, pause, AGAIN_AFTER_SNAPSHOT(GT_REAL(pause)()));
}

GT_EXPORT int sigsuspend(const sigset_t *mask)
{
	GT_WAIT_CALL(GT_CALL_SIGNAL, sigsuspend, AGAIN_AFTER_SNAPSHOT(GT_REAL(sigsuspend)(mask)));
}

GT_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	sigset_t sb_; /* the set without the CPU sampler's signal */
	int ss_;
	GT_WAIT_CALL(GT_CALL_SIGNAL, sigwait, GT_REAL(sigwait)(gt_sample_filter(set, &sb_, &ss_), sig));
}

GT_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	sigset_t sb_; /* the set without the CPU sampler's signal */
	int ss_;
	GT_WAIT_CALL(GT_CALL_SIGNAL, sigwaitinfo, AGAIN_AFTER_SNAPSHOT(GT_REAL(sigwaitinfo)(gt_sample_filter(set, &sb_, &ss_), info)));
}

/* A timed wait cut short by the snapshot signal returns EINTR as it would
 * have without the tracer (the time left is not known here). */
GT_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	sigset_t sb_; /* the set without the CPU sampler's signal */
	int ss_;
	GT_WAIT_CALL(GT_CALL_SIGNAL, sigtimedwait, GT_REAL(sigtimedwait)(gt_sample_filter(set, &sb_, &ss_), info, timeout));
}

/* The CPU sampler's signal S (core/cpusample.h) in the program's masks
 * (issue 17): a set that holds every real-time signal (sigfillset, or all
 * of them added) is a program blocking or awaiting "everything": S is
 * taken out of it, so the thread stays sampled and no sigwait or signalfd
 * of the program ever returns S, and S is put back into the old mask the
 * program reads (mask_call). A set
 * that names S among some real-time signals only is a program using S
 * itself: the sampler gives S back (gt_cpu_release: timers deleted, the
 * program's view of S in the kernel) and the call passes through. */
static int all_realtime(const sigset_t *set)
{
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (!sigismember(set, s))
			return 0;
	return 1;
}

/* gt_sample_filter (interpose.h): the set to pass on for set (set itself, or *buf without
 * S); *stripped: S was taken out. */
const sigset_t *gt_sample_filter(const sigset_t *set, sigset_t *buf, int *stripped)
{
	*stripped = 0;
	int s = gt_signals_cpu();
	if (!s || !set || gt_self.inside > gt_self.quiet || !sigismember(set, s)) /* not the tracer's own call */
		return set;
	if (!all_realtime(set)) {
		gt_cpu_release();
		gt_sigview_refresh(s);
		return set;
	}
	*buf = *set;
	sigdelset(buf, s);
	*stripped = 1;
	return buf;
}

/* mask_call: sigprocmask or pthread_sigmask through real, S kept out. An
 * old mask holding every real-time signal but S is one the program filled
 * (S is only ever taken out of such sets): it reads back with S. Stateless,
 * so a new thread's inherited mask reads back right too. */
static int mask_call(int (*real)(int, const sigset_t *, sigset_t *), int how, const sigset_t *set, sigset_t *old)
{
	sigset_t buf;
	int stripped;
	const sigset_t *pass = gt_sample_filter(set, &buf, &stripped);
	int r = real(how, pass, old);
	int s = gt_signals_cpu();
	if (r == 0 && s && old && gt_self.inside <= gt_self.quiet && !sigismember(old, s)) {
		sigaddset(old, s);
		if (!all_realtime(old))
			sigdelset(old, s);
	}
	return r;
}

GT_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return mask_call(GT_REAL(sigprocmask), how, set, old);
}

GT_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return mask_call(GT_REAL(pthread_sigmask), how, set, old);
}
