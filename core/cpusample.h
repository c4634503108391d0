/* cpusample.h — CPU samples: what each traced thread runs, by its own CPU
 * time (issue 17).
 *
 * Every registered thread (main included; never the flusher, which is not
 * registered) gets a POSIX timer on its own CPU-time clock
 * (CLOCK_THREAD_CPUTIME_ID) that sends the sample signal to that thread
 * alone (SIGEV_THREAD_ID) every period of CPU the thread uses: a thread
 * that waits takes no sample, and no thread is woken for one. The timer is
 * a kernel object, not a descriptor, and no thread is started for it.
 *
 * The handler (gt_cpu_on_signal, async-signal-safe: no lock, no
 * allocation, no system call) runs only for a thread that runs traced
 * code: not inside the tracer (gt_self.inside), registered, its G running
 * or in a system call as the trace last said; else the sample is counted
 * lost. It works like a write section (core/section.h): with the thread's
 * wseq odd it reads the generation, then the trace clock, and unwinds the
 * interrupted context (the ucontext's registers, core/stack.h
 * gt_stack_capture_regs) into the thread's ring of raw samples, tagged
 * with the generation. The flusher's switch waits for wseq as it does for
 * sections, so once it has waited no sample of the old generation can
 * still appear: it then drains every ring (gt_cpu_drain), interning the
 * stacks into the old generation's table, and writes one CPUSamples batch
 * (go-trace-format.md §2.8) of CPUSample(time, m, p, g, stack) entries,
 * one per period the sample stands for (1 + the timer's overruns).
 * A sample's time lies between the switch that began its generation and
 * the one that ended it, and while the thread's G is Running (or in a
 * syscall) in the trace: the state is read with the time, in the handler,
 * and it changes only in sections, which the handler never interrupts.
 *
 * Rings: one per thread, mapped when the thread registers, SPSC (the
 * thread's handler produces, the switch consumes under reg_lock). An
 * exiting thread's ring is retired (reg_lock) and drained by the next
 * switches; empty retired rings are kept for new threads. */
#ifndef GT_CPUSAMPLE_H
#define GT_CPUSAMPLE_H

#include <signal.h>
#include <stdint.h>

#include "gen_out.h"

struct gt_thread;

/* gt_cpu_configure: the sampling period (0: off) and the signal (0: none
 * free). From the constructor, before any thread registers. */
void gt_cpu_configure(uint64_t period_ns);
uint64_t gt_cpu_period(void);

/* gt_cpu_choose_signal picks the sample signal: the highest real-time
 * signal whose disposition (read from the kernel, before the take-over) is
 * SIG_DFL, other than avoid (the flight recorder's). 0 when sampling is off
 * or none is free. Sets the module's signal. */
int gt_cpu_choose_signal(int avoid);
int gt_cpu_signal(void); /* the signal while sampling, else 0 */

/* gt_cpu_release: the program took the sample signal over (its own
 * handler, or it blocks the signal by name): sampling stops for the rest
 * of the run, every thread's timer is deleted, and the signal is the
 * program's from now on. Takes reg_lock; not from a signal handler of the
 * tracer. */
void gt_cpu_release(void);

/* gt_cpu_is_ours: si comes from one of the sampler's timers (their value
 * is a cookie of the tracer's), not from the program. */
int gt_cpu_is_ours(const siginfo_t *si);

/* The handler (installed by core/signals.c). */
void gt_cpu_on_signal(int sig, siginfo_t *si, void *uc);

/* gt_cpu_thread_start / gt_cpu_thread_stop: the calling thread's timer and
 * ring (core/thread.c, under reg_lock, right after registering / before
 * unregistering). */
void gt_cpu_thread_start(struct gt_thread *t);
void gt_cpu_thread_stop(struct gt_thread *t);

/* gt_cpu_drain: generation old's samples of every ring (registered threads
 * and retired rings) as CPUSamples batches appended to o, their stacks
 * interned in old's table. Under reg_lock and advance_lock, after every
 * thread left the sections of old (core/advance.c, step 2). */
void gt_cpu_drain(struct gt_gen_out *o, uint64_t old, uint64_t ts);

/* gt_cpu_after_fork: the child has no timers and none of the parent's
 * other threads; their rings are dropped (core/engine.c). */
void gt_cpu_after_fork(void);

/* Counters for the tests and the cost figures: samples taken and lost
 * (thread inside the tracer, not running, ring full). */
uint64_t gt_cpu_taken(void);
uint64_t gt_cpu_lost(void);

#endif
