/* writer.h — writes the Go trace wire format into caller-owned memory.
 *
 * Pure: no globals, no allocation, no I/O. The hot path (core/section.h) uses
 * the inline batch functions to append events straight into a thread's
 * chunk; the flusher uses the table and sync helpers. Callers reserve room
 * first (gt_batch_room); every function here assumes the room is there. */
#ifndef GT_WRITER_H
#define GT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire.h"

/* gt_put_uvarint writes v as unsigned LEB128 and returns its length (1..10). */
static inline size_t gt_put_uvarint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* gt_put_uvarint_padded writes v in exactly `width` bytes (non-minimal
 * encodings are legal), so a size can be patched in after the fact.
 * pre: v < 2^(7*width). */
static inline void gt_put_uvarint_padded(uint8_t *p, uint64_t v, size_t width)
{
	for (size_t i = 0; i + 1 < width; i++) {
		p[i] = (uint8_t)((v & 0x7f) | 0x80);
		v >>= 7;
	}
	p[width - 1] = (uint8_t)(v & 0x7f);
}

/* A batch being written: header first, then events, size patched by finish.
 * Timestamps are deltas from the previous event of the batch, never negative. */
struct gt_batch {
	uint8_t *mem;      /* start of the batch header */
	size_t cap;        /* bytes available at mem */
	size_t len;        /* bytes written so far, header included */
	size_t size_at;    /* offset of the padded size field */
	size_t end;        /* len may grow up to here: cap, or the payload
	                    * limit GT_MAX_BATCH, whichever comes first */
	uint64_t last_ts;  /* time of the last event (base time at first) */
};

/* gt_batch_set_end sets end once the header is written. */
static inline void gt_batch_set_end(struct gt_batch *b)
{
	size_t by_max = b->size_at + GT_BATCH_SIZE_WIDTH + (size_t)GT_MAX_BATCH;
	b->end = b->cap < by_max ? b->cap : by_max;
}

/* Worst-case bytes of one timed event with n args. */
#define GT_EVENT_MAX(nargs) (1 + ((nargs) + 1) * GT_UVARINT_MAX)

/* gt_batch_begin starts a normal batch (type EventBatch) of generation gen,
 * thread m, base time base_ts in mem[0..cap). pre: cap >= 64. */
static inline void gt_batch_begin(struct gt_batch *b, uint8_t *mem, size_t cap,
				  uint64_t gen, uint64_t m, uint64_t base_ts)
{
	size_t n = 0;
	mem[n++] = GT_EV_BATCH;
	n += gt_put_uvarint(mem + n, gen);
	n += gt_put_uvarint(mem + n, m);
	n += gt_put_uvarint(mem + n, base_ts);
	b->size_at = n;
	n += GT_BATCH_SIZE_WIDTH;
	b->mem = mem;
	b->cap = cap < (size_t)GT_MAX_BATCH + 40 ? cap : (size_t)GT_MAX_BATCH + 40;
	b->len = n;
	b->last_ts = base_ts;
	gt_batch_set_end(b);
}

/* gt_batch_begin_exp starts an experimental batch (ExperimentalBatch, exp id
 * as one raw byte); otherwise like gt_batch_begin. */
static inline void gt_batch_begin_exp(struct gt_batch *b, uint8_t *mem, size_t cap, uint8_t exp,
				      uint64_t gen, uint64_t m, uint64_t base_ts)
{
	size_t n = 0;
	mem[n++] = GT_EV_EXPERIMENTAL_BATCH;
	mem[n++] = exp;
	n += gt_put_uvarint(mem + n, gen);
	n += gt_put_uvarint(mem + n, m);
	n += gt_put_uvarint(mem + n, base_ts);
	b->size_at = n;
	n += GT_BATCH_SIZE_WIDTH;
	b->mem = mem;
	b->cap = cap < (size_t)GT_MAX_BATCH + 40 ? cap : (size_t)GT_MAX_BATCH + 40;
	b->len = n;
	b->last_ts = base_ts;
	gt_batch_set_end(b);
}

/* gt_batch_payload returns the payload bytes written so far. */
static inline size_t gt_batch_payload(const struct gt_batch *b)
{
	return b->len - b->size_at - GT_BATCH_SIZE_WIDTH;
}

/* gt_batch_room returns how many more bytes fit, keeping the payload within
 * GT_MAX_BATCH and the whole batch within cap. */
static inline size_t gt_batch_room(const struct gt_batch *b)
{
	return b->end - b->len;
}

