/* gen_spans.h — each generation's snapshot of mapped memory: a Span for
 * every anonymous mapping with some access, [heap] and [stack] included,
 * and a GoroutineStack for every live thread whose stack is known, in
 * event batches of M = GT_SNAPSHOT_M (encoder/wire.h), as Go's
 * traceSnapshotMemory restates live memory at a generation's start.
 *
 * Read from /proc/self/maps, so mappings made by calls the wrappers do not
 * see (glibc malloc's own mmap, the loader, glibc's thread stacks) show at
 * generation granularity; classes come from the table of mappings seen
 * made (core/spans.h), else GT_SPAN_UNSEEN, GT_SPAN_BRK ([heap]) or
 * GT_SPAN_STACK ([stack]); a known span's site is put in the generation's
 * stack table again (core/heapsite.h), the others' is 0. Taken when a generation starts (the
 * switch, core/advance.c, with gt.advance_lock held; and the first
 * generation at the engine's start), kept (core/snapout.h), and written
 * with the generation's other batches when it closes. Only on the flusher (its own
 * descriptor table) or while the process has one thread: otherwise that
 * generation has no snapshot. Only with heap recording on. */
#ifndef GT_GEN_SPANS_H
#define GT_GEN_SPANS_H

#include <stdint.h>

#include "gen_out.h"

/* gt_gen_spans_take takes generation gen's snapshot, stamped ts: the
 * generation's start (gt.gen_start), as the live-heap snapshot's batches
 * (core/gen_snap.h), so a reader merging by time meets it before any event
 * of the generation. A mapping made or unmapped between that start and the
 * read may be in it and have its SpanAlloc after it, or be missing from it
 * and have its SpanFree after it. */
void gt_gen_spans_take(uint64_t gen, uint64_t ts);

/* gt_gen_spans_write adds gen's snapshot batches to o; gt_gen_spans_done
 * once o is written (their memory is kept for the next: core/snapout.h). */
void gt_gen_spans_write(struct gt_gen_out *o, uint64_t gen);
void gt_gen_spans_done(void);

#endif
