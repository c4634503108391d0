/* test_reader_errors.c — malformed and truncated input gives a clear error, never a crash or hang. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/reader.h"
#include "test_reader_fixture.h"

static struct gt_reader *reader;

static void setup(void)
{
	reader = malloc(sizeof *reader);
	cr_assert_not_null(reader);
}

static void teardown(void)
{
	free(reader);
}

TestSuite(reader_errors, .init = setup, .fini = teardown);

/* A trace under construction: header, then bytes appended by the tests. */
struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put(struct buf *t, const void *p, size_t n)
{
	cr_assert_leq(t->n + n, sizeof t->b);
	memcpy(t->b + t->n, p, n);
	t->n += n;
}

#define PUT(t, ...) put((t), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void start(struct buf *t, int format)
{
	t->n = gt_write_header(t->b, format);
}

/* one_batch appends an event batch of thread 1 holding payload p[0..n). */
static void one_batch(struct buf *t, uint64_t gen, const void *p, size_t n)
{
	struct gt_batch w;
	gt_batch_begin(&w, t->b + t->n, sizeof t->b - t->n, gen, 1, 100);
	gt_batch_bytes(&w, p, n);
	t->n += gt_batch_finish(&w);
}

/* walk reads t with every cursor and returns the error (or "" at a clean end). */
static const char *walk(const struct buf *t)
{
	static char err[GT_READER_ERR];
	unsigned batches;
	FILE *f = fx_file(t->b, t->n);
	cr_assert_not_null(f);
	err[0] = '\0';
	int rc = fx_walk(reader, f, err, sizeof err, &batches);
	fclose(f);
	cr_assert(rc == 0 || rc == -1);
	cr_assert((rc == 0) == (err[0] == '\0'), "rc %d err '%s'", rc, err);
	return err;
}

#define expect_error(t, text)                                                         \
	do {                                                                          \
		const char *e_ = walk(t);                                             \
		cr_assert(strstr(e_, (text)) != NULL, "error '%s' lacks '%s'", e_, (text)); \
	} while (0)

Test(reader_errors, bad_headers)
{
	struct buf t = { .n = 0 };
	expect_error(&t, "bad file format: not a Go execution trace?");
	put(&t, "go 1.23 trac", 12);
	expect_error(&t, "bad file format");
	t.n = 0;
	put(&t, "GO 1.23 trace\0\0\0", 16);
	expect_error(&t, "bad file format");
	t.n = 0;
	put(&t, "go 1.23 trace\0\0X", 16);
	expect_error(&t, "bad file format");
	t.n = 0;
	put(&t, "go 1.23 trace\0\0", 15);
	expect_error(&t, "bad file format");
	t.n = 0;
	put(&t, "go 1.xx trace\0\0\0", 16);
	expect_error(&t, "bad file format");
}

Test(reader_errors, unsupported_versions)
{
	static const char *heads[] = { "go 1.24 trace\0\0\0", "go 1.21 trace\0\0\0", "go 1.27 trace\0\0\0",
				       "go 1.99 trace\0\0\0", "go 1.5 trace\0\0\0\0", "go 1.123 trace\0\0" };
	static const char *want[] = { "go 1.24", "go 1.21", "go 1.27", "go 1.99", "go 1.5", "go 1.123" };
	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
		struct buf t = { .n = 0 };
		put(&t, heads[i], 16);
		const char *e = walk(&t);
		cr_assert(strstr(e, "unknown or unsupported trace version"), "%s", e);
		cr_assert(strstr(e, want[i]), "%s", e);
	}
}

Test(reader_errors, not_a_batch_at_top_level)
{
	struct buf t;
	start(&t, GT_FORMAT_23);
	PUT(&t, 0x07);
	expect_error(&t, "expected batch event, got event 7 at offset 16");
	/* EndOfGeneration exists from 1.26 on only. */
	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, "", 0);
	PUT(&t, GT_EV_END_OF_GENERATION);
	expect_error(&t, "expected batch event, got event 52 at offset 23");
}

Test(reader_errors, oversize_batch)
{
	struct buf t;
	start(&t, GT_FORMAT_23);
	/* gen 1, m 1, time 1, size 70089 = c9 a3 04 */
	PUT(&t, 0x01, 0x01, 0x01, 0x01, 0xc9, 0xa3, 0x04);
	expect_error(&t, "invalid batch size 70089, maximum is 65536");
	start(&t, GT_FORMAT_23);
	PUT(&t, 0x01, 0x01, 0x01, 0x01, 0x81, 0x80, 0x04);
	expect_error(&t, "invalid batch size 65537, maximum is 65536 (batch at offset 16)");
}

