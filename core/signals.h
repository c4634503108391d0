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

/* gt_signals_give_back puts the program's own action for every signal in
 * the kernel, for good: the tracer ended for the whole process and the
 * program's thread may no longer make the system calls its handlers
 * would (core/seal.h). */
void gt_signals_give_back(void);

/* gt_signals_cpu: the CPU sampler's signal while it samples (the
 * program has not taken it over), else 0. */
int gt_signals_cpu(void);

/* gt_signal_ends_process: sig's default action ends the process
 * (terminate or core dump), i.e. everything but CHLD, CONT, URG, WINCH,
 * the stop signals and KILL. */
int gt_signal_ends_process(int sig);

/* Marks of what ran on the calling thread: the tracer's snapshot handler
 * and the program's own handlers (in flight mode every program handler
 * runs behind a trampoline that counts it). A sleep cut short by EINTR
 * resumes only when the snapshot handler ran on its thread and no handler
 * of the program's did (interpose/sleep.c): an interruption the program
 * would have seen untraced is never hidden. */
struct gt_sigmarks {
	unsigned snapshots;
	unsigned handlers;
};
void gt_signals_marks(struct gt_sigmarks *m);
int gt_signals_only_snapshot_since(const struct gt_sigmarks *m);

#endif
