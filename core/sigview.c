/* sigview.c — the program's view of its signal dispositions (sigview.h).
 *
 * Invariants:
 *  - view[s] is what glibc's sigaction would return as the old action for
 *    s untraced; installed[s] is the action this file last gave the kernel
 *    for s (its handler tells a change made behind our back, by a raw
 *    rt_sigaction or by SA_RESETHAND on delivery).
 *  - Both change only under view_lock, which is taken with every signal
 *    blocked on the thread (a handler that calls sigaction cannot find the
 *    lock held by the code it interrupted) and never across anything that
 *    waits. The lock is reset in the child of fork.
 *  - Before gt_sigview_take_over the kernel gets exactly the program's
 *    action (the tracer is not running); after it, the policy's. */
#include "sigview.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "real.h"
#include "sys.h"

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
#ifndef SA_UNSUPPORTED
#define SA_UNSUPPORTED 0x00000400 /* a flag bit no kernel will ever support */
#endif
#ifndef SA_EXPOSE_TAGBITS
#define SA_EXPOSE_TAGBITS 0x00000800
#endif
/* The flags a kernel that masks unknown bits (Linux >= 5.11) keeps. */
#define UAPI_SA_FLAGS                                                                          \
	(SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER |     \
	 SA_RESETHAND | SA_EXPOSE_TAGBITS | SA_RESTORER)

#define NSIGS 65 /* 1..64 */

static struct sigaction view[NSIGS];
static struct sigaction installed[NSIGS];
static struct sigaction before_adopted[NSIGS]; /* the view before a change behind our back */
/* What each trampoline calls, read lock-free by the trampoline (it must be
 * cheap: in flight mode every program handler runs behind one) under a
 * per-signal sequence count, odd while the writer (holding view_lock)
 * changes it. */
static struct {
	_Atomic unsigned seq;
	struct gt_sigwrap w;
} wrapped[NSIGS];
static unsigned char known[NSIGS];
static int taken_over;
static const struct gt_sigpolicy *policy; /* set with taken_over */

/* What the kernel does with sa_flags and which restorer glibc gives it,
 * learned on the first install (learn_flags). */
static int learned;
static unsigned long flag_mask = ~0ul;
static void (*glibc_restorer)(void);

static _Atomic int view_lock_word;
static _Atomic int owner_pid; /* the process whose view this is; 0 = not known yet */

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	return GT_REAL(sigaction)(sig, act, old);
}

int gt_sigview_managed(int sig)
{
	if (sig < 1 || sig >= NSIGS || sig == SIGKILL || sig == SIGSTOP)
		return 0;
	return sig < 32 || sig >= SIGRTMIN; /* 32, 33: glibc's own */
}

int gt_sigview_own_process(void)
{
	int pid = atomic_load_explicit(&owner_pid, memory_order_relaxed);
	return pid == 0 || pid == (int)gt_sys_call(SYS_getpid);
}

static void child_after_fork(void)
{
	atomic_store(&owner_pid, (int)gt_sys_call(SYS_getpid));
	atomic_store(&view_lock_word, 0);
}

/* view_lock blocks every signal on the thread (glibc's 32 and 33 too:
 * cancellation must not unwind out of the section) and takes the lock. */
static void view_lock(sigset_t *old)
{
	sigset_t all;
	memset(&all, 0xff, sizeof all);
	gt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, &all, old, (NSIGS - 1) / 8);
	while (atomic_exchange_explicit(&view_lock_word, 1, memory_order_acquire))
		gt_sys_call(SYS_sched_yield);
}

static void view_unlock(const sigset_t *old)
{
	atomic_store_explicit(&view_lock_word, 0, memory_order_release);
	gt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, (NSIGS - 1) / 8);
}

/* only_low_mask keeps the 64 signals the kernel knows of in a mask (glibc
 * copies the rest of its 128-byte sigset_t from uninitialized memory). */
static void only_low_mask(struct sigaction *a)
{
	unsigned long low;
	memcpy(&low, &a->sa_mask, sizeof low);
	memset(&a->sa_mask, 0, sizeof a->sa_mask);
	memcpy(&a->sa_mask, &low, sizeof low);
}

/* normalized: act as the kernel stores it when glibc's sigaction passes it
 * on, i.e. as glibc would read it back. */
static void normalized(struct sigaction *v, const struct sigaction *act)
{
	memset(v, 0, sizeof *v);
	v->sa_sigaction = act->sa_sigaction; /* the union: sa_handler too */
	v->sa_flags = (int)(((unsigned long)(unsigned)act->sa_flags | SA_RESTORER) & flag_mask);
	v->sa_restorer = glibc_restorer;
	memcpy(&v->sa_mask, &act->sa_mask, sizeof(unsigned long));
	sigdelset(&v->sa_mask, SIGKILL);
	sigdelset(&v->sa_mask, SIGSTOP);
}

static void set_wrapped(int sig, const struct gt_sigwrap *w)
{
	unsigned q = atomic_load_explicit(&wrapped[sig].seq, memory_order_relaxed);
	atomic_store_explicit(&wrapped[sig].seq, q + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	wrapped[sig].w = *w;
	atomic_store_explicit(&wrapped[sig].seq, q + 2, memory_order_release);
}

void gt_sigview_wrapped(int sig, struct gt_sigwrap *w)
{
	memset(w, 0, sizeof *w);
	if (sig < 1 || sig >= NSIGS)
		return;
	for (;;) {
		unsigned q = atomic_load_explicit(&wrapped[sig].seq, memory_order_acquire);
		if (q & 1) { /* another thread is changing it: a moment */
			gt_sys_call(SYS_sched_yield);
			continue;
		}
		*w = wrapped[sig].w;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&wrapped[sig].seq, memory_order_relaxed) == q)
			return;
	}
}

