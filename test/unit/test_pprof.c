/* test_pprof.c — the protobuf/pprof encoder (golden bytes), gzip, and the
 * heap profile of `gotrace heap` decoded back field by field. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "test_heap_fixture.h"
#include "tools/gzip.h"
#include "tools/heap_report.h"
#include "tools/pprof.h"

static void check_bytes(const struct tool_pb *b, const uint8_t *want, size_t n)
{
	cr_assert(!b->failed);
	cr_assert_eq(b->len, n, "length %zu, want %zu", b->len, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(b->buf[i], want[i], "byte %zu: %02x, want %02x", i, b->buf[i], want[i]);
}

Test(pprof, protobuf_fields_golden)
{
	struct tool_pb b;
	tool_pb_init(&b);
	tool_pb_uint(&b, 1, 150);           /* 08 96 01 */
	tool_pb_uint(&b, 3, 0);             /* left out */
	tool_pb_bytes(&b, 2, "testing", 7); /* 12 07 "testing" */
	uint64_t v[] = { 3, 270, 86942 };
	tool_pb_packed(&b, 4, v, 3);        /* 22 06 03 8e 02 9e a7 05 */
	tool_pb_packed(&b, 5, v, 0);        /* left out */
	tool_pb_int(&b, 6, -1);             /* 30 ff ff ff ff ff ff ff ff ff 01 */
	tool_pb_bytes(&b, 7, "", 0);        /* 3a 00 */
	tool_pb_varint(&b, UINT64_MAX);
	static const uint8_t want[] = {
		0x08, 0x96, 0x01,
		0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
		0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05,
		0x30, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
		0x3a, 0x00,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
	};
	check_bytes(&b, want, sizeof want);
	tool_pb_free(&b);
}

Test(pprof, small_profile_golden)
{
	struct tool_pprof p;
	tool_pprof_init(&p);                                 /* string 0: 32 00 */
	int64_t a = tool_pprof_cstring(&p, "a");             /* 32 01 61 */
	int64_t b = tool_pprof_cstring(&p, "b");             /* 32 01 62 */
	cr_assert_eq(a, 1);
	cr_assert_eq(b, 2);
	tool_pprof_sample_type(&p, a, b);                    /* 0a 04 08 01 10 02 */
	tool_pprof_function(&p, 1, a, a, b, 0);              /* 2a 08 08 01 10 01 18 01 20 02 */
	tool_pprof_location(&p, 1, 0, 0x1000, 1, 42);        /* 22 0b 08 01 18 80 20 22 04 08 01 10 2a */
	uint64_t loc = 1;
	int64_t val = 7;
	struct tool_pprof_label l = { .key = a, .num = 48 };
	tool_pprof_sample(&p, &loc, 1, &val, 1, &l, 1);      /* 12 0a 0a 01 01 12 01 07 1a 04 08 01 18 30 */
	tool_pprof_default_sample_type(&p, a);               /* 70 01 */
	tool_pprof_period(&p, a, b, 1);                      /* 5a 04 08 01 10 02 60 01 */
	tool_pprof_mapping(&p, 1, 0, 0x10, b);               /* 1a 0c 08 01 18 10 28 02 38 01 40 01 48 01 50 01 */
	static const uint8_t want[] = {
		0x32, 0x00,
		0x32, 0x01, 'a',
		0x32, 0x01, 'b',
		0x0a, 0x04, 0x08, 0x01, 0x10, 0x02,
		0x2a, 0x08, 0x08, 0x01, 0x10, 0x01, 0x18, 0x01, 0x20, 0x02,
		0x22, 0x0b, 0x08, 0x01, 0x18, 0x80, 0x20, 0x22, 0x04, 0x08, 0x01, 0x10, 0x2a,
		0x12, 0x0c, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x07, 0x1a, 0x04, 0x08, 0x01, 0x18, 0x30,
		0x70, 0x01,
		0x5a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x60, 0x01,
		0x1a, 0x0e, 0x08, 0x01, 0x18, 0x10, 0x28, 0x02, 0x38, 0x01, 0x40, 0x01, 0x48, 0x01, 0x50, 0x01,
	};
	check_bytes(&p.out, want, sizeof want);
	tool_pprof_free(&p);
}

