/* spans.h — mapped memory as AllocFree spans (docs/heap.md, "Mapped
 * memory"; the wire contract is encoder/wire.h's, above GT_SPAN_PAGE).
 *
 * The table of mappings seen made: every span the library has written a
 * SpanAlloc for and no SpanFree yet — anonymous mappings made through the
 * exported mmap/mremap (interpose/mmap.c) and thread stacks — as base,
 * length, class and site. A munmap, a MAP_FIXED mapping over one, or an
 * mremap frees what it covers (SpanFree) and states again what is left of a
 * span it cut (SpanAlloc of the remaining pieces, same class and site). The
 * generation snapshot (core/gen_spans.h) reads the classes from it.
 *
 * The table lives in memory mapped straight from the kernel (never the
 * program's allocator: the calls come from inside it, jemalloc's arenas) and
 * its lock is held for table work only, never while an event is written
 * (a writer may wait for the flusher, which takes the lock to snapshot).
 * Callers have raised t->inside, so a signal handler's mmap passes through
 * rather than taking the lock a second time. */
#ifndef GT_SPANS_H
#define GT_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "spantab.h"
#include "thread.h"

/* gt_spans_on: spans are recorded (heap recording on, tracing on). */
int gt_spans_on(void);

/* gt_span_mapped: [base, base+len) was just mapped by the calling thread,
 * anonymous and accessible (len > 0), with class cls, at the interposed
 * function site called from ra with CFA cfa. Whatever the table knew in
 * the range is freed first (MAP_FIXED over a span). Writes the events in
 * the thread's batch. pre: t->inside raised by the caller. */
void gt_span_mapped(struct gt_thread *t, uintptr_t base, size_t len, unsigned cls, uintptr_t site, uintptr_t ra,
		    uintptr_t cfa);

/* gt_span_unmapping: [base, base+len) is about to be unmapped (or replaced
 * by a mapping that is no span): SpanFree for every known span it touches,
 * SpanAlloc for the pieces of them left outside it. pre: t->inside raised. */
void gt_span_unmapping(struct gt_thread *t, uintptr_t base, size_t len);

/* Reservations (anonymous PROT_NONE mappings, no span): gt_span_reserved
 * notes [base, base+len) as one, just mapped. gt_span_protecting: an
 * mprotect just set [base, base+len) to PROT_NONE (none) or to some
 * access; within reservations, spans made inaccessible are freed (cut),
 * and accessible pages no span covers become spans of class cls at site.
 * gt_span_reserved_maybe: the cheap unlocked test for mprotect. */
void gt_span_reserved(uintptr_t base, size_t len);
void gt_span_protecting(struct gt_thread *t, uintptr_t base, size_t len, int none, unsigned cls, uintptr_t site,
			uintptr_t ra, uintptr_t cfa);

/* The brk heap ([heap], class GT_SPAN_BRK): one span from the initial
 * break, whose id the snapshots use too (core/spantab.h: gt_span_brk_start);
 * gt_span_brk_moved writes SpanFree + SpanAlloc of the heap's new extent
 * after the program's own sbrk/brk moved the break from old_end to new_end
 * (glibc's malloc moves it with its own calls: the snapshots state those). */
void gt_span_brk_moved(struct gt_thread *t, uintptr_t old_end, uintptr_t new_end, uintptr_t site, uintptr_t ra,
		       uintptr_t cfa);

/* gt_span_class_at: the class of the known span holding [base, base+len)
 * whole, or -1 (used by mremap: the moved span keeps its class). */
int gt_span_class_at(uintptr_t base, size_t len);

/* Thread stacks (GoroutineStackAlloc/Free + a span of class
 * GT_SPAN_STACK): gt_span_thread_stack notes the calling thread's stack
 * [base, base+len) and writes its events, the span's site the kept stack
 * site_ref (0: none); gt_span_thread_stack_end writes their ends (the
 * thread is ending). Both in the thread's batch. The site of a thread's
 * stack is its pthread_create's stack, kept by gt_create (core/goroutine.h). */
void gt_span_thread_stack(struct gt_thread *t, uintptr_t base, size_t len, uint32_t site_ref);
void gt_span_thread_stack_end(struct gt_thread *t);

#endif
