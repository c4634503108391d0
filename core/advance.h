/* advance.h — ending a generation: the flusher's (and exit's) one job. */
#ifndef GT_ADVANCE_H
#define GT_ADVANCE_H

#include <stdint.h>

/* gt_advance closes the current generation and writes it to the trace file:
 * it starts the next generation, waits until no thread still writes into
 * the old one, then writes the old one's batches, status re-statements,
 * stack and string tables. With final set, nothing is written after it.
 * Serialized by gt.advance_lock. */
void gt_advance(int final);

/* gt_advance_snapshot (flight recorder only) closes the current
 * generation like gt_advance(0), then writes every kept generation to a
 * snapshot file (core/flight.h). */
void gt_advance_snapshot(void);

/* gt_advance_warm readies the symbolizer for the program's own executable
 * (the module of AT_ENTRY: a table of ~100,000 symbols in node or a JVM
 * launcher's libjvm-sized programs) while the program runs, so that the
 * first generation switch — at exit, for a short program — does not wait
 * for it. The flusher calls it once when it starts; it does nothing if a
 * switch is in progress. */
void gt_advance_warm(void);

/* What a switch does: end the generation; end it and write nothing after
 * (exit, death, exec); end it and write a flight-recorder snapshot. */
enum { GT_ADV_NEXT, GT_ADV_FINAL, GT_ADV_SNAPSHOT };

/* gt_advance_locked does one switch of that kind. pre: gt.advance_lock held
 * (core/inline.c takes it with a trylock). */
void gt_advance_locked(int kind);

/* gt_advance_next_due: when the generation in progress should end. */
uint64_t gt_advance_next_due(void);

/* gt_advance_start records when generation 1 began (for its sync batch). */
void gt_advance_start(uint64_t ts);

#endif