Test(pprof, gzip_round_trip)
{
	enum { N = 300000 };
	uint8_t *in = malloc(N), *back = malloc(N + 1);
	cr_assert(in && back);
	for (size_t i = 0; i < N; i++)
		in[i] = (uint8_t)(i * 7 + i / 1000);
	for (size_t n = 0; n <= N; n += N / 3) {
		uint8_t *gz;
		size_t len;
		cr_assert_eq(tool_gzip(in, n, &gz, &len), 0);
		cr_assert_geq(len, 18);
		cr_assert_eq(gz[0], 0x1f); /* gzip magic */
		cr_assert_eq(gz[1], 0x8b);
		z_stream z;
		memset(&z, 0, sizeof z);
		cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
		z.next_in = gz;
		z.avail_in = (uInt)len;
		z.next_out = back;
		z.avail_out = N + 1;
		cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
		cr_assert_eq(z.total_out, n);
		cr_assert_eq(memcmp(in, back, n), 0);
		inflateEnd(&z);
		free(gz);
	}
	free(in);
	free(back);
}

/* ---- a small protobuf decoder, to read the heap profile back ---- */

struct field {
	unsigned num, wire;
	uint64_t v;            /* varint */
	const uint8_t *p;      /* length-delimited */
	size_t len;
};

static uint64_t uvarint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (unsigned s = 0; s < 70; s += 7) {
		cr_assert_lt(*p, end, "varint runs past the end");
		uint8_t c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	cr_assert_fail("varint longer than 10 bytes");
	return 0;
}

/* next_field reads one field of the message [*p, end); 0 at the end. */
static int next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
	if (*p == end)
		return 0;
	uint64_t key = uvarint(p, end);
	f->num = (unsigned)(key >> 3);
	f->wire = (unsigned)(key & 7);
	cr_assert_gt(f->num, 0);
	if (f->wire == 0) {
		f->v = uvarint(p, end);
	} else {
		cr_assert_eq(f->wire, 2, "wire type %u", f->wire);
		f->len = (size_t)uvarint(p, end);
		cr_assert_leq(f->len, (size_t)(end - *p));
		f->p = *p;
		*p += f->len;
	}
	return 1;
}

struct prof {
	char *strings[256];
	size_t nstrings;
	struct { int64_t type, unit; } types[8];
	size_t ntypes;
	int64_t default_type, period, period_type;
	int64_t comment[4];
	size_t ncomments;
	size_t nsamples, nlocations, nfunctions, nmappings;
	/* samples: leaf function name, values */
	struct { uint64_t loc[8]; size_t nloc; int64_t val[4]; size_t nval; int64_t alloc_label; int64_t bytes_label; } s[16];
	struct { uint64_t id, fn, addr, mapping; int64_t line; } loc[32];
	struct { uint64_t id; int64_t name, file; } fn[32];
};