Test(reader_errors, overflowing_header_uvarints)
{
	struct buf t;
	start(&t, GT_FORMAT_23);
	PUT(&t, 0x01, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x01, 0x00);
	expect_error(&t, "invalid uvarint (over 64 bits) for the thread (M) of the batch at offset 16, field at offset 18");
	start(&t, GT_FORMAT_23);
	PUT(&t, 0x01, 0x01, 0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00);
	expect_error(&t, "invalid uvarint (over 64 bits) for the size");
}

Test(reader_errors, truncated_batch_messages)
{
	struct buf t;
	start(&t, GT_FORMAT_23);
	PUT(&t, 0x01, 0x01, 0x01);
	expect_error(&t, "truncated batch at offset 16: the file ends in its base timestamp at offset 19");
	start(&t, GT_FORMAT_23);
	PUT(&t, 0x01, 0x01, 0x01, 0x01, 0x05, 0x0b, 0x00);
	expect_error(&t, "truncated batch at offset 16: the file ends after 2 of its 5 payload bytes");
	start(&t, GT_FORMAT_23);
	PUT(&t, GT_EV_EXPERIMENTAL_BATCH);
	expect_error(&t, "truncated batch at offset 16: the file ends in its experiment id");
}

Test(reader_errors, generation_numbers)
{
	struct buf t;
	start(&t, GT_FORMAT_23);
	one_batch(&t, 0, "", 0);
	expect_error(&t, "invalid generation number 0 in the batch at offset 16");

	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, "", 0);
	one_batch(&t, 2, "", 0);
	one_batch(&t, 4, "", 0);
	expect_error(&t, "generations out of order: batch of generation 4 at offset 30 after generation 2");

	start(&t, GT_FORMAT_23);
	one_batch(&t, 5, "", 0);
	one_batch(&t, 4, "", 0);
	expect_error(&t, "generations out of order");

	/* 1.26: any order across EndOfGeneration, no mixing inside. */
	start(&t, GT_FORMAT_26);
	one_batch(&t, 1, "", 0);
	PUT(&t, GT_EV_END_OF_GENERATION);
	one_batch(&t, 4, "", 0);
	PUT(&t, GT_EV_END_OF_GENERATION);
	cr_assert_str_empty(walk(&t));
	one_batch(&t, 5, "", 0);
	one_batch(&t, 6, "", 0);
	expect_error(&t, "batch of generation 6 at offset 39 inside generation 5: missing EndOfGeneration");
}

Test(reader_errors, end_of_generation_rules)
{
	struct buf t;
	start(&t, GT_FORMAT_26);
	one_batch(&t, 1, "", 0);
	expect_error(&t, "incomplete generation 1: no EndOfGeneration before the end of the file at offset 23");
	start(&t, GT_FORMAT_26);
	PUT(&t, GT_EV_END_OF_GENERATION);
	expect_error(&t, "EndOfGeneration at offset 16 ends an empty generation");
	start(&t, GT_FORMAT_26);
	one_batch(&t, 1, "", 0);
	PUT(&t, GT_EV_END_OF_GENERATION, GT_EV_END_OF_GENERATION);
	expect_error(&t, "EndOfGeneration at offset 24 ends an empty generation");
}

Test(reader_errors, bad_events)
{
	struct buf t;
	/* Payload starts at 16 + 1 + 3 + 3 = 23 ("01 01 01 64 sz sz sz"). */
	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_PROC_STOP, 0x01, 60, 0x01 }, 4);
	expect_error(&t, "unknown event type 60 at offset 25");
	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_STRING, 0x01 }, 2);
	expect_error(&t, "found event without a timestamp: type=5 (String) at offset 23");
	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ 200 }, 1);
	expect_error(&t, "unknown event type 200 at offset 23");
	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_GO_BLOCK, 0x01, 0x02 }, 3);
	expect_error(&t, "truncated GoBlock event at offset 23: the batch ends at offset 26");
	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_GO_START, 0x01, 0x02, 0xff }, 4);
	expect_error(&t, "truncated GoStart event at offset 23");
	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_HEAP_ALLOC, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0x7f },
		  12);
	expect_error(&t, "invalid uvarint (over 64 bits) at offset 25 in HeapAlloc event at offset 23");
}

