/* test_reader.c — round trips: traces written by the writer come back intact from the reader. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/reader.h"
#include "test_reader_fixture.h"

static struct gt_reader *reader;
static uint8_t trace[16384];

static void setup(void)
{
	reader = malloc(sizeof *reader);
	cr_assert_not_null(reader);
}

static void teardown(void)
{
	free(reader);
}

/* open_trace writes a fixture trace and opens the reader on it. */
static FILE *open_trace(int format, unsigned gens)
{
	size_t n = fx_trace(format, gens, trace, sizeof trace);
	cr_assert_gt(n, 0);
	FILE *f = fx_file(trace, n);
	cr_assert_not_null(f);
	cr_assert_eq(gt_reader_init(reader, f), 0, "%s", reader->err);
	cr_assert_eq(reader->version, format);
	return f;
}

static void next_batch(struct gt_rbatch *b, enum gt_batch_kind kind, unsigned g)
{
	int rc = gt_reader_next(reader, b);
	cr_assert_eq(rc, 1, "rc %d: %s", rc, reader->err);
	cr_assert_eq(b->kind, kind, "got %s, want %s", gt_batch_kind_name(b->kind), gt_batch_kind_name(kind));
	cr_assert_eq(b->gen, g);
	/* Streaming: the file position is exactly at the end of this batch. */
	cr_assert_eq((uint64_t)ftell(reader->f), reader->off);
	cr_assert_eq(b->data_offset + b->len, reader->off);
}

static void check_sync(const struct gt_rbatch *b, unsigned g, bool clock)
{
	struct gt_sync s;
	char err[GT_READER_ERR];
	cr_assert_eq(b->m, GT_NO_THREAD);
	cr_assert_eq(gt_sync_decode(b, &s, err), 0, "%s", err);
	cr_assert_eq(s.freq, FX_FREQ);
	cr_assert_eq(s.has_clock, clock);
	if (clock) {
		cr_assert_eq(s.clock.ts, FX_T(g));
		cr_assert_eq(s.clock.mono_ns, g * 10);
		cr_assert_eq(s.clock.wall_sec, 1700000000u + g);
		cr_assert_eq(s.clock.wall_nsec, g);
	} else {
		cr_assert_eq(b->base_ts, FX_T(g));
	}
}

static void check_events(const struct gt_rbatch *b, unsigned g)
{
	struct fx_event want[FX_NEVENTS];
	struct gt_event_cursor c;
	struct gt_event ev;
	fx_events(g, want);
	cr_assert_eq(b->m, FX_M);
	cr_assert_eq(b->base_ts, FX_T(g) + 10);
	gt_events_begin(&c, b);
	for (int i = 0; i < FX_NEVENTS; i++) {
		cr_assert_eq(gt_events_next(&c, &ev), 1, "%s", c.at.err);
		cr_assert_eq(ev.type, want[i].type, "event %d", i);
		cr_assert_eq(ev.ts, want[i].ts, "event %d", i);
		cr_assert_eq(ev.nargs, (int)want[i].nargs);
		cr_assert_arr_eq(ev.args, want[i].args, want[i].nargs * sizeof ev.args[0]);
		cr_assert(ev.offset >= b->data_offset && ev.offset < b->data_offset + b->len);
	}
	cr_assert_eq(gt_events_next(&c, &ev), 0);
	cr_assert_eq(gt_events_next(&c, &ev), 0);
}

static void check_experimental(const struct gt_rbatch *b)
{
	cr_assert_eq(b->exp, GT_EXP_ALLOCFREE);
	cr_assert_eq(b->m, GT_NO_THREAD);
	cr_assert_eq(b->len, 3);
	cr_assert_arr_eq(b->data, "\1xy", 3);
}

static void check_strings(const struct gt_rbatch *b)
{
	static const char *want[] = { "sync", "main", "main.c" };
	struct gt_string_cursor c;
	struct gt_string s;
	cr_assert_eq(gt_strings_begin(&c, b), 0, "%s", c.at.err);
	for (uint64_t i = 0; i < 3; i++) {
		cr_assert_eq(gt_strings_next(&c, &s), 1, "%s", c.at.err);
		cr_assert_eq(s.id, i + 1);
		cr_assert_eq(s.len, strlen(want[i]));
		cr_assert_arr_eq(s.data, want[i], s.len);
	}
	cr_assert_eq(gt_strings_next(&c, &s), 0);
}

