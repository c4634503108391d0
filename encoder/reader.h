/* reader.h — a streaming reader of Go execution traces (format 1.22-1.26).
 *
 * Memory is bounded by one batch: gt_reader_next reads the next batch header
 * and its payload (at most GT_MAX_BATCH bytes) into the reader's own buffer,
 * never more of the file. Cursors then walk that payload in place. Nothing
 * here allocates; the caller owns every struct (struct gt_reader holds the
 * 64 KiB buffer, so put it on the heap or in static storage).
 *
 * The checks are those of the wire level: header, batch framing, sizes and
 * limits, uvarints (at most 10 bytes, no overflow), event argument counts,
 * generation order. Meaning (IDs defined once, seq numbers, states) is left
 * to the caller. Every error is a message naming the file offset of the
 * offending byte; nothing reads outside the bytes it has, and every call
 * consumes input or ends, so malformed input cannot crash or hang it.
 *
 * Results: the *_next functions return 1 for an item, 0 at a clean end and
 * -1 on an error; errors are sticky (every later call returns -1 again). */
#ifndef GT_READER_H
#define GT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wire.h"
#include "writer.h" /* struct gt_frame, struct gt_clock_snapshot */

#define GT_READER_ERR 192 /* bytes of an error message buffer */

/* What a batch holds, decided as Go's reader decides it: experimental
 * batches by their header, the others by their first payload byte. */
enum gt_batch_kind {
	GT_BATCH_EVENTS,       /* timed events of thread m (also empty batches) */
	GT_BATCH_STRINGS,      /* string table section */
	GT_BATCH_STACKS,       /* stack table section */
	GT_BATCH_CPU_SAMPLES,  /* CPU profile samples */
	GT_BATCH_SYNC,         /* Frequency (< 1.25) or Sync (>= 1.25) batch */
	GT_BATCH_EXPERIMENTAL, /* opaque payload of experiment `exp` */
	GT_BATCH_END_OF_GEN,   /* 1.26 EndOfGeneration byte: no payload */
};

/* One batch as read from the file. data points into the reader's buffer and
 * stays valid until the next gt_reader_next on that reader. */
struct gt_rbatch {
	enum gt_batch_kind kind;
	uint8_t exp;          /* experiment id, GT_BATCH_EXPERIMENTAL only */
	uint64_t gen;         /* for END_OF_GEN: the generation it ends */
	uint64_t m;           /* thread; GT_NO_THREAD for NoThread */
	uint64_t base_ts;     /* trace clock */
	const uint8_t *data;  /* payload */
	size_t len;           /* payload bytes, <= GT_MAX_BATCH */
	uint64_t offset;      /* file offset of the batch's first byte */
	uint64_t data_offset; /* file offset of data[0] */
};

struct gt_reader {
	FILE *f;
	int version;      /* header's format: 22, 23, 25 or 26 */
	uint64_t off;     /* file offset of the next unread byte */
	uint64_t gen;     /* generation of the latest batch; 0 before the first */
	bool gen_open;    /* a batch was read since the last EndOfGeneration */
	bool failed;
	char err[GT_READER_ERR];
	uint8_t buf[GT_MAX_BATCH];
};

/* gt_reader_init reads and checks the 16-byte header from f (positioned at
 * the start of the trace). Returns 0, or -1 with r->err set. */
int gt_reader_init(struct gt_reader *r, FILE *f);

/* gt_reader_next reads the next batch (or 1.26 EndOfGeneration) into *b.
 * 0 means a clean end of file: at a batch boundary and, for 1.26, right
 * after an EndOfGeneration. */
int gt_reader_next(struct gt_reader *r, struct gt_rbatch *b);

/* gt_batch_kind_name returns "events", "strings", ... for messages. */
const char *gt_batch_kind_name(enum gt_batch_kind kind);

/* A position inside one batch payload; every cursor embeds one. After a -1
 * from a cursor, its `at.err` holds the message. */
struct gt_rpos {
	const uint8_t *data;
	size_t len;
	size_t pos;
	uint64_t file_off; /* file offset of data[0] */
	bool failed;
	char err[GT_READER_ERR];
};

/* Events of a GT_BATCH_EVENTS batch. */
struct gt_event {
	uint8_t type;                  /* enum gt_ev */
	int nargs;                     /* gt_ev_nargs(type) */
	uint64_t dt;                   /* delta from the previous event */
	uint64_t ts;                   /* absolute: base_ts + all dts so far */
	uint64_t args[GT_MAX_ARGS];    /* args[nargs..] are 0 */
	uint64_t offset;               /* file offset of the type byte */
};
struct gt_event_cursor {
	struct gt_rpos at;
	uint64_t ts;
};
void gt_events_begin(struct gt_event_cursor *c, const struct gt_rbatch *b);
int gt_events_next(struct gt_event_cursor *c, struct gt_event *ev);

/* Strings of a GT_BATCH_STRINGS batch; data points into the batch payload
 * and is not NUL-terminated. */
struct gt_string {
	uint64_t id;
	const uint8_t *data;
	size_t len;         /* <= GT_MAX_STRING */
	uint64_t offset;    /* file offset of the String event */
};
struct gt_string_cursor {
	struct gt_rpos at;
};
/* The *_begin functions check the section marker: 0, or -1 with at.err. */
int gt_strings_begin(struct gt_string_cursor *c, const struct gt_rbatch *b);
int gt_strings_next(struct gt_string_cursor *c, struct gt_string *s);

/* Stacks of a GT_BATCH_STACKS batch, frames leaf first. */
struct gt_stack {
	uint64_t id;
	size_t nframes;     /* <= GT_MAX_FRAMES; 0 is legal */
	uint64_t offset;    /* file offset of the Stack event */
	struct gt_frame frames[GT_MAX_FRAMES];
};
struct gt_stack_cursor {
	struct gt_rpos at;
};
int gt_stacks_begin(struct gt_stack_cursor *c, const struct gt_rbatch *b);
int gt_stacks_next(struct gt_stack_cursor *c, struct gt_stack *s);

/* Samples of a GT_BATCH_CPU_SAMPLES batch (time is absolute). */
struct gt_cpu_sample {
	uint64_t time, m, p, g, stack;
	uint64_t offset;
};
struct gt_cpu_sample_cursor {
	struct gt_rpos at;
};
int gt_cpu_samples_begin(struct gt_cpu_sample_cursor *c, const struct gt_rbatch *b);
int gt_cpu_samples_next(struct gt_cpu_sample_cursor *c, struct gt_cpu_sample *s);

/* The content of a GT_BATCH_SYNC batch. A Frequency batch (< 1.25) has no
 * clock snapshot; a Sync batch (>= 1.25) must have one, and clock.ts is its
 * absolute trace time. */
struct gt_sync {
	uint64_t freq;      /* trace clock ticks per second, > 0 */
	bool has_clock;
	struct gt_clock_snapshot clock;
};
/* gt_sync_decode returns 0, or -1 with a message in err. */
int gt_sync_decode(const struct gt_rbatch *b, struct gt_sync *s, char err[GT_READER_ERR]);

#endif