Test(reader_errors, timestamp_overflow)
{
	struct buf t;
	start(&t, GT_FORMAT_23);
	/* base 100, dt 2^64-1: the sum does not fit. */
	one_batch(&t, 1, (uint8_t[]){ GT_EV_PROC_STOP, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
		  11);
	expect_error(&t, "timestamp overflow in ProcStop event at offset 23");
}

Test(reader_errors, bad_tables)
{
	struct buf t;
	uint8_t big[1100];
	memset(big, 'a', sizeof big);
	big[0] = GT_EV_STRINGS;
	big[1] = GT_EV_STRING;
	big[2] = 1;
	big[3] = 0x81; /* 1025 */
	big[4] = 0x08;
	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, big, 5 + 1025);
	expect_error(&t, "invalid string size 1025, maximum is 1024 (String event at offset 24)");

	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_STRINGS, GT_EV_STRING, 0x01, 0x05, 'a', 'b' }, 6);
	expect_error(&t, "truncated String event at offset 24: 5 bytes of data, 2 left in the batch");

	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_STRINGS, GT_EV_STACK, 0x01 }, 3);
	expect_error(&t, "expected String event, got event 3 at offset 24");

	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_STACKS, GT_EV_STACK, 0x01, 0x81, 0x01 }, 5);
	expect_error(&t, "invalid stack size 129, maximum is 128 (Stack event at offset 24)");

	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_STACKS, GT_EV_STACK, 0x01, 0x02, 1, 2, 3, 4, 5, 6 }, 10);
	expect_error(&t, "truncated Stack event at offset 24");

	start(&t, GT_FORMAT_23);
	one_batch(&t, 1, (uint8_t[]){ GT_EV_CPU_SAMPLES, GT_EV_CPU_SAMPLE, 1, 2, 3, 4 }, 6);
	expect_error(&t, "truncated CPUSample event at offset 24");
}

Test(reader_errors, cursor_marker_checks)
{
	struct gt_rbatch b = { .data = (const uint8_t[]){ GT_EV_STACKS }, .len = 1, .data_offset = 40 };
	struct gt_string_cursor c;
	struct gt_string s;
	cr_assert_eq(gt_strings_begin(&c, &b), -1);
	cr_assert_str_eq(c.at.err, "expected a Strings section, got event 2 at offset 40");
	cr_assert_eq(gt_strings_next(&c, &s), -1);
	b.len = 0;
	struct gt_stack_cursor k;
	cr_assert_eq(gt_stacks_begin(&k, &b), -1);
	cr_assert_str_eq(k.at.err, "empty batch at offset 40, expected a Stacks section");
	b.data = NULL;
	struct gt_event_cursor e;
	struct gt_event ev;
	gt_events_begin(&e, &b);
	cr_assert_eq(gt_events_next(&e, &ev), 0);
}

static const char *sync_error(int format, const uint8_t *payload, size_t n)
{
	static char err[GT_READER_ERR];
	struct gt_rbatch b = { .kind = GT_BATCH_SYNC, .gen = 1, .m = GT_NO_THREAD, .base_ts = 10,
			       .data = payload, .len = n, .data_offset = 30 };
	struct gt_sync s;
	(void)format;
	err[0] = '\0';
	if (gt_sync_decode(&b, &s, err) == 0)
		return "";
	return err;
}

Test(reader_errors, bad_sync_batches)
{
	cr_assert_str_eq(sync_error(23, (uint8_t[]){ 0x08, 0x00 }, 2), "invalid frequency 0 at offset 30");
	cr_assert_str_eq(sync_error(23, (uint8_t[]){ 0x08, 0x05, 0x08, 0x05 }, 4),
			 "unexpected event 8 after Frequency at offset 32");
	cr_assert_str_eq(sync_error(23, (uint8_t[]){ 0x08 }, 1),
			 "truncated Frequency event at offset 30: the batch ends at offset 31");
	cr_assert_str_eq(sync_error(26, (uint8_t[]){ 0x32, 0x08, 0x05 }, 3),
			 "no clock snapshot event found in the sync batch at offset 30");
	cr_assert_str_eq(sync_error(26, (uint8_t[]){ 0x32, 0x33, 1, 2, 3, 4 }, 6),
			 "no frequency event found in the sync batch at offset 30");
	cr_assert_str_eq(sync_error(26, (uint8_t[]){ 0x32, 0x08, 0x05, 0x08, 0x06 }, 5),
			 "found multiple frequency events (second at offset 33)");
	cr_assert_str_eq(sync_error(26, (uint8_t[]){ 0x32, 0x33, 1, 2, 3, 4, 0x33, 1, 2, 3, 4 }, 11),
			 "found multiple clock snapshot events (second at offset 36)");
	cr_assert_str_eq(sync_error(26, (uint8_t[]){ 0x32, 0x08, 0x05, 0x10 }, 4),
			 "expected frequency or clock snapshot event, got event 16 at offset 33");
	cr_assert_str_eq(sync_error(26, (uint8_t[]){ 0x32, 0x33, 1, 2 }, 4),
			 "truncated ClockSnapshot event at offset 31: the batch ends at offset 34");
	cr_assert_str_eq(sync_error(26, (uint8_t[]){ 0x31 }, 1),
			 "expected a Sync section, got event 49 at offset 30");
	/* Clock snapshot before frequency is fine. */
	cr_assert_str_eq(sync_error(26, (uint8_t[]){ 0x32, 0x33, 1, 2, 3, 4, 0x08, 0x05 }, 8), "");
}

