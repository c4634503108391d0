/* advance.c — the generation switch: the order of its steps.
 *
 * Order of the work (compare Go's traceAdvance):
 *  1. store gen+1, then a memory barrier on every thread (membarrier(2)) or
 *     a full fence (invariant 1 of tracer.h): from here every write section
 *     that starts writes into the new generation;
 *  2. under reg_lock, wait until each thread has left any write section it
 *     was in (so nothing writes into the old generation any more), take its
 *     open chunk of the old generation, and note what the generation still
 *     needs about it (core/gen_status.h: the statuses of a thread that wrote
 *     nothing, so every live thread is visible in every generation; a call
 *     still waiting in the kernel);
 *  3. take the old generation's full chunks;
 *  4. write: sync batch, stack table (symbolized now), string table, heap
 *     info and type batches, then event batches in per-thread order and
 *     the threads' statuses, [EndOfGeneration] — tables first, so a
 *     streaming reader has them before the events (docs/heap.md); each
 *     table writes itself (core/gen_*.h) into the generation's bytes
 *     (core/gen_out.h), which go to the output (core/sink.h) or the flight
 *     recorder's ring (core/flight.h) in one piece;
 *  5. take the new generation's live-heap snapshot (core/gen_snap.h),
 *     written with it (after its heap tables) when it ends — before the
 *     old generation's stack table is emptied (its stacks become sites);
 *  6. reset the old generation's tables and recycle its chunks.
 * Serialized by gt.advance_lock; the tables of the old generation are the
 * switch's alone from step 2 on. */
#include "advance.h"

#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../encoder/writer.h"
#include "clock.h"
#include "cpusample.h"
#include "flight.h"
#include "gen_chunks.h"
#include "gen_heap.h"
#include "gen_spans.h"
#include "gen_out.h"
#include "gen_snap.h"
#include "gen_stacks.h"
#include "gen_status.h"
#include "gen_strings.h"
#include "log.h"
#include "modules.h"
#include "pressure.h"
#include "sink.h"
#include "sys.h"
#include "thread.h"

#ifndef MEMBARRIER_CMD_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#endif

/* How long to wait for one thread to leave its write section. Sections are
 * short; only a thread stopped inside one (a debugger, SIGSTOP, a signal
 * handler that never returns) takes longer, and is then left out. */
#define WRITER_WAIT_NS 2000000000ull

static uint64_t gen_start_ts;

void gt_advance_start(uint64_t ts)
{
	gen_start_ts = ts;
}

