/* signals.h — the tracer's signal handlers and which one the kernel gets
 * for each signal (core/sigview.h keeps the program's own view). */
#ifndef GT_SIGNALS_H
#define GT_SIGNALS_H

#include <signal.h>

#include "sigview.h"

/* gt_signals_install takes over every signal's kernel action (constructor,
 * after the options are known): the death handler where the program's
 * view is SIG_DFL for a signal that ends the process, the snapshot handler
 * or a dispatcher for GOTRACE_FLIGHT_SIGNAL with the flight recorder on. */
void gt_signals_install(void);

/* gt_signals_policy: what the kernel gets for sig when the program's view
 * is *view. Returns 0 when that is the view itself (*k = *view), 1 when
 * *k is the tracer's handler or a trampoline (*w then says what the
 * trampoline calls). */
int gt_signals_policy(int sig, const struct sigaction *view, struct sigaction *k, struct gt_sigwrap *w);

/* gt_signal_ends_process: sig's default action ends the process
 * (terminate or core dump), i.e. everything but CHLD, CONT, URG, WINCH,
 * the stop signals and KILL. */
int gt_signal_ends_process(int sig);

/* gt_signals_is_ours: fn is one of the tracer's handlers. */
int gt_signals_is_ours(void *fn);

/* gt_snapshot_signals counts the flight recorder's snapshot signals
 * received by the tracer's own handler so far: a sleep that sees it change
 * across an EINTR was interrupted by us and resumes (interpose/sleep.c).
 * A snapshot signal that also runs the program's handler does not count:
 * the program sees that interruption, as it would untraced. */
unsigned gt_snapshot_signals(void);

#endif
