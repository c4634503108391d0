/* flusher.h — who ends generations: the flusher thread while the program
 * has two threads or more, the program's own thread otherwise.
 *
 * The flusher is a thread of the tracer's. A single-threaded program must
 * stay single-threaded (unshare(CLONE_NEWUSER), setns and sandboxes refuse a
 * process with a second thread; zygotes count their threads before fork), so
 * the flusher starts only when the program creates its second thread
 * (gt_flusher_ensure, from the pthread_create wrapper) and is stopped and
 * joined when the program is back to one thread (gt_flusher_alone). While it
 * is away, the program's thread ends generations itself (core/inline.c).
 *
 * The flusher runs with every signal blocked and with a descriptor table of
 * its own (unshare(CLONE_FILES), everything inherited closed): the trace file
 * and the files the symbolizer opens never appear in the program's table. A
 * FIFO or device output keeps it for the whole life of the process
 * (core/sink.h, invariant 3). */
#ifndef GT_FLUSHER_H
#define GT_FLUSHER_H

#include <stdatomic.h>
#include <stdint.h>

/* gt_flusher_ensure starts the flusher unless it runs; waits until it has
 * its own descriptor table. 0 or an errno value. Not from signal handlers. */
int gt_flusher_ensure(void);

/* gt_flusher_alone: the program has one thread left (or none): stop the
 * flusher and wait for its thread to be gone, unless the output needs it.
 * Called by the last thread but one as it exits. */
void gt_flusher_alone(void);

/* gt_flusher_forget_after_fork: the child of fork has no flusher thread. */
void gt_flusher_forget_after_fork(void);

/* gt_flusher_final writes the final generation from any context, a signal
 * handler included: the flusher does it if it runs (waiting at most
 * timeout_ms); otherwise the calling thread does, unless the tracer is
 * interrupted on it (then only the generations already written remain). */
void gt_flusher_final(int timeout_ms);

/* gt_flusher_running: the thread exists and was not asked to stop
 * (gt_req.flusher, for the modules below: core/request.h). */
int gt_flusher_running(void);


/* gt_flusher_snapshot asks for a flight-recorder snapshot; safe in a
 * signal handler. */
void gt_flusher_snapshot(void);

/* gt_flusher_stop_for_exit: the process is ending (destructor): the flusher
 * writes nothing more; the caller writes the final generation. */
void gt_flusher_stop_for_exit(void);

#endif