static inline void gt_batch_byte(struct gt_batch *b, uint8_t v) { b->mem[b->len++] = v; }

static inline void gt_batch_uvarint(struct gt_batch *b, uint64_t v)
{
	b->len += gt_put_uvarint(b->mem + b->len, v);
}

static inline void gt_batch_bytes(struct gt_batch *b, const void *p, size_t n)
{
	memcpy(b->mem + b->len, p, n);
	b->len += n;
}

/* gt_batch_event appends a timed event at time ts with nargs arguments.
 * A ts earlier than the batch's last event is written as dt = 0.
 * pre: gt_batch_room(b) >= GT_EVENT_MAX(nargs). */
static inline uint8_t *gt_put_uvarint_p(uint8_t *p, uint64_t v)
{
	while (__builtin_expect(v >= 0x80, 0)) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline void gt_batch_event(struct gt_batch *b, uint8_t type, uint64_t ts,
				  unsigned nargs, const uint64_t *args)
{
	uint64_t last = b->last_ts;
	uint64_t dt = ts > last ? ts - last : 0;
	b->last_ts = ts > last ? ts : last;
	uint8_t *start = b->mem + b->len, *p = start;
	*p++ = type;
	p = gt_put_uvarint_p(p, dt);
	for (unsigned i = 0; i < nargs; i++)
		p = gt_put_uvarint_p(p, args[i]);
	b->len += (size_t)(p - start);
}

/* gt_batch_finish patches the size field and returns the batch's total
 * length in bytes (header included), ready to be written out. */
static inline size_t gt_batch_finish(struct gt_batch *b)
{
	gt_put_uvarint_padded(b->mem + b->size_at, gt_batch_payload(b), GT_BATCH_SIZE_WIDTH);
	return b->len;
}

/* One frame of a stack table entry, leaf first. func and file are string ids. */
struct gt_frame {
	uint64_t pc;
	uint64_t func;
	uint64_t file;
	uint64_t line;
};

/* Worst-case bytes of one String event / Stack event. */
#define GT_STRING_EVENT_MAX (1 + 2 * GT_UVARINT_MAX + GT_MAX_STRING)
#define GT_STACK_EVENT_MAX(nframes) (1 + 2 * GT_UVARINT_MAX + (size_t)(nframes) * 4 * GT_UVARINT_MAX)

/* gt_write_header writes the 16-byte file header for format 23 or 26 (22 and
 * 25 work too, for tests) and returns 16, or 0 for an unknown format. */
size_t gt_write_header(uint8_t out[GT_HEADER_LEN], int format);

/* gt_batch_string appends a String event (id >= 1); strings longer than
 * GT_MAX_STRING are cut to their first GT_MAX_STRING bytes.
 * pre: room >= GT_STRING_EVENT_MAX. */
void gt_batch_string(struct gt_batch *b, uint64_t id, const char *s, size_t len);

/* gt_batch_stack appends a Stack event (id >= 1, 1..GT_MAX_FRAMES frames,
 * leaf first). pre: room >= GT_STACK_EVENT_MAX(n). */
void gt_batch_stack(struct gt_batch *b, uint64_t id, const struct gt_frame *frames, size_t n);

/* Wall-clock and monotonic readings taken together, for format 26. */
struct gt_clock_snapshot {
	uint64_t ts;        /* trace clock */
	uint64_t mono_ns;   /* CLOCK_MONOTONIC */
	uint64_t wall_sec;  /* CLOCK_REALTIME */
	uint64_t wall_nsec;
};

/* Bytes gt_write_sync writes, at most. Real values need about 55; only
 * absurd ones (generation >= 2^35, ticks or wall seconds >= 2^63) could need
 * more, and then nothing is written. */
#define GT_SYNC_MAX 64

/* gt_write_sync writes the generation's one sync batch (NoThread): for
 * format 23 (and 22) a Frequency batch, for 26 (and 25) a Sync batch with
 * Frequency and a ClockSnapshot. snap is required for every format: snap->ts
 * is the batch's base time in format 23; in 26 the base is snap->ts - 1 and
 * the snapshot sits one tick after it (like the runtime, which never stamps
 * it at the base). Returns the bytes written (at most GT_SYNC_MAX), 0 on a
 * bad format, a NULL snap or a batch that would not fit GT_SYNC_MAX. */
size_t gt_write_sync(uint8_t *out, int format, uint64_t gen, uint64_t freq,
		     const struct gt_clock_snapshot *snap);

#endif
