/* test_heap_fixture.c — the trace writer of test_heap_fixture.h. */
#include "test_heap_fixture.h"

#include <string.h>

#include "tools/heap_acct.h"

#define BATCH_CAP (GT_MAX_BATCH + 64)

static uint8_t scratch[BATCH_CAP];

/* emit copies a finished batch into the trace if it fits. */
static void emit(struct hx *t, struct gt_batch *b)
{
	size_t n = gt_batch_finish(b);
	if (t->full || t->cap - t->len < n) {
		t->full = 1;
		return;
	}
	memcpy(t->buf + t->len, scratch, n);
	t->len += n;
}

void hx_begin(struct hx *t, uint8_t *buf, size_t cap, int format)
{
	*t = (struct hx){ .buf = buf, .cap = cap, .format = format };
	t->len = gt_write_header(buf, format);
}

void hx_sync(struct hx *t, uint64_t gen, uint64_t ts)
{
	struct gt_clock_snapshot snap = { ts, ts, 1700000000u, 5 };
	if (t->cap - t->len < GT_SYNC_MAX) {
		t->full = 1;
		return;
	}
	t->len += gt_write_sync(t->buf + t->len, t->format, gen, HX_FREQ, &snap);
}

void hx_strings(struct hx *t, uint64_t gen, uint64_t first_id, const char *const *s, size_t n)
{
	struct gt_batch b;
	gt_batch_begin(&b, scratch, sizeof scratch, gen, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_EV_STRINGS);
	for (size_t i = 0; i < n; i++)
		gt_batch_string(&b, first_id + i, s[i], strlen(s[i]));
	emit(t, &b);
}

void hx_stack(struct hx *t, uint64_t gen, uint64_t id, const struct gt_frame *f, size_t n)
{
	struct gt_batch b;
	gt_batch_begin(&b, scratch, sizeof scratch, gen, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_EV_STACKS);
	gt_batch_stack(&b, id, f, n);
	emit(t, &b);
}

void hx_info_sized(struct hx *t, uint64_t gen, uint64_t min_addr, uint64_t page, uint64_t align, uint64_t stack)
{
	struct gt_batch b;
	gt_batch_begin_exp(&b, scratch, sizeof scratch, GT_EXP_ALLOCFREE, gen, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_ALLOCFREE_INFO);
	gt_batch_uvarint(&b, min_addr);
	gt_batch_uvarint(&b, page);
	gt_batch_uvarint(&b, align);
	gt_batch_uvarint(&b, stack);
	emit(t, &b);
}

void hx_info(struct hx *t, uint64_t gen, uint64_t min_addr, uint64_t align)
{
	hx_info_sized(t, gen, min_addr, 4096, align, 0);
}

void hx_types(struct hx *t, uint64_t gen, const struct hx_type *ty, size_t n)
{
	struct gt_batch b;
	gt_batch_begin_exp(&b, scratch, sizeof scratch, GT_EXP_ALLOCFREE, gen, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_ALLOCFREE_TYPES);
	for (size_t i = 0; i < n; i++) {
		char name[40];
		int len = snprintf(name, sizeof name, "malloc %llu", (unsigned long long)ty[i].size);
		gt_batch_uvarint(&b, ty[i].id);
		gt_batch_uvarint(&b, ty[i].stack);
		gt_batch_uvarint(&b, ty[i].size);
		gt_batch_uvarint(&b, 0);
		gt_batch_uvarint(&b, (uint64_t)len);
		gt_batch_bytes(&b, name, (size_t)len);
	}
	emit(t, &b);
}

void hx_events(struct hx *t, uint64_t gen, uint64_t m, const struct hx_ev *ev, size_t n)
{
	struct gt_batch b;
	gt_batch_begin(&b, scratch, sizeof scratch, gen, m, n ? ev[0].ts - 1 : 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t args[3] = { ev[i].a, ev[i].b, ev[i].c };
		int nargs = gt_ev_nargs(ev[i].type);
		gt_batch_event(&b, ev[i].type, ev[i].ts, (unsigned)(nargs > 0 ? nargs : 0), args);
	}
	emit(t, &b);
}

void hx_end_gen(struct hx *t)
{
	if (t->format < GT_FORMAT_26)
		return;
	if (t->len == t->cap) {
		t->full = 1;
		return;
	}
	t->buf[t->len++] = GT_EV_END_OF_GENERATION;
}

FILE *hx_file(const struct hx *t)
{
	FILE *f = tmpfile();
	if (!f)
		return NULL;
	if (t->len && fwrite(t->buf, 1, t->len, f) != t->len) {
		fclose(f);
		return NULL;
	}
	rewind(f);
	return f;
}

int hx_read_heap(struct tool_heap *heap, uint8_t *buf, size_t len)
{
	struct hx t = { .buf = buf, .len = len, .cap = len };
	FILE *f = hx_file(&t);
	if (!f)
		return -1;
	int rc = tool_heap_read(heap, f);
	fclose(f);
	return rc;
}

const struct tool_hsite *hx_site_of(const struct tool_heap *heap, const char *fn)
{
	const struct tool_sites *s = &heap->sites;
	for (uint32_t i = 0; i < s->nsites; i++) {
		const struct tool_hsite *t = &s->sites[i];
		if (t->nframes >= 2 && strcmp(tool_sites_str(s, s->frames[tool_sites_site_frames(s, i)[1]].func), fn) == 0)
			return t;
	}
	return NULL;
}
