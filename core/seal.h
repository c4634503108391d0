/* seal.h — a thread that is about to lose its system calls leaves the
 * trace for good.
 *
 * SECCOMP_MODE_STRICT leaves the thread that enters it read, write, _exit
 * and sigreturn, and makes the TSC fault: any other system call kills the
 * process with SIGKILL, an rdtsc raises SIGSEGV. Untraced, a program that
 * prepared for that runs on; traced, the tracer's next clock read, chunk,
 * timer or handler on that thread would kill it. So the thread leaves the
 * trace before the mode is entered (interpose/thread.c's prctl,
 * interpose/syscall.c's syscall):
 *
 *   - its last event is a log entry saying so (category "gotrace");
 *   - the only thread of the process (no flusher thread): the trace is
 *     written to its end there and then, and the kernel gets the
 *     program's own signal actions back (the death handler's system calls
 *     would be fatal now), exactly as untraced;
 *   - one of several: it ends as a goroutine (GoDestroy) and the flusher
 *     goes on with the others;
 *   - from then on every interposed call on it passes straight through
 *     (`inside` raised by GT_INSIDE_SEALED, never lowered).
 *
 * The mode is entered only if the thread is in no seccomp mode yet
 * (PR_GET_SECCOMP 0), so the call that follows does not fail. */
#ifndef GT_SEAL_H
#define GT_SEAL_H

#include <stdint.h>

#include "thread.h"

/* Beyond any nesting of the tracer's own raises (GT_INSIDE_ALLOC is 2^16). */
#define GT_INSIDE_SEALED (1 << 24)

/* gt_seal_before_strict: the calling thread is about to enter
 * SECCOMP_MODE_STRICT (site: the call's site, for the log entry). */
void gt_seal_before_strict(uintptr_t site);

#endif