static void decode_profile(const uint8_t *buf, size_t len, struct prof *pr)
{
	memset(pr, 0, sizeof *pr);
	const uint8_t *p = buf, *end = buf + len;
	struct field f, g, h;
	while (next_field(&p, end, &f)) {
		const uint8_t *q = f.p, *qend = f.p + f.len;
		switch (f.num) {
		case 6:
			cr_assert_lt(pr->nstrings, 256);
			pr->strings[pr->nstrings] = strndup((const char *)f.p, f.len);
			pr->nstrings++;
			break;
		case 1: case 11: {
			int64_t t = 0, u = 0;
			while (next_field(&q, qend, &g))
				if (g.num == 1) t = (int64_t)g.v; else if (g.num == 2) u = (int64_t)g.v;
			if (f.num == 1) {
				pr->types[pr->ntypes].type = t;
				pr->types[pr->ntypes++].unit = u;
			} else {
				pr->period_type = t;
			}
			break;
		}
		case 12: pr->period = (int64_t)f.v; break;
		case 13:
			cr_assert_lt(pr->ncomments, 4);
			pr->comment[pr->ncomments++] = (int64_t)f.v;
			break;
		case 14: pr->default_type = (int64_t)f.v; break;
		case 3: pr->nmappings++; break;
		case 2: {
			cr_assert_lt(pr->nsamples, 16);
			typeof(pr->s[0]) *s = &pr->s[pr->nsamples++];
			while (next_field(&q, qend, &g)) {
				const uint8_t *r = g.p, *rend = g.p + g.len;
				if (g.num == 1) {
					while (r < rend) s->loc[s->nloc++] = uvarint(&r, rend);
				} else if (g.num == 2) {
					while (r < rend) s->val[s->nval++] = (int64_t)uvarint(&r, rend);
				} else if (g.num == 3) {
					int64_t key = 0, str = 0, num = 0;
					while (next_field(&r, rend, &h))
						if (h.num == 1) key = (int64_t)h.v; else if (h.num == 2) str = (int64_t)h.v; else if (h.num == 3) num = (int64_t)h.v;
					if (key && strcmp(pr->strings[key], "allocator") == 0) s->alloc_label = str;
					if (key && strcmp(pr->strings[key], "bytes") == 0) s->bytes_label = num;
				}
			}
			break;
		}
		case 4: {
			cr_assert_lt(pr->nlocations, 32);
			typeof(pr->loc[0]) *l = &pr->loc[pr->nlocations++];
			while (next_field(&q, qend, &g)) {
				if (g.num == 1) l->id = g.v;
				else if (g.num == 2) l->mapping = g.v;
				else if (g.num == 3) l->addr = g.v;
				else if (g.num == 4) {
					const uint8_t *r = g.p, *rend = g.p + g.len;
					while (next_field(&r, rend, &h))
						if (h.num == 1) l->fn = h.v; else if (h.num == 2) l->line = (int64_t)h.v;
				}
			}
			break;
		}
		case 5: {
			cr_assert_lt(pr->nfunctions, 32);
			typeof(pr->fn[0]) *fn = &pr->fn[pr->nfunctions++];
			while (next_field(&q, qend, &g))
				if (g.num == 1) fn->id = g.v; else if (g.num == 2) fn->name = (int64_t)g.v; else if (g.num == 4) fn->file = (int64_t)g.v;
			break;
		}
		default: break;
		}
	}
}

static const char *fn_name_of_loc(const struct prof *pr, uint64_t loc)
{
	for (size_t i = 0; i < pr->nlocations; i++)
		if (pr->loc[i].id == loc)
			for (size_t j = 0; j < pr->nfunctions; j++)
				if (pr->fn[j].id == pr->loc[i].fn)
					return pr->strings[pr->fn[j].name];
	return NULL;
}

static uint8_t mem[1 << 16];

/* heap_trace: generation 1 leaks 3 x 48 bytes at leak_fn and allocates and
 * frees 5 x 32 bytes at churn_fn, both called from main. */
static size_t heap_trace_with(const char *statement)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, 1000);
	static const char *const names[] = { "malloc", "leak_fn", "churn_fn", "main", "heap.c", "malloc.c" };
	hx_strings(&t, 1, 1, names, 6);
	if (statement)
		hx_strings(&t, 1, 7, &statement, 1);
	struct gt_frame leak[3] = { { 0x1000, 1, 6, 100 }, { 0x2000, 2, 5, 20 }, { 0x3000, 4, 5, 50 } };
	struct gt_frame churn[3] = { { 0x1000, 1, 6, 100 }, { 0x2100, 3, 5, 30 }, { 0x3100, 4, 5, 51 } };
	hx_stack(&t, 1, 1, leak, 3);
	hx_stack(&t, 1, 2, churn, 3);
	hx_info(&t, 1, 0, 8);
	struct hx_type ty[2] = { { 1, 1, 48 }, { 2, 2, 32 } };
	hx_types(&t, 1, ty, 2);
	struct hx_ev ev[16];
	size_t n = 0;
	for (unsigned i = 0; i < 3; i++)
		ev[n++] = (struct hx_ev){ GT_EV_HEAP_OBJECT_ALLOC, 2000 + i, 10 + i, 1 };
	for (unsigned i = 0; i < 5; i++) {
		ev[n++] = (struct hx_ev){ GT_EV_HEAP_OBJECT_ALLOC, 3000 + 2 * i, 20, 2 };
		ev[n++] = (struct hx_ev){ GT_EV_HEAP_OBJECT_FREE, 3001 + 2 * i, 20, 0 };
	}
	hx_events(&t, 1, 1, ev, n);
	cr_assert(!t.full);
	return t.len;
}

