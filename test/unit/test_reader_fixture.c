/* test_reader_fixture.c — builds the known traces of test_reader_fixture.h. */
#include "test_reader_fixture.h"

#include <string.h>

#include "encoder/reader.h"
#include "encoder/writer.h"

void fx_events(unsigned g, struct fx_event ev[FX_NEVENTS])
{
	uint64_t t = FX_T(g);
	struct fx_event e[FX_NEVENTS] = {
		{ GT_EV_PROC_STATUS, t + 11, 2, { 0, GT_P_RUNNING } },
		{ GT_EV_GO_STATUS, t + 12, 3, { 1, FX_M, GT_G_RUNNING } },
		{ GT_EV_GO_BLOCK, t + 20, 2, { 1, 1 } },
		{ GT_EV_GO_UNBLOCK, t + 30, 3, { 1, 1, 1 } },
		{ GT_EV_GO_START, t + 31, 2, { 1, 2 } },
		{ GT_EV_HEAP_OBJECT_ALLOC, t + 400, 2, { 0xc000001000, 0 } },
		{ GT_EV_USER_LOG, t + 100000, 4, { 0, 1, 2, 1 } },
	};
	memcpy(ev, e, sizeof e);
}

static size_t events_batch(uint8_t *mem, size_t cap, unsigned g)
{
	struct fx_event ev[FX_NEVENTS];
	struct gt_batch b;
	fx_events(g, ev);
	gt_batch_begin(&b, mem, cap, g, FX_M, FX_T(g) + 10);
	for (int i = 0; i < FX_NEVENTS; i++)
		gt_batch_event(&b, ev[i].type, ev[i].ts, ev[i].nargs, ev[i].args);
	return gt_batch_finish(&b);
}

static size_t table_batches(uint8_t *mem, size_t cap, unsigned g)
{
	struct gt_batch b;
	size_t n = 0;
	gt_batch_begin_exp(&b, mem, cap, GT_EXP_ALLOCFREE, g, GT_NO_THREAD, FX_T(g) + 1);
	gt_batch_bytes(&b, "\1xy", 3);
	n += gt_batch_finish(&b);

	gt_batch_begin(&b, mem + n, cap - n, g, GT_NO_THREAD, FX_T(g) + 2);
	gt_batch_byte(&b, GT_EV_STRINGS);
	gt_batch_string(&b, 1, "sync", 4);
	gt_batch_string(&b, 2, "main", 4);
	gt_batch_string(&b, 3, "main.c", 6);
	n += gt_batch_finish(&b);

	struct gt_frame f[2] = { { 0x401000, 2, 3, 42 }, { 0x402000 + g, 1, 3, 7 } };
	gt_batch_begin(&b, mem + n, cap - n, g, GT_NO_THREAD, FX_T(g) + 3);
	gt_batch_byte(&b, GT_EV_STACKS);
	gt_batch_stack(&b, 1, f, 1);
	gt_batch_stack(&b, 2, f, 2);
	n += gt_batch_finish(&b);
	return n;
}

/* The writer has no CPU-sample helper; the layout is simple enough. */
static size_t cpu_samples_batch(uint8_t *mem, size_t cap, unsigned g)
{
	struct gt_batch b;
	gt_batch_begin(&b, mem, cap, g, GT_NO_THREAD, FX_T(g) + 4);
	gt_batch_byte(&b, GT_EV_CPU_SAMPLES);
	for (uint64_t i = 0; i < 2; i++) {
		gt_batch_byte(&b, GT_EV_CPU_SAMPLE);
		gt_batch_uvarint(&b, FX_T(g) + 500 + i); /* absolute time */
		gt_batch_uvarint(&b, FX_M);
		gt_batch_uvarint(&b, i ? GT_NO_THREAD : 0); /* p; -1 = none */
		gt_batch_uvarint(&b, i);                    /* g; 0 = none */
		gt_batch_uvarint(&b, 2);
	}
	return gt_batch_finish(&b);
}

size_t fx_trace(int format, unsigned gens, uint8_t *out, size_t cap)
{
	size_t n = gt_write_header(out, format);
	for (unsigned g = 1; g <= gens; g++) {
		struct gt_clock_snapshot snap = { FX_T(g), g * 10, 1700000000u + g, g };
		if (cap - n < 1024)
			return 0;
		n += gt_write_sync(out + n, format, g, FX_FREQ, &snap);
		n += events_batch(out + n, cap - n, g);
		n += table_batches(out + n, cap - n, g);
		if (g % 2)
			n += cpu_samples_batch(out + n, cap - n, g);
		if (format >= GT_FORMAT_26)
			out[n++] = GT_EV_END_OF_GENERATION;
	}
	return n;
}

FILE *fx_file(const void *bytes, size_t n)
{
	FILE *f = tmpfile();
	if (!f)
		return NULL;
	if (n && fwrite(bytes, 1, n, f) != n) {
		fclose(f);
		return NULL;
	}
	rewind(f);
	return f;
}

/* done copies a cursor's error out when it failed and passes rc on. */
static int done(int rc, const struct gt_rpos *at, char *err, size_t errlen)
{
	if (rc < 0)
		snprintf(err, errlen, "%s", at->err);
	return rc;
}

/* walk_batch runs the cursor that fits b's kind to its end. */
static int walk_batch(const struct gt_rbatch *b, char *err, size_t errlen)
{
	int r;
	switch (b->kind) {
	case GT_BATCH_EVENTS: {
		struct gt_event_cursor c;
		struct gt_event ev;
		gt_events_begin(&c, b);
		while ((r = gt_events_next(&c, &ev)) > 0)
			;
		return done(r, &c.at, err, errlen);
	}
	case GT_BATCH_STRINGS: {
		struct gt_string_cursor c;
		struct gt_string s;
		gt_strings_begin(&c, b);
		while ((r = gt_strings_next(&c, &s)) > 0)
			;
		return done(r, &c.at, err, errlen);
	}
	case GT_BATCH_STACKS: {
		struct gt_stack_cursor c;
		static struct gt_stack s;
		gt_stacks_begin(&c, b);
		while ((r = gt_stacks_next(&c, &s)) > 0)
			;
		return done(r, &c.at, err, errlen);
	}
	case GT_BATCH_CPU_SAMPLES: {
		struct gt_cpu_sample_cursor c;
		struct gt_cpu_sample s;
		gt_cpu_samples_begin(&c, b);
		while ((r = gt_cpu_samples_next(&c, &s)) > 0)
			;
		return done(r, &c.at, err, errlen);
	}
	case GT_BATCH_SYNC: {
		struct gt_sync s;
		char e[GT_READER_ERR];
		if (gt_sync_decode(b, &s, e) == 0)
			return 0;
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	case GT_BATCH_EXPERIMENTAL:
	case GT_BATCH_END_OF_GEN:
		break;
	}
	return 0;
}

int fx_walk(struct gt_reader *r, FILE *f, char *err, size_t errlen, unsigned *batches)
{
	struct gt_rbatch b;
	int rc;
	*batches = 0;
	if (gt_reader_init(r, f)) {
		snprintf(err, errlen, "%s", r->err);
		return -1;
	}
	while ((rc = gt_reader_next(r, &b)) > 0) {
		++*batches;
		if (walk_batch(&b, err, errlen))
			return -1;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", r->err);
	return rc;
}
