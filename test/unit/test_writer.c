/* test_writer.c — byte-exact writer output: header, event batch, tables, sync, limits. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/writer.h"

#define NO_THREAD_BYTES 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01

#define expect_bytes(got, n, ...)                                                   \
	do {                                                                          \
		static const uint8_t want_[] = { __VA_ARGS__ };                       \
		cr_assert_eq((n), sizeof want_, "length %zu, want %zu", (size_t)(n),  \
			     sizeof want_);                                           \
		cr_assert_arr_eq((got), want_, sizeof want_);                         \
	} while (0)

Test(writer, header)
{
	uint8_t h[GT_HEADER_LEN];
	cr_assert_eq(gt_write_header(h, GT_FORMAT_23), 16);
	cr_assert_arr_eq(h, "go 1.23 trace\0\0\0", 16);
	cr_assert_eq(gt_write_header(h, GT_FORMAT_26), 16);
	cr_assert_arr_eq(h, "go 1.26 trace\0\0\0", 16);
	cr_assert_eq(gt_write_header(h, GT_FORMAT_22), 16);
	cr_assert_arr_eq(h, "go 1.22 trace\0\0\0", 16);
	cr_assert_eq(gt_write_header(h, 24), 0);
	cr_assert_eq(gt_write_header(h, 0), 0);
	cr_assert_eq(gt_write_header(h, 126), 0);
}

/* Format doc 2.10, with our 3-byte padded size field (14 = 8e 80 00). */
Test(writer, doc_example_event_batch)
{
	uint8_t mem[256];
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 1, 1001, 1000100);
	gt_batch_event(&b, GT_EV_PROC_STATUS, 1000101, 2, (uint64_t[]){ 0, GT_P_RUNNING });
	gt_batch_event(&b, GT_EV_GO_STATUS, 1000102, 3, (uint64_t[]){ 1, 1001, GT_G_RUNNING });
	gt_batch_event(&b, GT_EV_GO_BLOCK, 1000110, 2, (uint64_t[]){ 7, 3 });
	cr_assert_eq(gt_batch_payload(&b), 14);
	size_t n = gt_batch_finish(&b);
	expect_bytes(mem, n,
		     0x01, 0x01, 0xe9, 0x07, 0xa4, 0x85, 0x3d, 0x8e, 0x80, 0x00, /* header */
		     0x0d, 0x01, 0x00, 0x01,                                     /* ProcStatus */
		     0x19, 0x01, 0x01, 0xe9, 0x07, 0x02,                         /* GoStatus */
		     0x14, 0x08, 0x07, 0x03);                                    /* GoBlock */
}

Test(writer, earlier_time_is_written_as_dt_zero)
{
	uint8_t mem[128];
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 2, 5, 100);
	gt_batch_event(&b, GT_EV_PROC_STOP, 90, 0, NULL);
	gt_batch_event(&b, GT_EV_PROC_STOP, 105, 0, NULL);
	gt_batch_event(&b, GT_EV_PROC_STOP, 104, 0, NULL);
	gt_batch_event(&b, GT_EV_PROC_STOP, 106, 0, NULL);
	size_t n = gt_batch_finish(&b);
	expect_bytes(mem, n, 0x01, 0x02, 0x05, 0x64, 0x88, 0x80, 0x00,
		     0x0b, 0x00, 0x0b, 0x05, 0x0b, 0x00, 0x0b, 0x01);
}

/* Format doc 2.10, second part: the string batch, size 8 padded. */
Test(writer, doc_example_string_batch)
{
	uint8_t mem[128];
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 1, GT_NO_THREAD, 1000002);
	gt_batch_byte(&b, GT_EV_STRINGS);
	gt_batch_string(&b, 1, "main", 4);
	size_t n = gt_batch_finish(&b);
	expect_bytes(mem, n, 0x01, 0x01, NO_THREAD_BYTES, 0xc2, 0x84, 0x3d, 0x88, 0x80, 0x00,
		     0x04, 0x05, 0x01, 0x04, 'm', 'a', 'i', 'n');
}

