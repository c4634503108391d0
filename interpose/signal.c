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

#include "../core/signals.h"
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
	GT_WAIT_CALL(GT_CALL_SIGNAL, sigwait, GT_REAL(sigwait)(set, sig));
}

GT_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	GT_WAIT_CALL(GT_CALL_SIGNAL, sigwaitinfo, AGAIN_AFTER_SNAPSHOT(GT_REAL(sigwaitinfo)(set, info)));
}

/* A timed wait cut short by the snapshot signal returns EINTR as it would
 * have without the tracer (the time left is not known here). */
GT_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	GT_WAIT_CALL(GT_CALL_SIGNAL, sigtimedwait, GT_REAL(sigtimedwait)(set, info, timeout));
}
