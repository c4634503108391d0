/* pressure.h — back-pressure: the memory events wait in before the flusher
 * writes them is bounded by GOTRACE_BUFFER.
 *
 * chunk.c counts the full chunks queued for the flusher; at the budget it
 * raises gt_chunk_pressure (core/chunk.h), and a thread about to open a
 * write section asks for the generation to end (core/request.h) and waits
 * — outside any section (tracer.h, invariant 2), so the flusher never
 * waits for it — until the flusher has written a generation and returned
 * its chunks. Nothing is dropped while the flusher makes progress: the
 * program slows down to the speed of the output instead. Only a flusher
 * that makes no progress at all for GT_PRESSURE_STUCK_NS (a hung disk)
 * stops tracing, so the program never hangs on its trace; the waiting
 * threads' events are then counted as dropped. Totals are reported on
 * stderr when the trace ends. */
#ifndef GT_PRESSURE_H
#define GT_PRESSURE_H

#include <stdatomic.h>

#define GT_PRESSURE_STUCK_NS 10000000000ull /* 10 s without a chunk returned */

/* gt_pressure_wait waits until the budget has room again. Returns 0, or
 * -1 when tracing stopped meanwhile (the caller drops its event). */
int gt_pressure_wait(void);

/* gt_pressure_report prints, once, how long threads waited and how many
 * events were dropped, when either happened. */
void gt_pressure_report(void);

/* gt_pressure_forget_after_fork: the child starts with no debt. */
void gt_pressure_forget_after_fork(void);

#endif