Test(reader_errors, errors_are_sticky)
{
	struct buf t;
	start(&t, GT_FORMAT_23);
	PUT(&t, 0x09);
	one_batch(&t, 1, "", 0);
	FILE *f = fx_file(t.b, t.n);
	struct gt_rbatch b;
	cr_assert_eq(gt_reader_init(reader, f), 0);
	cr_assert_eq(gt_reader_next(reader, &b), -1);
	cr_assert_eq(gt_reader_next(reader, &b), -1);
	cr_assert(strstr(reader->err, "got event 9"), "%s", reader->err);
	fclose(f);
}

/* Cut a valid trace at every byte offset: each prefix must end in an error
 * or a clean EOF, and a clean EOF only where the cut falls on a batch
 * boundary (for 1.26: right after an EndOfGeneration). */
static void truncate_everywhere(int format)
{
	static uint8_t full[16384];
	size_t n = fx_trace(format, 2, full, sizeof full);
	cr_assert_gt(n, 0);

	/* Batch boundaries of the full trace. */
	static bool boundary[16384];
	memset(boundary, 0, sizeof boundary);
	FILE *f = fx_file(full, n);
	struct gt_rbatch b;
	cr_assert_eq(gt_reader_init(reader, f), 0);
	boundary[GT_HEADER_LEN] = true;
	while (gt_reader_next(reader, &b) == 1)
		if (format < GT_FORMAT_26 || b.kind == GT_BATCH_END_OF_GEN)
			boundary[reader->off] = true;
	cr_assert_str_empty(reader->err);
	fclose(f);

	for (size_t cut = 0; cut <= n; cut++) {
		struct buf *t = malloc(sizeof *t);
		memcpy(t->b, full, cut);
		t->n = cut;
		const char *e = walk(t);
		bool clean = e[0] == '\0';
		bool want_clean = cut == n || boundary[cut];
		cr_assert_eq(clean, want_clean, "format %d cut at %zu of %zu: '%s'", format, cut, n, e);
		if (!clean)
			cr_assert(strstr(e, "offset") || strstr(e, "header"), "no offset in '%s'", e);
		free(t);
	}
}

Test(reader_errors, truncated_at_every_offset_23) { truncate_everywhere(GT_FORMAT_23); }
Test(reader_errors, truncated_at_every_offset_26) { truncate_everywhere(GT_FORMAT_26); }

/* Deterministic mutation: flip, overwrite or insert bytes of a valid trace
 * and walk it. Criterion runs each test in its own process, so a crash or
 * hang (timeout) fails the test. */
Test(reader_errors, mutated_traces_never_crash, .timeout = 60)
{
	static uint8_t full[16384];
	size_t n = fx_trace(GT_FORMAT_26, 2, full, sizeof full);
	uint64_t rng = 0x9e3779b97f4a7c15u;
	unsigned errors = 0;
	for (unsigned iter = 0; iter < 4000; iter++) {
		struct buf *t = malloc(sizeof *t);
		memcpy(t->b, full, n);
		t->n = n;
		unsigned edits = 1 + iter % 4;
		for (unsigned k = 0; k < edits; k++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			size_t at = (size_t)(rng >> 16) % t->n;
			uint8_t v = (uint8_t)(rng >> 8);
			switch (rng % 4) {
			case 0: t->b[at] ^= (uint8_t)(1u << (v % 8)); break;
			case 1: t->b[at] = v; break;
			case 2: t->b[at] = (uint8_t)(v & 1 ? 0xff : 0x80); break;
			case 3: t->n = at + 1; break; /* cut */
			}
		}
		errors += walk(t)[0] != '\0';
		free(t);
	}
	cr_assert_gt(errors, 1000);
}
