/* flight.h — the flight recorder (GOTRACE_FLIGHT): the most recent complete
 * generations kept in memory instead of written, and written out as one
 * self-contained trace on demand.
 *
 * Each generation of our traces carries its own tables and re-states every
 * live thread's status (tracer.h, invariant 4), and Go's readers accept a
 * trace whose first generation is any number as long as the following ones
 * are consecutive; so any run of consecutive generations, after a header,
 * is a valid trace on its own. Every function here runs with
 * gt.advance_lock held (core/advance.c calls them), or in the fork child's
 * only thread (gt_flight_forget, core/init.c). */
#ifndef GT_FLIGHT_H
#define GT_FLIGHT_H

#include <stdint.h>
#include <sys/uio.h>

/* gt_flight_keep copies generation gen (its bytes in iov[0..n), spanning
 * start_ts..end_ts) into the ring, then drops the oldest generations that
 * the window (gt.flight_ns) no longer needs or that the size cap
 * (gt.flight_bytes) cannot hold; the newest is always kept. A generation
 * that cannot be stored (no memory) empties the ring: a gap would make the
 * older ones unusable. */
void gt_flight_keep(uint64_t gen, uint64_t start_ts, uint64_t end_ts, const struct iovec *iov, int n);

/* gt_flight_write appends every kept generation, oldest first, to the trace
 * file f (core/sink.h). Returns 0 or an errno value. */
struct gt_sink_file;
int gt_flight_write(struct gt_sink_file *f);

/* gt_flight_describe formats "the last 9.8s (10 generations, 3.2 MB)". */
void gt_flight_describe(char *buf, unsigned long len);

/* gt_flight_write_out writes every kept generation to the trace file
 * (the final generation's end: exit, death, exec) and says so on stderr. */
void gt_flight_write_out(void);

/* gt_flight_snapshot writes a complete trace (header and the kept
 * generations) to a new file next to the trace file: <OUT>.snap1,
 * <OUT>.snap2, ... and says where on stderr. */
void gt_flight_snapshot(void);

/* gt_flight_forget drops the ring without writing it (a fork child: the
 * generations are its parent's). */
void gt_flight_forget(void);

#endif