/* install gives the kernel k for sig. The first install also learns, from
 * reading k back, glibc's restorer and whether the kernel clears unknown
 * flag bits (SA_UNSUPPORTED is never supported: a kernel that keeps it
 * keeps every bit). */
static int install(int sig, const struct sigaction *k)
{
	if (learned)
		return real_sigaction(sig, k, NULL);
	struct sigaction probe = *k, back;
	probe.sa_flags |= SA_UNSUPPORTED;
	if (real_sigaction(sig, &probe, NULL) != 0)
		return -1;
	if (real_sigaction(sig, NULL, &back) == 0) {
		flag_mask = (back.sa_flags & SA_UNSUPPORTED) ? ~0ul : (unsigned long)UAPI_SA_FLAGS;
		glibc_restorer = back.sa_restorer;
		learned = 1;
	}
	return 0;
}

/* ensure_known: the first time sig is seen, the kernel's action is the
 * program's (inherited, or set before we were loaded). Returns 1 when it
 * read the kernel just now (nothing to reconcile). */
static int ensure_known(int sig)
{
	if (known[sig])
		return 0;
	struct sigaction k;
	memset(&k, 0, sizeof k);
	if (real_sigaction(sig, NULL, &k) != 0)
		k.sa_handler = SIG_DFL;
	only_low_mask(&k);
	view[sig] = k;
	installed[sig] = k;
	known[sig] = 1;
	return 1;
}

/* reconcile notices a change made behind our back: returns 1 when the view
 * changed. After SA_RESETHAND the kernel holds SIG_DFL with the flags it
 * had. A handler of ours back in the kernel was restored by libc from what
 * it read there (system() ignores SIGINT and SIGQUIT while it waits, then
 * puts back what it found): the view is what it was before that. Anything
 * else the kernel holds is what the program set. */
static int reconcile(int sig)
{
	struct sigaction k;
	if (real_sigaction(sig, NULL, &k) != 0 || k.sa_sigaction == installed[sig].sa_sigaction)
		return 0;
	only_low_mask(&k);
	if ((installed[sig].sa_flags & SA_RESETHAND) && k.sa_handler == SIG_DFL) {
		view[sig].sa_handler = SIG_DFL;
	} else if (policy && policy->is_ours((void *)k.sa_sigaction)) {
		view[sig] = before_adopted[sig];
	} else {
		before_adopted[sig] = view[sig];
		view[sig] = k;
	}
	installed[sig] = k;
	return 1;
}

/* apply puts the policy's action for want in the kernel (exactly the
 * program's before the take-over). With force 0, an action the policy
 * leaves as it is is not given again: the kernel holds it already, and
 * setting SIG_IGN again would discard a pending signal. 0, or -1 with
 * errno from libc. */
static int apply(int sig, const struct sigaction *want, int force)
{
	struct sigaction k = *want;
	struct gt_sigwrap w = { 0 };
	int changed = taken_over && policy->action(sig, want, &k, &w);
	set_wrapped(sig, &w); /* before the kernel may enter the trampoline */
	if (!force && !changed)
		return 0;
	if (install(sig, &k) != 0)
		return -1;
	installed[sig] = k;
	return 0;
}

int gt_sigview_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!gt_sigview_managed(sig) || !gt_sigview_own_process())
		return real_sigaction(sig, act, old);
	struct sigaction want, prev;
	if (act)
		want = *act; /* act and old may be the same struct */
	int saved = errno;
	sigset_t mask;
	view_lock(&mask);
	if (!ensure_known(sig) && reconcile(sig))
		(void)apply(sig, &view[sig], 0);
	prev = view[sig];
	int r = 0, err = 0;
	if (act) {
		if (apply(sig, &want, 1) != 0) {
			r = -1;
			err = errno;
		} else {
			normalized(&view[sig], &want);
		}
	}
	view_unlock(&mask);
	errno = r ? err : saved;
	if (r == 0 && old)
		*old = prev;
	return r;
}

void gt_sigview_reset_delivered(int sig)
{
	if (sig < 1 || sig >= NSIGS || !gt_sigview_own_process())
		return;
	sigset_t mask;
	view_lock(&mask);
	if (reconcile(sig))
		(void)apply(sig, &view[sig], 0);
	view_unlock(&mask);
}

void gt_sigview_take_over(const struct gt_sigpolicy *p)
{
	sigset_t mask;
	int saved = errno;
	if (!atomic_load(&owner_pid)) {
		atomic_store(&owner_pid, (int)gt_sys_call(SYS_getpid));
		pthread_atfork(NULL, NULL, child_after_fork);
	}
	view_lock(&mask);
	policy = p;
	taken_over = 1;
	for (int sig = 1; sig < NSIGS; sig++) {
		if (!gt_sigview_managed(sig))
			continue;
		if (!ensure_known(sig))
			(void)reconcile(sig);
		(void)apply(sig, &view[sig], 0);
	}
	view_unlock(&mask);
	errno = saved;
}

void gt_sigview_forget_installed(int sig)
{
	if (sig > 0 && sig < NSIGS)
		installed[sig].sa_handler = SIG_DFL;
}

void gt_sigview_refresh(int sig)
{
	if (!gt_sigview_managed(sig) || !gt_sigview_own_process())
		return;
	int saved = errno;
	sigset_t mask;
	view_lock(&mask);
	if (!ensure_known(sig))
		(void)reconcile(sig);
	(void)apply(sig, &view[sig], 1);
	view_unlock(&mask);
	errno = saved;
}
