/* init.c — the library's life: constructor (options, trace file, main
 * thread, flusher), thread-exit hook, fork and the final flush at exit. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../encoder/writer.h"
#include "advance.h"
#include "chunk.h"
#include "clock.h"
#include "config.h"
#include "emit.h"
#include "flusher.h"
#include "flight.h"
#include "fork.h"
#include "heap.h"
#include "identity.h"
#include "inline.h"
#include "log.h"
#include "pressure.h"
#include "real.h"
#include "signals.h"
#include "sink.h"
#include "stack.h"
#include "thread.h"
#include "wake.h"

#ifndef MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif

/* Set in the environment by the first image that claims a trace file;
 * later images (after fork + exec) write next to it instead of over it. */
#define CLAIMED_ENV "GOTRACE_CLAIMED"

struct gt_tracer gt = {
	.gen = 1,
	.next_g = 2, /* 1 is the main thread */
};

static int initialized;

/* thread_exit: a registered thread exits (core/thread.h, gt_thread_on_exit). */
static void thread_exit(void *v)
{
	struct gt_thread *t = &gt_self;
	(void)v;
	if (!t->registered || t->state == GT_T_DEAD)
		return;
	gt_thread_end(t);
	/* Back to one thread (or none, after main's pthread_exit): the
	 * flusher goes before this thread is gone, so the program is
	 * single-threaded again when it can tell (core/flusher.h). */
	gt_lock(&gt.reg_lock);
	unsigned left = gt.nthreads;
	gt_unlock(&gt.reg_lock);
	if (left <= 1)
		gt_flusher_alone();
}

static void warn_line(const char *line, void *arg)
{
	(void)arg;
	gt_warn_line(line);
}

/* start_tracing: the first generation begins with the calling thread as
 * goroutine 1. Without a flusher, the thread's own events end generations
 * (core/inline.h). */
static void start_tracing(struct gt_thread *t)
{
	gt.finished = 0;
	gt_advance_start(gt_now());
	gt_inline_flusher(0, NULL);
	atomic_store(&gt.on, 1);
	gt_main_begin(t);
}

/* child_restart: the child of fork starts a trace of its own (see
 * core/fork.c). Runs in the child's only thread, with every tracer lock
 * free. */
static void child_restart(void)
{
	struct gt_thread *t = &gt_self;
	int was_on = atomic_load(&gt.on) && !gt.finished;
	gt_flusher_forget_after_fork();
	gt_flight_forget();
	gt_pressure_forget_after_fork();
	gt_sink_forget_after_fork();
	atomic_store(&gt.on, 0);
	gt.finished = 1;
	if (!was_on)
		return;
	/* Everything the parent's other threads had is gone with them. */
	atomic_store(&gt.gen, 1);
	atomic_store(&gt.full[0], NULL);
	atomic_store(&gt.full[1], NULL);
	for (int i = 0; i < 2; i++) {
		gt_strtab_reset(&gt.strings[i]);
		gt_stacktab_reset(&gt.stacks[i]);
		gt_typetab_reset(&gt.types[i]);
	}
	gt.threads = NULL;
	gt.nthreads = 0;
	gt.pending_labels = NULL;
	gt.free_procs = NULL;
	gt.next_p = 0;
	gt.next_serial = 0;
	atomic_store(&gt.next_g, 2);
	gt_wake_reset();
	struct gt_stack_bounds bounds = t->bounds; /* the stack is still the same */
	memset(t, 0, sizeof *t);
	t->bounds = bounds;
	t->inside = 1;
	gt.pid = (int)getpid();
	gt_identity_after_fork();
	/* A file of its own, created with its first generation: OUT.<pid>. */
	if (gt_sink_prepare(gt.out_pattern, 1) == 0)
		start_tracing(t);
	t->inside = 0;
}

__attribute__((constructor)) static void gt_init(int argc, char **argv, char **envp)
{
	(void)envp;
	struct gt_thread *self = &gt_self;
	self->inside++;
	gt_real_resolve();
	struct gt_config cfg;
	gt_config_load(&cfg, secure_getenv, warn_line, NULL);
	gt_clock_configure(cfg.clock_monotonic);
	gt.max_frames = cfg.stacks ? cfg.stacks : 1; /* 0: only the interposed call */
	gt.period_ns = cfg.period_ns;
	gt.format = (int)cfg.format;
	gt.malloc_events = cfg.malloc_events;
	gt_heap_configure(cfg.malloc_events, cfg.malloc_sample);
	gt.flight_ns = cfg.flight_ns;
	gt.flight_bytes = cfg.flight_bytes;
	gt.flight_signal = cfg.flight_signal;
	gt.buffer_chunks = cfg.buffer_bytes / GT_CHUNK_SIZE;
	gt.gen_full_chunks = gt.buffer_chunks / 4;
	if (gt.gen_full_chunks > GT_GEN_FULL_CHUNKS_MAX)
		gt.gen_full_chunks = GT_GEN_FULL_CHUNKS_MAX;
	/* The flight recorder keeps whole generations: a few must fit its cap. */
	if (gt.flight_bytes && gt.gen_full_chunks > gt.flight_bytes / 4 / GT_CHUNK_SIZE)
		gt.gen_full_chunks = gt.flight_bytes / 4 / GT_CHUNK_SIZE;
	if (gt.gen_full_chunks < GT_GEN_FULL_CHUNKS_MIN)
		gt.gen_full_chunks = GT_GEN_FULL_CHUNKS_MIN;
	for (int i = 0; i < 2; i++) {
		gt_strtab_init(&gt.strings[i]);
		gt_stacktab_init(&gt.stacks[i]);
		gt_typetab_init(&gt.types[i]);
	}
	snprintf(gt.out_pattern, sizeof gt.out_pattern, "%s", cfg.out);
	int later = secure_getenv(CLAIMED_ENV) != NULL;
	if (gt_sink_prepare(gt.out_pattern, later) != 0) {
		self->inside--;
		return;
	}
	/* Processes started from this one write files of their own (before
	 * any thread: setenv is not thread-safe). */
	if (!later)
		setenv(CLAIMED_ENV, "1", 1);
	gt.pid = (int)getpid();
	gt_identity_init(argc, argv);
	gt_stack_init();
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		gt.asym_fence = 1;
	gt_thread_on_exit(thread_exit);
	gt_fork_install(child_restart);
	initialized = 1;
	start_tracing(self);
	gt_signals_install();
	gt_heap_check_allocator(later);
	if (gt_sink_stream()) {
		/* A FIFO or a device stays open in the flusher's own table for
		 * the whole run (core/sink.h, invariant 3). */
		if (gt_flusher_ensure() != 0)
			atomic_store(&gt.on, 0);
		gt_sink_stream_handed();
	}
	self->inside--;
}

__attribute__((destructor)) static void gt_fini(void)
{
	if (!initialized || gt.finished || getpid() != gt.pid)
		return;
	atomic_store(&gt.on, 0);
	if (gt_sink_stream()) {
		gt_flusher_final(10000); /* its descriptor keeps the reader's stream open */
		return;
	}
	/* Other threads may still run (a JVM's, a pool's): the flusher writes
	 * the end with its own descriptor table. Without one, the program is
	 * down to this thread, which writes it: its permanent raise of `inside`
	 * is its own if it ended its goroutine already (the last thread of a
	 * process whose main called pthread_exit). */
	if (gt_flusher_running()) {
		gt_flusher_final(10000);
		return;
	}
	gt_inline_switch(&gt_self, gt_self.state == GT_T_DEAD, GT_ADV_FINAL, 10000);
}
