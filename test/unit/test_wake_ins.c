/* test_wake_ins.c — a chunk with woken waiters' GoUnblocks attached is
 * written as several batches of its M, each event keeping its time
 * (core/wake_ins.h). Decoded here by hand: header, then timed events. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "core/chunk.h"
#include "core/gen_out.h"
#include "core/wake_ins.h"
#include "encoder/varint.h"
#include "encoder/writer.h"

struct dec_ev {
	uint64_t batch, m, type, ts, a0, a1, a2;
};

static uint64_t uv(const uint8_t *p, size_t *at, size_t end)
{
	uint64_t v = 0;
	int n = gt_get_uvarint(p + *at, end - *at, &v);
	cr_assert_gt(n, 0, "a uvarint at %zu", *at);
	*at += (size_t)n;
	return v;
}

/* decode: every batch of buf (EventBatch only), events with 2 or 3 args
 * (GoStart: g, seq; GoUnblock: g, seq, stack). Returns the event count. */
static size_t decode(const uint8_t *buf, size_t len, struct dec_ev *out, size_t max, size_t *batches)
{
	size_t at = 0, n = 0;
	*batches = 0;
	while (at < len) {
		cr_assert_eq(buf[at], GT_EV_BATCH);
		at++;
		uint64_t gen = uv(buf, &at, len);
		cr_assert_eq(gen, 3);
		uint64_t m = uv(buf, &at, len);
		uint64_t ts = uv(buf, &at, len);
		uint64_t size = uv(buf, &at, len);
		size_t end = at + size;
		cr_assert_leq(end, len);
		while (at < end) {
			cr_assert_lt(n, max);
			struct dec_ev *e = &out[n++];
			e->batch = *batches;
			e->m = m;
			e->type = buf[at++];
			ts += uv(buf, &at, end);
			e->ts = ts;
			e->a0 = uv(buf, &at, end);
			e->a1 = uv(buf, &at, end);
			e->a2 = e->type == GT_EV_GO_UNBLOCK ? uv(buf, &at, end) : 0;
		}
		(*batches)++;
	}
	return n;
}

static void push(struct gt_chunk *c, struct gt_wake_ins *n)
{
	n->next = atomic_load(&c->ins);
	atomic_store(&c->ins, n);
}

Test(wake_ins, split_around_insertions)
{
	struct gt_chunk *c = gt_chunk_get();
	cr_assert_not_null(c);
	c->gen = 3;
	gt_batch_begin(&c->b, c->data, GT_CHUNK_DATA, 3, 7, 1000);
	uint64_t a[2] = { 1, 1 };
	gt_batch_event(&c->b, GT_EV_GO_START, 1010, 2, a);
	a[1] = 2;
	gt_batch_event(&c->b, GT_EV_GO_START, 1020, 2, a);
	/* the releaser's mark: here, last event at 1020 */
	uint32_t off = (uint32_t)c->b.len;
	uint64_t last = c->b.last_ts;
	a[1] = 3;
	gt_batch_event(&c->b, GT_EV_GO_START, 1030, 2, a);
	a[1] = 4;
	gt_batch_event(&c->b, GT_EV_GO_START, 1040, 2, a);
	/* a broadcast: two waiters attach at the mark, out of order */
	struct gt_wake_ins x = { .off = off, .last_ts = last, .ts = 1026, .g = 9, .seq = 5, .stk = 4 };
	struct gt_wake_ins y = { .off = off, .last_ts = last, .ts = 1025, .g = 8, .seq = 7, .stk = 4 };
	/* and one at the very start of the chunk (the releaser's first mark) */
	struct gt_wake_ins z = { .off = (uint32_t)(c->b.size_at + GT_BATCH_SIZE_WIDTH), .last_ts = 1000,
				 .ts = 1001, .g = 10, .seq = 2, .stk = 6 };
	push(c, &x);
	push(c, &z);
	push(c, &y);

	struct gt_gen_out o = { 0 };
	gt_wake_ins_write(c, &o);
	static uint8_t buf[4096];
	size_t len = 0;
	for (int i = 0; i < o.n; i++) {
		memcpy(buf + len, o.iov[i].iov_base, o.iov[i].iov_len);
		len += o.iov[i].iov_len;
	}
	struct dec_ev ev[16];
	size_t batches;
	size_t n = decode(buf, len, ev, 16, &batches);
	cr_assert_eq(batches, 4, "[z] [start start] [y x] [start start]: %zu batches", batches);
	cr_assert_eq(n, 7);
	static const struct {
		uint64_t type, ts, g, seq;
	} want[] = {
		{ GT_EV_GO_UNBLOCK, 1001, 10, 2 }, { GT_EV_GO_START, 1010, 1, 1 }, { GT_EV_GO_START, 1020, 1, 2 },
		{ GT_EV_GO_UNBLOCK, 1025, 8, 7 },  { GT_EV_GO_UNBLOCK, 1026, 9, 5 }, { GT_EV_GO_START, 1030, 1, 3 },
		{ GT_EV_GO_START, 1040, 1, 4 },
	};
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(ev[i].m, 7, "event %zu on M %llu", i, (unsigned long long)ev[i].m);
		cr_assert_eq(ev[i].type, want[i].type, "event %zu", i);
		cr_assert_eq(ev[i].ts, want[i].ts, "event %zu at %llu, want %llu", i, (unsigned long long)ev[i].ts,
			     (unsigned long long)want[i].ts);
		cr_assert_eq(ev[i].a0, want[i].g, "event %zu", i);
		cr_assert_eq(ev[i].a1, want[i].seq, "event %zu", i);
	}
	cr_assert_null(atomic_load(&c->ins), "the list is taken");
	gt_gen_free_all();
	gt_chunk_put(c);
}

Test(wake_ins, no_insertion_is_the_chunk_as_is)
{
	struct gt_chunk *c = gt_chunk_get();
	cr_assert_not_null(c);
	c->gen = 3;
	gt_batch_begin(&c->b, c->data, GT_CHUNK_DATA, 3, 7, 1000);
	uint64_t a[2] = { 1, 1 };
	gt_batch_event(&c->b, GT_EV_GO_START, 1010, 2, a);
	struct gt_gen_out o = { 0 };
	gt_wake_ins_write(c, &o);
	cr_assert_eq(o.n, 1);
	cr_assert_eq(o.iov[0].iov_base, (void *)c->b.mem);
	cr_assert_eq(o.iov[0].iov_len, c->b.len);
	gt_gen_free_all();
	gt_chunk_put(c);
}
