/* fork.c — the fork handlers.
 *
 * prepare takes every tracer lock (in one order: advance, registry, procs,
 * chunk pool, tables, own heap), so the child never inherits a table or list caught
 * half-changed by another thread; the parent releases them. The child, which
 * has only the forking thread, drops the parent's whole state (chunks of
 * other threads, tables, the registry, the parent's file descriptor) and
 * starts a trace of its own (the restart gt_fork_install was given by
 * interpose/preload.c: gt_engine_child_restart, core/engine.c): a fresh file (OUT with its own %p, or OUT.<pid>),
 * generation 1, the forking thread as goroutine 1, a new flusher. A vfork child runs no handler; it shares the
 * parent's memory and must not touch the trace, so every writer checks
 * that it runs in the process that opened the file (gt.pid). */
#include "fork.h"

#include <pthread.h>

#include "chunk.h"
#include "clock.h"
#include "gen_snap.h"
#include "ownheap.h"
#include "spans.h"
#include "heapsite.h"
#include "thread.h"
#include "tracer.h"

static void (*restart)(void); /* the child's new trace (gt_fork_install) */

static void each_table_lock(void (*fn)(gt_lock_t *))
{
	for (int i = 0; i < 2; i++) {
		fn(&gt.strings[i].lock);
		fn(&gt.stacks[i].lock);
		fn(&gt.types[i].lock);
	}
}

static void prepare(void)
{
	gt_self.inside++;
	gt_lock(&gt.advance_lock);
	gt_lock(&gt.reg_lock);
	gt_lock(&gt.proc_lock);
	gt_chunk_pool_lock();
	gt_thread_side_pool_lock();
	each_table_lock(gt_lock);
	gt_spans_lock();
	gt_heapsite_lock();
	gt_own_fork_prepare(); /* last: holders of the others allocate */
}

static void parent(void)
{
	gt_own_fork_parent();
	gt_heapsite_unlock();
	gt_spans_unlock();
	each_table_lock(gt_unlock);
	gt_thread_side_pool_unlock();
	gt_chunk_pool_unlock();
	gt_unlock(&gt.proc_lock);
	gt_unlock(&gt.reg_lock);
	gt_unlock(&gt.advance_lock);
	gt_self.inside--;
}

static void child(void)
{
	gt_clock_after_fork();
	gt_own_fork_child();
	each_table_lock(gt_lock_reset);
	gt_spans_after_fork();
	gt_heapsite_after_fork();
	/* The type logs of the parent's other threads would never be
	 * released; the forking thread's own side state is dropped too. */
	for (int i = 0; i < 2; i++)
		gt_typetab_forget(&gt.types[i]);
	gt_gen_snap_after_fork();
	gt_chunk_pool_reset_lock();
	gt_thread_side_pool_after_fork();
	gt_lock_reset(&gt.proc_lock);
	gt_lock_reset(&gt.reg_lock);
	gt_lock_reset(&gt.advance_lock);
	gt_self.inside--;
	restart();
}

void gt_fork_install(void (*child_restart)(void))
{
	restart = child_restart;
	pthread_atfork(prepare, parent, child);
}