/* Format doc 2.10, the one-frame stack table, size 11 padded. */
Test(writer, doc_example_stack_batch)
{
	uint8_t mem[128];
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 1, GT_NO_THREAD, 1000001);
	gt_batch_byte(&b, GT_EV_STACKS);
	struct gt_frame f = { .pc = 0x401000, .func = 1, .file = 2, .line = 40 };
	gt_batch_stack(&b, 1, &f, 1);
	size_t n = gt_batch_finish(&b);
	expect_bytes(mem, n, 0x01, 0x01, NO_THREAD_BYTES, 0xc1, 0x84, 0x3d, 0x8b, 0x80, 0x00,
		     0x02, 0x03, 0x01, 0x01, 0x80, 0xa0, 0x80, 0x02, 0x01, 0x02, 0x28);
}

Test(writer, stack_event_multiple_frames_leaf_first)
{
	uint8_t mem[128];
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 1, 1, 1);
	size_t start = b.len;
	struct gt_frame f[2] = { { 0x10, 3, 4, 5 }, { 0x200, 6, 7, 1000 } };
	gt_batch_stack(&b, 300, f, 2);
	expect_bytes(mem + start, b.len - start, 0x03, 0xac, 0x02, 0x02, 0x10, 0x03, 0x04, 0x05,
		     0x80, 0x04, 0x06, 0x07, 0xe8, 0x07);
}

Test(writer, stack_over_128_frames_keeps_the_leaf_128)
{
	static uint8_t mem[GT_STACK_EVENT_MAX(GT_MAX_FRAMES) + 64];
	struct gt_frame f[GT_MAX_FRAMES + 3];
	for (size_t i = 0; i < GT_MAX_FRAMES + 3; i++)
		f[i] = (struct gt_frame){ .pc = i + 1, .func = 1, .file = 1, .line = 1 };
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 1, 1, 1);
	size_t start = b.len;
	gt_batch_stack(&b, 1, f, GT_MAX_FRAMES + 3);
	/* 03 id n=128 (80 01), then 128 frames of 4 one-byte values
	 * (pc 128 takes two bytes). */
	cr_assert_eq(mem[start + 2], 0x80);
	cr_assert_eq(mem[start + 3], 0x01);
	cr_assert_eq(mem[start + 4], 0x01); /* leaf pc */
	cr_assert_eq(b.len - start, 4 + 128 * 4 + 1);
}

Test(writer, string_1025_bytes_is_cut_to_1024)
{
	static uint8_t mem[2048];
	char s[1025];
	for (size_t i = 0; i < sizeof s; i++)
		s[i] = (char)('a' + i % 26);
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 1, GT_NO_THREAD, 1);
	size_t start = b.len;
	gt_batch_string(&b, 9, s, sizeof s);
	/* 05 09 uv(1024)=80 08, then the first 1024 bytes. */
	cr_assert_eq(b.len - start, 4 + 1024);
	cr_assert_arr_eq(mem + start, ((uint8_t[]){ 0x05, 0x09, 0x80, 0x08 }), 4);
	cr_assert_arr_eq(mem + start + 4, s, 1024);
	cr_assert(b.len - start <= GT_STRING_EVENT_MAX);
}

Test(writer, string_of_exactly_1024_and_empty)
{
	static uint8_t mem[2048];
	char s[1024];
	memset(s, 'x', sizeof s);
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 1, GT_NO_THREAD, 1);
	size_t start = b.len;
	gt_batch_string(&b, 1, s, sizeof s);
	cr_assert_eq(b.len - start, 4 + 1024);
	start = b.len;
	gt_batch_string(&b, 2, "", 0);
	expect_bytes(mem + start, b.len - start, 0x05, 0x02, 0x00);
}

/* Format doc 2.7, 1.23 flavour. */
Test(writer, sync_batch_format_23)
{
	uint8_t out[GT_SYNC_MAX];
	struct gt_clock_snapshot snap = { .ts = 1000000 };
	size_t n = gt_write_sync(out, GT_FORMAT_23, 1, 1000000000, &snap);
	expect_bytes(out, n, 0x01, 0x01, NO_THREAD_BYTES, 0xc0, 0x84, 0x3d, 0x06,
		     0x08, 0x80, 0x94, 0xeb, 0xdc, 0x03);
}