static void check_stacks(const struct gt_rbatch *b, unsigned g)
{
	struct gt_stack_cursor c;
	static struct gt_stack s;
	cr_assert_eq(gt_stacks_begin(&c, b), 0, "%s", c.at.err);
	cr_assert_eq(gt_stacks_next(&c, &s), 1, "%s", c.at.err);
	cr_assert_eq(s.id, 1);
	cr_assert_eq(s.nframes, 1);
	cr_assert_eq(s.frames[0].pc, 0x401000);
	cr_assert_eq(s.frames[0].func, 2);
	cr_assert_eq(s.frames[0].file, 3);
	cr_assert_eq(s.frames[0].line, 42);
	cr_assert_eq(gt_stacks_next(&c, &s), 1, "%s", c.at.err);
	cr_assert_eq(s.id, 2);
	cr_assert_eq(s.nframes, 2);
	cr_assert_eq(s.frames[1].pc, 0x402000 + g);
	cr_assert_eq(s.frames[1].line, 7);
	cr_assert_eq(gt_stacks_next(&c, &s), 0);
}

static void check_cpu_samples(const struct gt_rbatch *b, unsigned g)
{
	struct gt_cpu_sample_cursor c;
	struct gt_cpu_sample s;
	cr_assert_eq(gt_cpu_samples_begin(&c, b), 0, "%s", c.at.err);
	for (uint64_t i = 0; i < 2; i++) {
		cr_assert_eq(gt_cpu_samples_next(&c, &s), 1, "%s", c.at.err);
		cr_assert_eq(s.time, FX_T(g) + 500 + i);
		cr_assert_eq(s.m, FX_M);
		cr_assert_eq(s.p, i ? GT_NO_THREAD : 0);
		cr_assert_eq(s.g, i);
		cr_assert_eq(s.stack, 2);
	}
	cr_assert_eq(gt_cpu_samples_next(&c, &s), 0);
}

/* round_trip reads back every batch of a fixture trace in file order. */
static void round_trip(int format, unsigned gens)
{
	FILE *f = open_trace(format, gens);
	struct gt_rbatch b;
	for (unsigned g = 1; g <= gens; g++) {
		next_batch(&b, GT_BATCH_SYNC, g);
		check_sync(&b, g, format >= GT_FORMAT_25);
		next_batch(&b, GT_BATCH_EVENTS, g);
		check_events(&b, g);
		next_batch(&b, GT_BATCH_EXPERIMENTAL, g);
		check_experimental(&b);
		next_batch(&b, GT_BATCH_STRINGS, g);
		check_strings(&b);
		next_batch(&b, GT_BATCH_STACKS, g);
		check_stacks(&b, g);
		if (g % 2) {
			next_batch(&b, GT_BATCH_CPU_SAMPLES, g);
			check_cpu_samples(&b, g);
		}
		if (format >= GT_FORMAT_26) {
			next_batch(&b, GT_BATCH_END_OF_GEN, g);
			cr_assert_eq(b.len, 0);
		}
	}
	cr_assert_eq(gt_reader_next(reader, &b), 0, "%s", reader->err);
	cr_assert_eq(gt_reader_next(reader, &b), 0);
	fclose(f);
}

TestSuite(reader, .init = setup, .fini = teardown);

Test(reader, round_trip_format_23) { round_trip(GT_FORMAT_23, 3); }
Test(reader, round_trip_format_26) { round_trip(GT_FORMAT_26, 3); }
Test(reader, round_trip_format_22) { round_trip(GT_FORMAT_22, 2); }
Test(reader, round_trip_format_25) { round_trip(GT_FORMAT_25, 2); }
Test(reader, round_trip_one_generation) { round_trip(GT_FORMAT_23, 1); }

Test(reader, header_only_is_an_empty_trace)
{
	uint8_t h[GT_HEADER_LEN];
	struct gt_rbatch b;
	gt_write_header(h, GT_FORMAT_26);
	FILE *f = fx_file(h, sizeof h);
	cr_assert_eq(gt_reader_init(reader, f), 0, "%s", reader->err);
	cr_assert_eq(gt_reader_next(reader, &b), 0, "%s", reader->err);
	fclose(f);
}

Test(reader, batch_offsets_tile_the_file)
{
	size_t n = fx_trace(GT_FORMAT_23, 2, trace, sizeof trace);
	FILE *f = fx_file(trace, n);
	struct gt_rbatch b;
	cr_assert_eq(gt_reader_init(reader, f), 0);
	uint64_t expect = GT_HEADER_LEN;
	while (gt_reader_next(reader, &b) == 1) {
		cr_assert_eq(b.offset, expect);
		cr_assert(trace[b.offset] == GT_EV_BATCH || trace[b.offset] == GT_EV_EXPERIMENTAL_BATCH);
		cr_assert_arr_eq(b.data, trace + b.data_offset, b.len);
		expect = b.data_offset + b.len;
	}
	cr_assert_eq(expect, n);
	fclose(f);
}