static size_t heap_trace(void)
{
	return heap_trace_with(NULL);
}

Test(pprof, heap_profile_decodes)
{
	struct tool_heap *h = malloc(sizeof *h);
	cr_assert_eq(tool_heap_init(h), 0);
	struct hx t = { .buf = mem, .len = heap_trace() };
	FILE *f = hx_file(&t);
	cr_assert_eq(tool_heap_read(h, f), 0, "%s", h->err);
	fclose(f);

	struct tool_pprof p;
	cr_assert_eq(tool_heap_pprof(h, "x.trace", &p), 0);
	struct prof *pr = calloc(1, sizeof *pr);
	decode_profile(p.out.buf, p.out.len, pr);

	cr_assert_str_eq(pr->strings[0], "");
	static const char *const types[4][2] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
	};
	cr_assert_eq(pr->ntypes, 4);
	for (int i = 0; i < 4; i++) {
		cr_assert_str_eq(pr->strings[pr->types[i].type], types[i][0]);
		cr_assert_str_eq(pr->strings[pr->types[i].unit], types[i][1]);
	}
	cr_assert_str_eq(pr->strings[pr->default_type], "inuse_space");
	cr_assert_str_eq(pr->strings[pr->period_type], "space");
	cr_assert_eq(pr->period, 1);
	cr_assert_eq(pr->nmappings, 1);
	cr_assert_eq(pr->ncomments, 1);
	cr_assert_str_eq(pr->strings[pr->comment[0]], "gotrace heap: every allocation of the trace, requested sizes");

	/* One sample per site, malloc left out: leak_fn <- main, churn_fn <- main. */
	cr_assert_eq(pr->nsamples, 2);
	int seen = 0;
	for (size_t i = 0; i < pr->nsamples; i++) {
		const typeof(pr->s[0]) *s = &pr->s[i];
		cr_assert_eq(s->nloc, 2);
		cr_assert_eq(s->nval, 4);
		cr_assert_str_eq(fn_name_of_loc(pr, s->loc[1]), "main");
		cr_assert_str_eq(pr->strings[s->alloc_label], "malloc");
		const char *leaf = fn_name_of_loc(pr, s->loc[0]);
		if (strcmp(leaf, "leak_fn") == 0) {
			int64_t want[4] = { 3, 144, 3, 144 };
			cr_assert_arr_eq(s->val, want, sizeof want);
			cr_assert_eq(s->bytes_label, 48);
			seen |= 1;
		} else {
			cr_assert_str_eq(leaf, "churn_fn");
			int64_t want[4] = { 5, 160, 0, 0 };
			cr_assert_arr_eq(s->val, want, sizeof want);
			cr_assert_eq(s->bytes_label, 32);
			seen |= 2;
		}
	}
	cr_assert_eq(seen, 3);

	/* Locations carry the PCs and lines; functions are (name, file). */
	cr_assert_eq(pr->nlocations, 4); /* leak_fn, churn_fn, main:50, main:51 */
	cr_assert_eq(pr->nfunctions, 3);
	for (size_t i = 0; i < pr->nlocations; i++) {
		cr_assert_eq(pr->loc[i].mapping, 1);
		const char *fn = fn_name_of_loc(pr, pr->loc[i].id);
		if (strcmp(fn, "leak_fn") == 0) {
			cr_assert_eq(pr->loc[i].addr, 0x2000);
			cr_assert_eq(pr->loc[i].line, 20);
		}
	}
	for (size_t j = 0; j < pr->nfunctions; j++)
		cr_assert_str_eq(pr->strings[pr->fn[j].file], "heap.c");

	for (size_t i = 0; i < pr->nstrings; i++)
		free(pr->strings[i]);
	free(pr);
	tool_pprof_free(&p);
	tool_heap_release(h);
	free(h);
}