/* Format doc 2.7, 1.25+ flavour: base 999999, snapshot one tick later. */
Test(writer, sync_batch_format_26)
{
	uint8_t out[GT_SYNC_MAX];
	struct gt_clock_snapshot snap = {
		.ts = 1000000, .mono_ns = 123456789, .wall_sec = 1700000000, .wall_nsec = 5,
	};
	size_t n = gt_write_sync(out, GT_FORMAT_26, 1, 1000000000, &snap);
	expect_bytes(out, n, 0x01, 0x01, NO_THREAD_BYTES, 0xbf, 0x84, 0x3d, 0x13,
		     0x32, 0x08, 0x80, 0x94, 0xeb, 0xdc, 0x03,
		     0x33, 0x01, 0x95, 0x9a, 0xef, 0x3a, 0x80, 0xe2, 0xcf, 0xaa, 0x06, 0x05);
}

Test(writer, sync_batch_rejects_bad_input)
{
	uint8_t out[GT_SYNC_MAX];
	struct gt_clock_snapshot snap = { .ts = 5 };
	cr_assert_eq(gt_write_sync(out, 24, 1, 1, &snap), 0);
	cr_assert_eq(gt_write_sync(out, GT_FORMAT_23, 1, 1, NULL), 0);
}

Test(writer, sync_batch_never_exceeds_its_max)
{
	uint8_t out[GT_SYNC_MAX + 32];
	memset(out, 0xee, sizeof out);
	/* Large but real: gen 2^32, 63-bit clocks, wall time in 2500. */
	struct gt_clock_snapshot big = { INT64_MAX, INT64_MAX, UINT64_C(1) << 34, 999999999 };
	size_t n = gt_write_sync(out, GT_FORMAT_26, UINT64_C(1) << 32, 1000000000, &big);
	cr_assert(n > 50 && n <= GT_SYNC_MAX, "n=%zu", n);
	/* Absurd: would need 85 bytes; writes nothing instead. */
	memset(out, 0xee, sizeof out);
	struct gt_clock_snapshot max = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	cr_assert_eq(gt_write_sync(out, GT_FORMAT_26, UINT64_MAX, UINT64_MAX, &max), 0);
	for (size_t i = 0; i < sizeof out; i++)
		cr_assert_eq(out[i], 0xee);
}

Test(writer, experimental_batch_header)
{
	uint8_t mem[64];
	struct gt_batch b;
	gt_batch_begin_exp(&b, mem, sizeof mem, GT_EXP_ALLOCFREE, 3, GT_NO_THREAD, 1000);
	gt_batch_byte(&b, GT_ALLOCFREE_INFO);
	gt_batch_bytes(&b, "ab", 2);
	size_t n = gt_batch_finish(&b);
	expect_bytes(mem, n, 0x31, 0x01, 0x03, NO_THREAD_BYTES, 0xe8, 0x07, 0x83, 0x80, 0x00,
		     0x01, 'a', 'b');
}

/* Fill a batch with worst-case events as the hot path would: reserve
 * GT_EVENT_MAX, write, repeat. The payload must never pass 65536. */
Test(writer, room_never_lets_payload_exceed_max)
{
	size_t cap = 2 * GT_MAX_BATCH;
	uint8_t *mem = malloc(cap);
	cr_assert_not_null(mem);
	uint64_t args[GT_MAX_ARGS] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };
	struct gt_batch b;
	gt_batch_begin(&b, mem, cap, UINT64_MAX, GT_NO_THREAD, 1);
	uint64_t ts = 1;
	size_t events = 0;
	while (gt_batch_room(&b) >= GT_EVENT_MAX(GT_MAX_ARGS)) {
		ts += UINT64_C(1) << 62; /* wraps: some dts are 10 bytes, some 0 */
		gt_batch_event(&b, GT_EV_USER_LOG, ts, GT_MAX_ARGS, args);
		events++;
		cr_assert_leq(gt_batch_payload(&b), GT_MAX_BATCH);
	}
	cr_assert_gt(events, 1000);
	cr_assert_gt(gt_batch_payload(&b), GT_MAX_BATCH - GT_EVENT_MAX(GT_MAX_ARGS));
	size_t n = gt_batch_finish(&b);
	cr_assert_leq(n, GT_MAX_BATCH + 40);
	free(mem);
}

Test(writer, room_respects_small_cap)
{
	uint8_t mem[100];
	struct gt_batch b;
	gt_batch_begin(&b, mem, sizeof mem, 1, 1, 1);
	/* 01 01 01 01 + 3 size bytes. */
	cr_assert_eq(b.len, 7);
	cr_assert_eq(gt_batch_room(&b), 93);
	gt_batch_event(&b, GT_EV_PROC_STOP, 2, 0, NULL);
	cr_assert_eq(gt_batch_room(&b), 91);
}
