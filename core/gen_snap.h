/* gen_snap.h — the live-heap snapshot (docs/heap.md, "The live-heap
 * snapshot"): at each generation's start, a HeapObject(id, type) for every
 * live recorded object, as Go's runtime restates its heap
 * (traceSnapshotMemory), so that a generation read without the ones before
 * it (a flight-recorder snapshot, a trace whose first generations were
 * dropped) still knows what was live when it began, and where it was
 * allocated.
 *
 * The flusher takes it as soon as it has written the generation before
 * (gt_gen_snap_take, under gt.advance_lock, after every writer left that
 * generation): it copies the live table (core/heaplive.h, one shard at a
 * time; sampled: core/heapset.h) and writes the events into batches of the
 * new generation with M = GT_SNAPSHOT_M (encoder/wire.h), in memory of its
 * own; each object's type is a type of the new generation's table (its
 * requested size and its site, interned in the new generation's stack
 * table from core/heapsite.h). The batches are written with the new
 * generation when it ends (gt_gen_snap_write), base time = the new
 * generation's start (no event of it is earlier: a reader merging by time
 * meets the snapshot first).
 *
 * Objects allocated or freed while the copy runs (after the switch) may or
 * may not be in it: their HeapObjectAlloc / HeapObjectFree follow in the
 * generation's own events. Every object whose HeapObjectAlloc is in an
 * earlier generation and that was not freed is in it (the live tables are
 * updated before the event is written). */
#ifndef GT_GEN_SNAP_H
#define GT_GEN_SNAP_H

#include <stdint.h>

#include "gen_out.h"

/* gt_gen_snap_take writes the snapshot of generation gen (the one just
 * started at ts, gt.gen_start). pre: gt.advance_lock held, generation gen-1
 * written out and its stack table not emptied yet (the live tables' stack
 * refs of gen-1 become sites: core/heapsite.h). */
void gt_gen_snap_take(uint64_t gen, uint64_t ts);

/* gt_gen_snap_write appends gen's snapshot batches to o, if taken for gen.
 * gt_gen_snap_done after o was written out: the memory is reused. */
void gt_gen_snap_write(struct gt_gen_out *o, uint64_t gen);
void gt_gen_snap_done(void);

/* The figures of the last snapshot taken: objects restated, the wall and
 * the CPU time it took the thread that took it, the bytes of its batches;
 * also in the generation's strings, when it restated any, as
 * "gotrace.snapshot heap_objects=N ns=T cpu_ns=C bytes=B hold_ns=H" (make bench
 * reads them). */
struct gt_gen_snap_stats {
	uint64_t gen, objects, ns, cpu_ns, bytes;
	uint64_t hold_ns; /* the longest one lock was held for a copy */
};
void gt_gen_snap_last(struct gt_gen_snap_stats *out);

/* gt_gen_snap_after_fork: the child's trace starts again (core/fork.c). */
void gt_gen_snap_after_fork(void);

#endif