Test(pprof, empty_heap_profile_is_valid)
{
	struct tool_heap *h = malloc(sizeof *h);
	cr_assert_eq(tool_heap_init(h), 0);
	struct tool_pprof p;
	cr_assert_eq(tool_heap_pprof(h, "empty", &p), 0);
	struct prof *pr = calloc(1, sizeof *pr);
	decode_profile(p.out.buf, p.out.len, pr);
	cr_assert_eq(pr->ntypes, 4);
	cr_assert_eq(pr->nsamples, 0);
	cr_assert_str_eq(pr->strings[pr->default_type], "inuse_space");
	for (size_t i = 0; i < pr->nstrings; i++)
		free(pr->strings[i]);
	free(pr);
	tool_pprof_free(&p);
	tool_heap_release(h);
	free(h);
}

Test(pprof, sampled_heap_profile_has_estimates_and_says_so)
{
	/* The trace of heap_profile_decodes, sampled with mean 64: values are
	 * scaled by w(s) = 1/(1-exp(-s/64)) and rounded; the period is the mean
	 * (as Go's heap profiles carry MemProfileRate); comments say so. */
	struct tool_heap *h = malloc(sizeof *h);
	cr_assert_eq(tool_heap_init(h), 0);
	struct hx t = { .buf = mem, .len = heap_trace_with("gotrace.heap sample_bytes=64") };
	FILE *f = hx_file(&t);
	cr_assert_eq(tool_heap_read(h, f), 0, "%s", h->err);
	fclose(f);
	struct tool_pprof p;
	cr_assert_eq(tool_heap_pprof(h, "x.trace", &p), 0);
	struct prof *pr = calloc(1, sizeof *pr);
	decode_profile(p.out.buf, p.out.len, pr);

	cr_assert_str_eq(pr->strings[pr->period_type], "space");
	cr_assert_eq(pr->period, 64);
	cr_assert_eq(pr->ncomments, 2);
	const char *c0 = pr->strings[pr->comment[0]], *c1 = pr->strings[pr->comment[1]];
	cr_assert(strstr(c0, "SAMPLED heap profile, values are ESTIMATES"), "%s", c0);
	cr_assert(strstr(c0, "mean 64 bytes"), "%s", c0);
	cr_assert(strstr(c1, "1/(1-exp(-s/mean))"), "%s", c1);
	cr_assert(strstr(c1, "GOTRACE_MALLOC=all"), "%s", c1);

	double w48 = 1 / (1 - exp(-48.0 / 64)), w32 = 1 / (1 - exp(-32.0 / 64));
	cr_assert_eq(pr->nsamples, 2);
	for (size_t i = 0; i < pr->nsamples; i++) {
		const typeof(pr->s[0]) *s = &pr->s[i];
		const char *leaf = fn_name_of_loc(pr, s->loc[0]);
		if (strcmp(leaf, "leak_fn") == 0) {
			int64_t want[4] = { llround(3 * w48), llround(144 * w48), llround(3 * w48), llround(144 * w48) };
			cr_assert_arr_eq(s->val, want, sizeof want);
			cr_assert_eq(s->bytes_label, 48, "the label is the object size, not scaled");
		} else {
			int64_t want[4] = { llround(5 * w32), llround(160 * w32), 0, 0 };
			cr_assert_arr_eq(s->val, want, sizeof want);
		}
	}
	for (size_t i = 0; i < pr->nstrings; i++)
		free(pr->strings[i]);
	free(pr);
	tool_pprof_free(&p);
	tool_heap_release(h);
	free(h);
}
