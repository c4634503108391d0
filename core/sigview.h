/* sigview.h — the program's own view of its signal dispositions.
 *
 * The program reads back exactly what it set (sigaction's old action, the
 * result of signal()), SIG_DFL included, while the kernel may hold
 * something else for the same signal: the tracer's death handler where the
 * program has SIG_DFL for a signal that ends the process, the flight
 * recorder's snapshot handler, or a trampoline in front of the program's
 * handler (core/signals.c decides which and hands its policy over at the
 * take-over: struct gt_sigpolicy).
 *
 * One table holds, per signal, the program's action exactly as glibc would
 * read it back from the kernel untraced (flags with SA_RESTORER and the
 * kernel's masking of unknown bits, glibc's restorer, the mask without
 * KILL and STOP), and the action last put in the kernel. Signals the
 * program cannot handle (KILL, STOP, glibc's own 32 and 33) and numbers
 * out of range pass straight through to libc. */
#ifndef GT_SIGVIEW_H
#define GT_SIGVIEW_H

#include <signal.h>

/* What a trampoline in front of a program's handler calls. */
struct gt_sigwrap {
	void *fn;    /* the program's handler; NULL: no trampoline */
	int siginfo; /* the program asked for SA_SIGINFO */
	int reset;   /* SA_RESETHAND: the kernel resets to SIG_DFL on delivery */
};

/* gt_sigview_sigaction is sigaction as the program sees it: the kernel
 * gets the policy's action for the new one, *old gets the program's
 * previous view. 0, or -1 with errno as glibc's sigaction sets it. Safe
 * in a signal handler and from any thread; usable before the constructor. */
int gt_sigview_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* The policy the view applies once taken over (core/signals.c's): what
 * the kernel gets for sig when the program's view is *view (0: the view
 * itself, *k = *view; 1: *k is a handler of the tracer's or a trampoline,
 * *w says what the trampoline calls), and whether fn is one of the
 * tracer's handlers. Handed down, so this module never calls up. */
struct gt_sigpolicy {
	int (*action)(int sig, const struct sigaction *view, struct sigaction *k, struct gt_sigwrap *w);
	int (*is_ours)(void *fn);
};

/* gt_sigview_take_over applies policy (kept; static storage) to every
 * signal (constructor). */
void gt_sigview_take_over(const struct gt_sigpolicy *policy);

/* gt_sigview_wrapped: what the trampoline for sig calls now (*w zero if
 * none). Lock-free; safe in a signal handler. */
void gt_sigview_wrapped(int sig, struct gt_sigwrap *w);

/* gt_sigview_reset_delivered: a trampoline installed with SA_RESETHAND
 * was entered; the kernel has reset the action to SIG_DFL, so the view
 * becomes SIG_DFL and the policy's action for that is installed. */
void gt_sigview_reset_delivered(int sig);

/* gt_sigview_own_process: 0 in a vfork child (it shares our memory and
 * must not change the parent's view or trace), 1 otherwise. */
int gt_sigview_own_process(void);

/* gt_sigview_managed: sig is one whose disposition the view keeps. */
int gt_sigview_managed(int sig);

/* gt_sigview_refresh: gives the kernel the policy's action for sig's view
 * again (the policy changed: the CPU sampler gave its signal back). Safe
 * in a signal handler. */
void gt_sigview_refresh(int sig);

/* gt_sigview_forget_installed: the death handler put SIG_DFL in the kernel
 * itself for sig (no lock: the process is dying). */
void gt_sigview_forget_installed(int sig);

#endif
