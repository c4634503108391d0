/* engine.c — the tracer's life (engine.h): options applied, the output
 * checked, the first generation started, what a thread's exit does, the
 * fork child's restart and the final flush. The preload layer
 * (interpose/preload.c) calls it from the constructor, the exit hooks and
 * fork; it never calls up into that layer. */
#include "engine.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../encoder/writer.h"
#include "advance.h"
#include "chunk.h"
#include "clock.h"
#include "cpusample.h"
#include "deadlock.h"
#include "emit.h"
#include "flight.h"
#include "flusher.h"
#include "heap.h"
#include "identity.h"
#include "inline.h"
#include "pressure.h"
#include "sink.h"
#include "stack.h"
#include "sys.h"
#include "thread.h"
#include "wake.h"
#include "gen_spans.h"
#include "spans.h"

#ifndef MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif

struct gt_tracer gt = {
	.gen = 1,
	.next_g = 2, /* 1 is the main thread */
};

static int started;
static int to_descriptor; /* the output is the caller's descriptor */

void gt_engine_thread_leave(void)
{
	struct gt_thread *t = &gt_self;
	if (!t->registered || t->state == GT_T_DEAD)
		return;
	gt_heap_thread_end(t);
	gt_thread_end_call(t); /* a cancelled call's wait, before any event of the end */
	t->inside++;
	gt_span_thread_stack_end(t); /* its stack's GoroutineStackFree and SpanFree */
	t->inside--;
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

/* thread_exit: a registered thread exits (core/thread.h, gt_thread_on_exit). */
static void thread_exit(void *v)
{
	(void)v;
	gt_engine_thread_leave();
}

/* start_tracing: the first generation begins with the calling thread as
 * goroutine 1, running since it began (gt_began_running: the process's
 * start-up and the tracer's own set-up count as its running time). Without
 * a flusher, the thread's own events end generations (core/inline.h). */
static void start_tracing(struct gt_thread *t)
{
	gt.finished = 0;
	uint64_t ts = gt_began_running(gt_now(), 0);
	gt_advance_start(ts);
	gt_inline_flusher(0, NULL);
	atomic_store(&gt.on, 1);
	gt_main_begin(t, ts);
	/* The first generation's snapshot of mapped memory (core/gen_spans.h),
	 * once main is registered: its [stack] is its GoroutineStack. */
	gt_gen_spans_take(atomic_load_explicit(&gt.gen, memory_order_relaxed), ts);
}

/* configure applies the options (read once, before any event). */
static void configure(const struct gt_config *cfg)
{
	gt_clock_configure(cfg->clock_monotonic);
	gt.max_frames = cfg->stacks ? cfg->stacks : 1; /* 0: only the interposed call */
	gt.period_ns = cfg->period_ns;
	gt.format = (int)cfg->format;
	gt.malloc_events = cfg->malloc_events;
	gt_heap_configure(cfg->malloc_events, cfg->malloc_sample);
	gt.flight_ns = cfg->flight_ns;
	gt.flight_bytes = cfg->flight_bytes;
	gt.flight_signal = cfg->flight_signal;
	gt_deadlock_ns = cfg->deadlock_ns; /* core/deadlock.h */
	gt_deadlock_abort = cfg->deadlock_abort;
	gt_cpu_configure(cfg->cpu_period_ns); /* after max_frames and period_ns */
	gt.buffer_chunks = cfg->buffer_bytes / GT_CHUNK_SIZE;
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
	snprintf(gt.out_pattern, sizeof gt.out_pattern, "%s", cfg->out);
}

int gt_engine_start(const struct gt_config *cfg, const struct gt_engine_output *out, int argc, char **argv)
{
	struct gt_thread *self = &gt_self;
	if (started)
		return -1;
	self->inside++;
	configure(cfg);
	int refused = out->fd >= 0 ? gt_sink_prepare_fd(out->fd) : gt_sink_prepare(gt.out_pattern, out->later_image);
	if (refused) {
		self->inside--;
		return -1;
	}
	to_descriptor = out->fd >= 0;
	if (!to_descriptor && out->claimed)
		out->claimed();
	gt.pid = (int)getpid();
	gt_identity_init(argc, argv);
	if (cfg->cpu_period_ns)
		gt_identity_set_cpu_hz((unsigned)((1000000000ull + cfg->cpu_period_ns / 2) / cfg->cpu_period_ns));
	gt_stack_init();
	if (gt_sys_call(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		gt.asym_fence = 1;
	gt_thread_on_exit(thread_exit);
	started = 1;
	start_tracing(self);
	if (gt_sink_stream()) {
		/* A FIFO or a device stays open in the flusher's own table for
		 * the whole run (core/sink.h, invariant 3). */
		if (gt_flusher_ensure() != 0)
			atomic_store(&gt.on, 0);
		gt_sink_stream_handed();
	}
	self->inside--;
	return 0;
}

void gt_engine_stop(void)
{
	if (!started || gt.finished || getpid() != gt.pid)
		return;
	gt_heap_final(&gt_self);
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

/* Runs in the child's only thread, with every tracer lock free. */
void gt_engine_child_restart(void)
{
	struct gt_thread *t = &gt_self;
	int was_on = atomic_load(&gt.on) && !gt.finished;
	gt_flusher_forget_after_fork();
	gt_flight_forget();
	gt_pressure_forget_after_fork();
	gt_sink_forget_after_fork();
	gt_cpu_after_fork(); /* no timer survives fork; the forking thread's comes back as it registers */
	atomic_store(&gt.on, 0);
	gt.finished = 1;
	if (!was_on || to_descriptor)
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
