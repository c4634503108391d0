/* engine.h — the tracer as a library: started with its options and an
 * output, stopped with the final generation written.
 *
 * Between gt_engine_start and gt_engine_stop, the calling thread is
 * goroutine 1 and every thread that calls the event functions (core/emit.h,
 * core/heap.h) is traced; threads exiting end their goroutines (the hook
 * the engine gives core/thread.c). The engine never reads the environment,
 * installs no signal handler and no fork handler: that is the caller's
 * (interpose/preload.c for the preloaded library; the unit tests start it
 * into a memfd). One engine per process, started once. */
#ifndef GT_ENGINE_H
#define GT_ENGINE_H

#include "config.h"

/* Where the trace goes. */
struct gt_engine_output {
	/* >= 0: a regular file open for writing (a memfd in the unit tests):
	 * the trace is appended at its end, header first, with the path
	 * output's guarantees (core/sink.h) except that nothing is created or
	 * removed: a run with no complete generation leaves the file as it was.
	 * The caller keeps the descriptor open until gt_engine_stop returned.
	 * -1: cfg->out, a path pattern (core/sink.h, gt_sink_prepare). */
	int fd;
	/* Path pattern only: an earlier process of the run claimed the name
	 * (core/sink.h, gt_sink_later_image). */
	int later_image;
	/* Path pattern only, may be NULL: called once the output is accepted,
	 * before the engine starts any thread (the preload layer marks the
	 * environment so that processes started from this one write files of
	 * their own). */
	void (*claimed)(void);
};

/* gt_engine_start checks the output, starts the first generation with the
 * calling thread as goroutine 1 (argc/argv name the process: core/
 * identity.h) and, for a FIFO or device output, the flusher. Returns 0, or
 * -1 when the output is refused (one warning; nothing is traced). Raises
 * the calling thread's `inside` guard (core/thread.h) while it works. */
int gt_engine_start(const struct gt_config *cfg, const struct gt_engine_output *out, int argc, char **argv);

/* gt_engine_stop writes the final generation (the flusher does if it runs,
 * waiting at most 10 s, else the calling thread) and stops tracing. Once;
 * does nothing in a process that did not start the engine (a fork child
 * that did not restart, a vfork child). */
void gt_engine_stop(void);

/* gt_engine_thread_leave: the calling thread's trace ends as at its exit
 * (its heap state, its stack's span, GoDestroy; the flusher stops when one
 * registered thread is left). At exit, or before it loses its system
 * calls (core/seal.h). */
void gt_engine_thread_leave(void);

/* gt_engine_child_restart: in the child of fork, after core/fork.c freed
 * every tracer lock (the restart to give gt_fork_install): drops the
 * parent's state and, when the parent traced into a path, starts the
 * child's own trace (OUT with its own %p, or OUT.<pid>). A descriptor
 * output is the parent's: the child runs untraced. */
void gt_engine_child_restart(void);

#endif
