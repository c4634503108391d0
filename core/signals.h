/* signals.h — write the generation in progress before a signal ends the
 * program, then let the signal do exactly what it would have done. */
#ifndef GT_SIGNALS_H
#define GT_SIGNALS_H

/* gt_signals_install takes over the terminating signals (SIGTERM, SIGINT,
 * SIGHUP, SIGQUIT) and the crashes (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGABRT) whose disposition is still the default. A handler the program
 * installs later replaces ours, as it would replace the default. With the
 * flight recorder on, also GOTRACE_FLIGHT_SIGNAL (a snapshot request). */
void gt_signals_install(void);

/* gt_snapshot_signals counts the flight recorder's snapshot signals
 * received so far: a sleep that sees it change across an EINTR was
 * interrupted by us and resumes (interpose/sleep.c). */
unsigned gt_snapshot_signals(void);

#endif