/* A full 64 KiB payload is the largest legal batch. */
Test(reader, largest_batch)
{
	static uint8_t big[GT_HEADER_LEN + 64 + GT_MAX_BATCH];
	size_t n = gt_write_header(big, GT_FORMAT_23);
	struct gt_batch w;
	gt_batch_begin(&w, big + n, sizeof big - n, 1, 1, 5);
	while (gt_batch_room(&w) > 0)
		gt_batch_event(&w, GT_EV_PROC_STOP, 6, 0, NULL); /* 2 bytes each */
	cr_assert_eq(gt_batch_payload(&w), GT_MAX_BATCH);
	n += gt_batch_finish(&w);

	FILE *f = fx_file(big, n);
	struct gt_rbatch b;
	struct gt_event_cursor c;
	struct gt_event ev;
	cr_assert_eq(gt_reader_init(reader, f), 0);
	cr_assert_eq(gt_reader_next(reader, &b), 1, "%s", reader->err);
	cr_assert_eq(b.len, GT_MAX_BATCH);
	gt_events_begin(&c, &b);
	unsigned count = 0;
	while (gt_events_next(&c, &ev) == 1) {
		cr_assert_eq(ev.ts, 6);
		count++;
	}
	cr_assert_eq(count, GT_MAX_BATCH / 2);
	cr_assert_str_empty(c.at.err);
	fclose(f);
}

Test(reader, ten_byte_padded_size_field)
{
	/* As the runtime writes it: size 4 in a 10-byte slot. */
	static const uint8_t t[] = {
		'g', 'o', ' ', '1', '.', '2', '3', ' ', 't', 'r', 'a', 'c', 'e', 0, 0, 0,
		0x01, 0x01, 0x02, 0x03, 0x84, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
		0x10, 0x05, 0x01, 0x01,
	};
	FILE *f = fx_file(t, sizeof t);
	struct gt_rbatch b;
	struct gt_event_cursor c;
	struct gt_event ev;
	cr_assert_eq(gt_reader_init(reader, f), 0);
	cr_assert_eq(gt_reader_next(reader, &b), 1, "%s", reader->err);
	cr_assert_eq(b.len, 4);
	gt_events_begin(&c, &b);
	cr_assert_eq(gt_events_next(&c, &ev), 1, "%s", c.at.err);
	cr_assert_eq(ev.type, GT_EV_GO_START);
	cr_assert_eq(ev.ts, 3 + 5);
	cr_assert_eq(ev.args[0], 1);
	cr_assert_eq(ev.args[1], 1);
	cr_assert_eq(gt_events_next(&c, &ev), 0);
	fclose(f);
}

Test(reader, empty_event_batch)
{
	uint8_t t[64];
	size_t n = gt_write_header(t, GT_FORMAT_23);
	struct gt_batch w;
	gt_batch_begin(&w, t + n, sizeof t - n, 1, 2, 3);
	n += gt_batch_finish(&w);
	FILE *f = fx_file(t, n);
	struct gt_rbatch b;
	struct gt_event_cursor c;
	struct gt_event ev;
	cr_assert_eq(gt_reader_init(reader, f), 0);
	cr_assert_eq(gt_reader_next(reader, &b), 1, "%s", reader->err);
	cr_assert_eq(b.kind, GT_BATCH_EVENTS);
	cr_assert_eq(b.len, 0);
	gt_events_begin(&c, &b);
	cr_assert_eq(gt_events_next(&c, &ev), 0);
	fclose(f);
}

/* The sync marker depends on the header: a Frequency-first batch in a 1.26
 * file is just an event batch (and then a broken one), like in Go. */
Test(reader, sync_kind_follows_version)
{
	uint8_t t[128];
	struct gt_clock_snapshot snap = { .ts = 100 };
	size_t n = gt_write_header(t, GT_FORMAT_26);
	n += gt_write_sync(t + n, GT_FORMAT_23, 1, 1000, &snap);
	t[n++] = GT_EV_END_OF_GENERATION;
	FILE *f = fx_file(t, n);
	struct gt_rbatch b;
	struct gt_event_cursor c;
	struct gt_event ev;
	cr_assert_eq(gt_reader_init(reader, f), 0);
	cr_assert_eq(gt_reader_next(reader, &b), 1);
	cr_assert_eq(b.kind, GT_BATCH_EVENTS);
	gt_events_begin(&c, &b);
	cr_assert_eq(gt_events_next(&c, &ev), -1);
	cr_assert(strstr(c.at.err, "without a timestamp: type=8"), "%s", c.at.err);
	fclose(f);
}
