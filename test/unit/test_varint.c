/* test_varint.c — uvarint encoding and decoding: edge values, padding, overflow. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "encoder/varint.h"
#include "encoder/writer.h"

struct edge {
	uint64_t v;
	size_t len;
	uint8_t bytes[10];
};

static const struct edge edges[] = {
	{ 0, 1, { 0x00 } },
	{ 1, 1, { 0x01 } },
	{ 127, 1, { 0x7f } },
	{ 128, 2, { 0x80, 0x01 } },
	{ 300, 2, { 0xac, 0x02 } },
	{ 16383, 2, { 0xff, 0x7f } },
	{ 16384, 3, { 0x80, 0x80, 0x01 } },
	{ 1000000, 3, { 0xc0, 0x84, 0x3d } },
	{ 1000000000, 5, { 0x80, 0x94, 0xeb, 0xdc, 0x03 } },
	{ UINT64_C(1) << 63, 10, { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 } },
	{ UINT64_MAX, 10, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
};

Test(varint, encodes_edge_values)
{
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
		uint8_t out[16];
		memset(out, 0xee, sizeof out);
		size_t n = gt_put_uvarint(out, edges[i].v);
		cr_assert_eq(n, edges[i].len, "value %llu: length %zu", (unsigned long long)edges[i].v, n);
		cr_assert_arr_eq(out, edges[i].bytes, n, "value %llu", (unsigned long long)edges[i].v);
		cr_assert_eq(out[n], 0xee, "wrote past the end");
	}
}

Test(varint, decodes_edge_values)
{
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
		uint64_t v = 42;
		int n = gt_get_uvarint(edges[i].bytes, edges[i].len, &v);
		cr_assert_eq(n, (int)edges[i].len);
		cr_assert_eq(v, edges[i].v);
	}
}

Test(varint, no_thread_is_ten_bytes)
{
	uint8_t out[10];
	cr_assert_eq(gt_put_uvarint(out, GT_NO_THREAD), 10);
	cr_assert_eq(out[9], 0x01);
}

Test(varint, padded_encodings)
{
	uint8_t out[10];
	gt_put_uvarint_padded(out, 100, 3);
	cr_assert_arr_eq(out, ((uint8_t[]){ 0xe4, 0x80, 0x00 }), 3);
	gt_put_uvarint_padded(out, 14, GT_BATCH_SIZE_WIDTH);
	cr_assert_arr_eq(out, ((uint8_t[]){ 0x8e, 0x80, 0x00 }), 3);
	gt_put_uvarint_padded(out, GT_MAX_BATCH, GT_BATCH_SIZE_WIDTH);
	cr_assert_arr_eq(out, ((uint8_t[]){ 0x80, 0x80, 0x04 }), 3);
	gt_put_uvarint_padded(out, (1u << 21) - 1, 3);
	cr_assert_arr_eq(out, ((uint8_t[]){ 0xff, 0xff, 0x7f }), 3);
	gt_put_uvarint_padded(out, 0, 1);
	cr_assert_eq(out[0], 0x00);
	gt_put_uvarint_padded(out, 5, 10); /* the runtime's 10-byte slot */
	cr_assert_arr_eq(out, ((uint8_t[]){ 0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }), 10);
}

Test(varint, decodes_padded_encodings)
{
	uint64_t v;
	cr_assert_eq(gt_get_uvarint((uint8_t[]){ 0xe4, 0x80, 0x00 }, 3, &v), 3);
	cr_assert_eq(v, 100);
	uint8_t ten[10];
	gt_put_uvarint_padded(ten, 65536, 10);
	cr_assert_eq(gt_get_uvarint(ten, 10, &v), 10);
	cr_assert_eq(v, 65536);
	/* Zero padded to the limit is still legal. */
	uint8_t zero[10] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	cr_assert_eq(gt_get_uvarint(zero, 10, &v), 10);
	cr_assert_eq(v, 0);
}

Test(varint, stops_at_the_first_final_byte)
{
	uint64_t v;
	cr_assert_eq(gt_get_uvarint((uint8_t[]){ 0x05, 0xff, 0xff }, 3, &v), 1);
	cr_assert_eq(v, 5);
}

Test(varint, short_input)
{
	uint64_t v;
	cr_assert_eq(gt_get_uvarint(NULL, 0, &v), GT_UVARINT_SHORT);
	cr_assert_eq(gt_get_uvarint((uint8_t[]){ 0x80 }, 1, &v), GT_UVARINT_SHORT);
	for (size_t n = 0; n < 10; n++)
		cr_assert_eq(gt_get_uvarint(edges[10].bytes, n, &v), GT_UVARINT_SHORT, "n=%zu", n);
}

Test(varint, overflow)
{
	uint64_t v;
	/* 10th byte above 1: more than 64 bits. */
	uint8_t big[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	cr_assert_eq(gt_get_uvarint(big, 10, &v), GT_UVARINT_OVERFLOW);
	/* Eleven bytes, even if the value would fit. */
	uint8_t eleven[11] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	cr_assert_eq(gt_get_uvarint(eleven, 11, &v), GT_UVARINT_OVERFLOW);
	/* Never reads beyond 10 bytes. */
	uint8_t ff[32];
	memset(ff, 0xff, sizeof ff);
	cr_assert_eq(gt_get_uvarint(ff, sizeof ff, &v), GT_UVARINT_OVERFLOW);
}

Test(varint, byte_at_a_time_matches)
{
	uint64_t acc = 0;
	int more = 1;
	for (unsigned i = 0; more == 1; i++)
		more = gt_uvarint_step(&acc, i, edges[9].bytes[i]);
	cr_assert_eq(more, 0);
	cr_assert_eq(acc, UINT64_C(1) << 63);
	for (unsigned i = 0; i < 9; i++)
		cr_assert_eq(gt_uvarint_step(&acc, i, 0xff), 1);
	cr_assert_eq(gt_uvarint_step(&acc, 9, 0x02), GT_UVARINT_OVERFLOW);
}

Test(varint, round_trip_every_bit_width)
{
	for (unsigned bit = 0; bit < 64; bit++) {
		uint64_t vals[] = { UINT64_C(1) << bit, (UINT64_C(1) << bit) - 1,
				    (UINT64_C(1) << bit) | 0x5555555555555555u >> (63 - bit) };
		for (size_t k = 0; k < 3; k++) {
			uint8_t buf[10];
			uint64_t v;
			size_t n = gt_put_uvarint(buf, vals[k]);
			cr_assert_eq(gt_get_uvarint(buf, n, &v), (int)n);
			cr_assert_eq(v, vals[k]);
			/* Minimal: one byte per started group of 7 bits. */
			size_t bits = 1;
			while (bits < 64 && (vals[k] >> bits))
				bits++;
			cr_assert_eq(n, (bits + 6) / 7);
		}
	}
}