static void fence_all_threads(void)
{
	if (gt.asym_fence && gt_sys_call(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return;
	gt.asym_fence = 0; /* fall back to fences on both sides from now on */
	atomic_thread_fence(memory_order_seq_cst);
}

/* wait_writer waits until t is outside any section that began before the
 * generation moved. Returns 0, or -1 when t seems stuck. */
static int wait_writer(struct gt_thread *t)
{
	uint32_t s = atomic_load_explicit(&t->wseq, memory_order_acquire);
	if (!(s & 1))
		return 0;
	uint64_t start = gt_now();
	for (unsigned spins = 0; atomic_load_explicit(&t->wseq, memory_order_acquire) == s; spins++) {
		if (spins < 64) {
			__builtin_ia32_pause();
			continue;
		}
		if (gt_now() - start > WRITER_WAIT_NS)
			return -1;
		gt_sys_yield();
	}
	return 0;
}

/* sync_batch writes the generation's Sync batch: the clocks at ts. Go 1.27
 * stamps the generation's Sync event with the smallest base time of its
 * batches; the sync batch's base is the switch time. */
static void sync_batch(struct gt_gen_out *o, uint64_t old, uint64_t ts)
{
	uint8_t *sync = gt_gen_alloc(64);
	if (!sync)
		return;
	struct gt_clock_snapshot snap = { .ts = ts };
	struct timespec mono, wall;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &wall);
	snap.mono_ns = (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec;
	snap.wall_sec = (uint64_t)wall.tv_sec;
	snap.wall_nsec = (uint64_t)wall.tv_nsec;
	gt_gen_out_add(o, sync, gt_write_sync(sync, gt.format, old, GT_CLOCK_FREQ, &snap));
}

/* write_out hands a complete generation to the output, or keeps it in the
 * flight recorder's ring, which the final generation then writes out whole. */
static void write_out(struct gt_gen_out *o, uint64_t old, uint64_t end_ts, int final)
{
	if (!gt.flight_bytes) {
		gt_sink_write(o->iov, o->n);
		return;
	}
	gt_flight_keep(old, gen_start_ts, end_ts, o->iov, o->n);
	if (final)
		gt_flight_write_out();
}

/* advance ends the generation in progress. pre: advance_lock held, the
 * final generation not written yet. */
static void advance(int final)
{
	/* 1. The new generation. */
	uint64_t old = atomic_load_explicit(&gt.gen, memory_order_relaxed);
	atomic_store_explicit(&gt.gen_start[(old + 1) & 1], gt_now(), memory_order_relaxed);
	atomic_store_explicit(&gt.gen, old + 1, memory_order_release);
	fence_all_threads();
	uint64_t ts = gt_now();

	/* 2. Every writer out of the old one; its open chunks and statuses. */
	struct gt_gen_chunks chunks = { 0 };
	struct gt_gen_out status = { 0 }; /* written after every chunk */
	int status_events = 0;
	gt_lock(&gt.reg_lock);
	for (struct gt_thread *t = gt.threads; t; t = t->next) {
		if (wait_writer(t) != 0) {
			gt_warn("thread %llu is stuck in the tracer; its events of generation %llu are lost",
				(unsigned long long)t->m, (unsigned long long)old);
			continue;
		}
		struct gt_chunk *c = t->chunk[old & 1];
		if (c && c->gen == old) {
			gt_gen_chunks_add(&chunks, c);
			t->chunk[old & 1] = NULL;
		}
	}
	for (struct gt_thread *t = gt.threads; t; t = t->next)
		status_events |= gt_gen_status_thread(&status, t, old, ts, gen_start_ts);
	/* The CPU samples of old: complete now that every writer (and every
	 * sample handler, which enters like one) left old; their stacks go
	 * into old's table before it is written. */
	struct gt_gen_out samples = { 0 };
	gt_cpu_drain(&samples, old, ts);
	gt_unlock(&gt.reg_lock);

	/* 3. Its full chunks. */
	gt_gen_chunks_add_full(&chunks, old);

	/* 4. The generation's bytes: sync batch, tables, events. */
	struct gt_gen_out o = { 0 };
	sync_batch(&o, old, ts);
	gt_gen_strings_carried(old);
	gt_gen_stacks_write(&o, old, ts, final); /* before the strings: symbolizing adds some */
	gt_gen_strings_write(&o, old, ts);
	gt_gen_heap_write(&o, old, ts);
	gt_gen_spans_write(&o, old); /* its mapped-memory snapshot, taken when it began */
	gt_gen_snap_write(&o, old); /* its live-heap snapshot, taken when it began */
	for (int i = 0; i < samples.n; i++)
		gt_gen_out_add(&o, samples.iov[i].iov_base, samples.iov[i].iov_len);
	gt_gen_chunks_write(&chunks, &o);
	for (int i = 0; i < status.n; i++)
		gt_gen_out_add(&o, status.iov[i].iov_base, status.iov[i].iov_len);
	if (chunks.n == 0 && !status_events)
		gt_gen_status_idle(&o, old, ts);
	static const uint8_t eog = GT_EV_END_OF_GENERATION;
	if (gt.format >= 26)
		gt_gen_out_add(&o, (void *)&eog, 1);
	write_out(&o, old, ts, final);
	gt_gen_snap_done();
	if (!final) /* 5. the live heap at the new generation's start (core/gen_snap.h) */
		gt_gen_snap_take(old + 1, atomic_load_explicit(&gt.gen_start[(old + 1) & 1], memory_order_relaxed));

	/* 6. The old generation's tables and chunks, for the one after next. */
	gt_stacktab_reset(&gt.stacks[old & 1]);
	gt_typetab_reset(&gt.types[old & 1]);
	gt_strtab_reset(&gt.strings[old & 1]);
	gt_gen_chunks_recycle(&chunks);
	gt_gen_free_all();
	gt_gen_spans_done();
	gen_start_ts = ts;
	if (!final) /* the mapped memory at the new generation's start (core/gen_spans.h) */
		gt_gen_spans_take(old + 1, atomic_load_explicit(&gt.gen_start[(old + 1) & 1], memory_order_relaxed));
	if (final) {
		gt.finished = 1;
		gt_pressure_report();
	}
}

uint64_t gt_advance_next_due(void)
{
	return gen_start_ts + gt.period_ns;
}

void gt_advance_locked(int kind)
{
	if (getpid() != gt.pid || gt.finished)
		return; /* a vfork child shares our memory, not our trace */
	gt_clock_check(); /* the TSC trace clock's calibration (core/clock.h) */
	if (kind == GT_ADV_SNAPSHOT && !gt.flight_bytes)
		kind = GT_ADV_NEXT;
	advance(kind == GT_ADV_FINAL);
	if (kind == GT_ADV_SNAPSHOT)
		gt_flight_snapshot();
}

void gt_advance(int final)
{
	if (!final && getpid() == gt.pid)
		gt_modules_refresh(); /* the unwinder's module table (core/modules.h); not in a handler */
	gt_lock(&gt.advance_lock);
	gt_advance_locked(final ? GT_ADV_FINAL : GT_ADV_NEXT);
	gt_unlock(&gt.advance_lock);
}

void gt_advance_warm(void)
{
	if (getpid() != gt.pid || !gt_trylock(&gt.advance_lock))
		return;
	if (!gt.finished)
		gt_gen_stacks_warm();
	gt_unlock(&gt.advance_lock);
}

void gt_advance_snapshot(void)
{
	gt_lock(&gt.advance_lock);
	gt_advance_locked(GT_ADV_SNAPSHOT);
	gt_unlock(&gt.advance_lock);
}
