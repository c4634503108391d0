/* map_acct.c — replays a trace's span and stack events into the live
 * mappings by class and site (map_acct.h, docs/heap.md "Mapped memory in
 * gotrace heap"). */
#include "tools/map_acct.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/varint.h"
#include "tools/gen_tables.h"
#include "tools/rank_list.h"

typedef unsigned long long ull;

static const char *const class_names[TOOL_MAP_CLASSES] = {
	[GT_SPAN_ANON] = "anonymous",     [GT_SPAN_MALLOC] = "malloc arena", [GT_SPAN_BRK] = "brk heap",
	[GT_SPAN_STACK] = "thread stack", [GT_SPAN_UNSEEN] = "unattributed", [TOOL_MAP_OTHER] = "other",
};

const char *tool_map_class_name(unsigned cls)
{
	return cls < TOOL_MAP_CLASSES ? class_names[cls] : class_names[TOOL_MAP_OTHER];
}

static int fail(struct tool_map *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct tool_map *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->err, sizeof m->err, fmt, ap);
	va_end(ap);
	m->failed = true;
	return -1;
}

static int oom(struct tool_map *m)
{
	return fail(m, "out of memory (generation %llu: %zu live spans, %zu rows)", (ull)m->gen, m->live.n, m->nrows);
}

/* failed turns what a shared reader returned (0, -1 with m->err, -2 out
 * of memory) into 0 or -1 with m->err. */
static int failed(struct tool_map *m, int rc)
{
	if (rc == -2)
		return oom(m);
	if (rc)
		m->failed = true;
	return rc;
}

static bool is_map_event(uint8_t type)
{
	switch (type) {
	case GT_EV_SPAN:
	case GT_EV_SPAN_ALLOC:
	case GT_EV_SPAN_FREE:
	case GT_EV_GOROUTINE_STACK:
	case GT_EV_GOROUTINE_STACK_ALLOC:
	case GT_EV_GOROUTINE_STACK_FREE: return true;
	default: return false;
	}
}

int tool_map_init(struct tool_map *m)
{
	memset(m, 0, sizeof *m);
	struct tool_hmap *maps[] = { &m->live, &m->stacks, &m->row_index, &m->g_snap, &m->g_stk, &m->g_added, &m->g_gone };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
		tool_hmap_init(maps[i]);
	tool_replay_init(&m->replay, is_map_event);
	m->page = GT_SPAN_PAGE;
	return 0;
}

/* observe sees each span or stack event as the heap's replay checks its
 * batch (replay.h), and keeps the batch, once, for the generation's
 * replay here. */
static void observe(void *ctx, const struct gt_rbatch *b, const struct gt_event *ev)
{
	struct tool_map *m = ctx;
	if (m->failed)
		return;
	m->replay.events++;
	if (m->g_kept && m->g_kept_at == b->data_offset)
		return;
	if (tool_replay_keep(&m->replay, b)) {
		oom(m);
		return;
	}
	m->g_kept = true;
	m->g_kept_at = b->data_offset;
}

void tool_map_attach(struct tool_map *m, struct tool_heap *h)
{
	static const uint8_t types[] = { GT_EV_SPAN, GT_EV_SPAN_ALLOC, GT_EV_SPAN_FREE, GT_EV_GOROUTINE_STACK,
					 GT_EV_GOROUTINE_STACK_ALLOC, GT_EV_GOROUTINE_STACK_FREE };
	m->h = h;
	h->batch_hook = tool_map_batch;
	h->hook_ctx = m;
	h->replay.observe = observe;
	h->replay.observe_ctx = m;
	memset(h->replay.observe_types, 0, sizeof h->replay.observe_types);
	for (size_t i = 0; i < sizeof types; i++)
		h->replay.observe_types[types[i] >> 3] |= (uint8_t)(1u << (types[i] & 7));
}

void tool_map_release(struct tool_map *m)
{
	struct tool_hmap *maps[] = { &m->live, &m->stacks, &m->row_index, &m->g_snap, &m->g_stk, &m->g_added, &m->g_gone };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
		tool_hmap_free(maps[i]);
	tool_replay_free(&m->replay);
	free(m->rows);
	free(m->snap);
	memset(m, 0, sizeof *m);
	tool_replay_init(&m->replay, is_map_event);
}

bool tool_map_any(const struct tool_map *m)
{
	return m->span_events || m->snapshot_spans || m->stack_events;
}

/* ---- figures ---- */

/* freq is the ending generation's trace clock frequency (the heap's, which
 * has read its sync batch). */
static uint64_t freq(const struct tool_map *m)
{
	return m->h->g_freq ? m->h->g_freq : m->h->freq;
}

static void check_peak(struct tool_map *m, uint64_t ts)
{
	for (unsigned c = 0; c < TOOL_MAP_CLASSES; c++) {
		struct tool_map_class *k = &m->cls[c];
		if (k->live_bytes > k->peak_bytes) {
			k->peak_bytes = k->live_bytes;
			k->peak_ts = ts;
			k->peak_freq = freq(m);
		}
	}
	if (m->live_bytes > m->peak_bytes) {
		m->peak_bytes = m->live_bytes;
		m->peak_ts = ts;
		m->peak_freq = freq(m);
		for (unsigned c = 0; c < TOOL_MAP_CLASSES; c++)
			m->cls[c].at_peak_bytes = m->cls[c].live_bytes;
	}
	if (m->live_stacks > m->peak_stacks)
		m->peak_stacks = m->live_stacks;
}

/* row_of finds the row of a kindclass's site and class: its index, or -1
 * out of memory. */
static long row_of(struct tool_map *m, uint64_t kindclass)
{
	unsigned cls = TOOL_MAP_OTHER;
	uint64_t stack = 0;
	if (kindclass & 1) { /* ours; an even one is a Go heap span class */
		cls = GT_SPAN_KC_CLASS(kindclass);
		if (cls >= GT_SPAN_CLASSES)
			cls = TOOL_MAP_OTHER;
		stack = GT_SPAN_KC_SITE(kindclass);
	}
	uint32_t site = tool_gen_site(&m->h->tables, &m->h->sites, stack);
	if (site == TOOL_SITE_NONE)
		return -1;
	bool fresh;
	long r = tool_rank_row(&m->rows, &m->nrows, &m->cap_rows, sizeof *m->rows, &m->row_index,
			       (uint64_t)site << 3 | cls, &fresh);
	if (r >= 0 && fresh) {
		m->rows[r].site = site;
		m->rows[r].cls = (uint8_t)cls;
	}
	return r;
}

/* live_add / live_sub move a span's bytes in and out of the live figures
 * of its row, its class and the total. */
static void live_add(struct tool_map *m, uint32_t row, uint64_t bytes, uint64_t spans)
{
	struct tool_map_row *r = &m->rows[row];
	r->live_bytes += bytes;
	r->live_spans += spans;
	m->cls[r->cls].live_bytes += bytes;
	m->cls[r->cls].live_spans += spans;
	m->live_bytes += bytes;
	m->live_spans += spans;
}

static void live_sub(struct tool_map *m, uint32_t row, uint64_t bytes, uint64_t spans)
{
	struct tool_map_row *r = &m->rows[row];
	r->live_bytes -= bytes;
	r->live_spans -= spans;
	m->cls[r->cls].live_bytes -= bytes;
	m->cls[r->cls].live_spans -= spans;
	m->live_bytes -= bytes;
	m->live_spans -= spans;
}

/* mapped / unmapped count bytes mapped and unmapped during the trace. */
static void mapped(struct tool_map *m, uint32_t row, uint64_t bytes, uint64_t spans)
{
	struct tool_map_row *r = &m->rows[row];
	r->mapped_bytes += bytes;
	r->mapped_spans += spans;
	m->cls[r->cls].mapped_bytes += bytes;
	m->mapped_bytes += bytes;
}

static void unmapped(struct tool_map *m, uint32_t row, uint64_t bytes)
{
	struct tool_map_row *r = &m->rows[row];
	r->unmapped_bytes += bytes;
	m->cls[r->cls].unmapped_bytes += bytes;
	m->unmapped_bytes += bytes;
}

/* move puts a live span of `bytes` from row `from` into row `to`. */
static void move(struct tool_map *m, uint32_t from, uint32_t to, uint64_t bytes)
{
	if (from == to)
		return;
	live_sub(m, from, bytes, 1);
	live_add(m, to, bytes, 1);
}

/* A span's bytes, at most 2^52 (4 PiB: more than any address space), so
 * that the sums of a damaged trace's spans cannot wrap. */
#define SPAN_MAX_BYTES (1ull << 52)

static uint64_t span_bytes(const struct tool_map *m, uint64_t npages)
{
	uint64_t page = m->g_page ? m->g_page : m->page;
	return npages > SPAN_MAX_BYTES / page ? SPAN_MAX_BYTES : npages * page;
}

static int mark(struct tool_map *m, struct tool_hmap *set, uint64_t id)
{
	bool fresh;
	return tool_hmap_put(set, id, &fresh) ? 0 : oom(m);
}

/* ---- the snapshot ---- */

/* collect keeps the generation's Span and GoroutineStack events (pass 1). */
static int collect(void *ctx, uint64_t thread, const struct gt_event *ev)
{
	struct tool_map *m = ctx;
	bool fresh;
	if (ev->type != GT_EV_SPAN && ev->type != GT_EV_GOROUTINE_STACK)
		return 0;
	if (!m->g_span_snap && !m->g_stack_snap)
		m->g_snap_ts = ev->ts;
	if (ev->type == GT_EV_GOROUTINE_STACK) {
		struct tool_hmap_entry *e = tool_hmap_put(&m->g_stk, ev->args[0], &fresh);
		if (!e)
			return oom(m);
		e->val = ev->args[1];
		m->g_stack_snap = true;
		m->stack_events++;
		return 0;
	}
	m->g_span_snap = true;
	m->snapshot_spans++;
	struct tool_hmap_entry *e = tool_hmap_put(&m->g_snap, ev->args[0], &fresh);
	if (!e)
		return oom(m);
	if (!fresh) /* a repeated id: the last one states it */
		m->snap[e->val] = (struct tool_map_snap){ ev->args[0], ev->args[1], ev->args[2] };
	else {
		e->val = m->nsnap;
		if (tool_grow(&m->snap, &m->cap_snap, m->nsnap + 1, sizeof *m->snap))
			return oom(m);
		m->snap[m->nsnap++] = (struct tool_map_snap){ ev->args[0], ev->args[1], ev->args[2] };
	}
	return 0;
}

/* ids_missing lists the keys of `have` that `in` lacks (*out, malloc'd). */
static int ids_missing(struct tool_map *m, const struct tool_hmap *have, const struct tool_hmap *in, uint64_t **out,
		       size_t *n)
{
	*n = 0;
	*out = malloc((have->n ? have->n : 1) * sizeof **out);
	if (!*out)
		return oom(m);
	for (size_t i = 0; i < have->cap; i++)
		if (have->e[i].used && !tool_hmap_get(in, have->e[i].key))
			(*out)[(*n)++] = have->e[i].key;
	return 0;
}

/* reconcile_spans makes the live spans the snapshot's (map_acct.h). */
static int reconcile_spans(struct tool_map *m)
{
	bool first = m->snapshots == 0;
	uint64_t *gone;
	size_t ngone;
	if (ids_missing(m, &m->live, &m->g_snap, &gone, &ngone))
		return -1;
	for (size_t i = 0; i < ngone; i++) {
		struct tool_hmap_entry o;
		tool_hmap_del(&m->live, gone[i], &o);
		live_sub(m, o.aux, o.val, 1);
		unmapped(m, o.aux, o.val);
		m->vanished++;
		if (mark(m, &m->g_gone, gone[i])) {
			free(gone);
			return -1;
		}
	}
	free(gone);
	for (size_t i = 0; i < m->nsnap; i++) {
		const struct tool_map_snap *s = &m->snap[i];
		uint64_t bytes = span_bytes(m, s->npages);
		long row = row_of(m, s->kindclass);
		bool fresh;
		if (row < 0)
			return oom(m);
		struct tool_hmap_entry *e = tool_hmap_put(&m->live, s->id, &fresh);
		if (!e)
			return oom(m);
		if (!fresh) { /* known: a resize, or a new class or site */
			uint32_t old = e->aux;
			uint64_t was = e->val;
			e->val = bytes;
			e->aux = (uint32_t)row;
			live_sub(m, old, was, 1);
			live_add(m, (uint32_t)row, bytes, 1);
			if (bytes > was)
				mapped(m, (uint32_t)row, bytes - was, 0);
			else if (bytes < was)
				unmapped(m, (uint32_t)row, was - bytes);
			m->resized += bytes != was;
			continue;
		}
		e->val = bytes;
		e->aux = (uint32_t)row;
		live_add(m, (uint32_t)row, bytes, 1);
		if (first) { /* mapped before the trace */
			m->rows[row].start_bytes += bytes;
			m->rows[row].start_spans++;
		} else { /* mapped by a call the library does not see */
			mapped(m, (uint32_t)row, bytes, 1);
			m->appeared++;
		}
		if (mark(m, &m->g_added, s->id))
			return -1;
	}
	if (first && m->gens == 0) {
		m->have_start = true;
		m->start_bytes = m->live_bytes;
		for (unsigned c = 0; c < TOOL_MAP_CLASSES; c++)
			m->cls[c].start_bytes = m->cls[c].live_bytes;
	}
	m->snapshots++;
	return 0;
}

/* reconcile_stacks makes the live thread stacks the snapshot's. */
static int reconcile_stacks(struct tool_map *m)
{
	uint64_t *gone;
	size_t ngone;
	if (ids_missing(m, &m->stacks, &m->g_stk, &gone, &ngone))
		return -1;
	for (size_t i = 0; i < ngone; i++)
		tool_hmap_del(&m->stacks, gone[i], NULL);
	free(gone);
	for (size_t i = 0; i < m->g_stk.cap; i++) {
		const struct tool_hmap_entry *s = &m->g_stk.e[i];
		bool fresh;
		if (!s->used)
			continue;
		struct tool_hmap_entry *e = tool_hmap_put(&m->stacks, s->key, &fresh);
		if (!e)
			return oom(m);
		e->val = s->val;
	}
	m->live_stacks = m->stacks.n;
	return 0;
}

/* ---- the changes ---- */

static int span_alloc(struct tool_map *m, const struct gt_event *ev)
{
	uint64_t id = ev->args[0], bytes = span_bytes(m, ev->args[1]);
	long row = row_of(m, ev->args[2]);
	bool fresh;
	if (row < 0)
		return oom(m);
	struct tool_hmap_entry *e = tool_hmap_put(&m->live, id, &fresh);
	if (!e)
		return oom(m);
	if (!fresh) {
		uint32_t old = e->aux;
		uint64_t was = e->val;
		if (tool_hmap_del(&m->g_added, id, NULL) && was == bytes) {
			/* made in this generation before its snapshot was read:
			 * the snapshot added it already; the event knows its site */
			e->aux = (uint32_t)row;
			move(m, old, (uint32_t)row, bytes);
			return 0;
		}
		m->replaced++; /* its free was missed */
		live_sub(m, old, was, 1);
		unmapped(m, old, was);
	}
	e->val = bytes;
	e->aux = (uint32_t)row;
	live_add(m, (uint32_t)row, bytes, 1);
	mapped(m, (uint32_t)row, bytes, 1);
	return 0;
}

static void span_free(struct tool_map *m, uint64_t id)
{
	struct tool_hmap_entry o;
	if (tool_hmap_del(&m->live, id, &o)) {
		tool_hmap_del(&m->g_added, id, NULL);
		live_sub(m, o.aux, o.val, 1);
		unmapped(m, o.aux, o.val);
	} else if (!tool_hmap_del(&m->g_gone, id, NULL)) { /* not one the snapshot removed */
		m->unknown_frees++;
	}
}

/* apply replays the generation's changes in time order (pass 2). */
static int apply(void *ctx, uint64_t thread, const struct gt_event *ev)
{
	struct tool_map *m = ctx;
	bool fresh;
	switch (ev->type) {
	case GT_EV_SPAN_ALLOC:
		m->span_events++;
		if (span_alloc(m, ev))
			return -1;
		break;
	case GT_EV_SPAN_FREE:
		m->span_events++;
		span_free(m, ev->args[0]);
		break;
	case GT_EV_GOROUTINE_STACK_ALLOC: {
		struct tool_hmap_entry *e = tool_hmap_put(&m->stacks, ev->args[0], &fresh);
		if (!e)
			return oom(m);
		e->val = ev->args[1];
		m->stack_events++;
		m->live_stacks = m->stacks.n;
		break;
	}
	case GT_EV_GOROUTINE_STACK_FREE:
		tool_hmap_del(&m->stacks, ev->args[0], NULL);
		m->stack_events++;
		m->live_stacks = m->stacks.n;
		break;
	default: return 0;
	}
	check_peak(m, ev->ts);
	return 0;
}

/* ---- generations ---- */

static void start_gen(struct tool_map *m, uint64_t gen)
{
	m->gen = gen;
	m->gen_open = true;
	m->g_page = 0;
	m->g_span_snap = m->g_stack_snap = false;
	m->g_kept = false;
	m->nsnap = 0;
}

static void drop_gen(struct tool_map *m)
{
	tool_replay_clear(&m->replay);
	struct tool_hmap *maps[] = { &m->g_snap, &m->g_stk, &m->g_added, &m->g_gone };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
		tool_hmap_clear(maps[i]);
	m->nsnap = 0;
	m->gen_open = false;
}

static int end_gen(struct tool_map *m)
{
	if (!m->gen_open)
		return 0;
	if (m->replay.events) {
		if (failed(m, tool_replay_merge(&m->replay, m->gen, collect, m, m->err, sizeof m->err)))
			return -1;
		if (m->g_span_snap && reconcile_spans(m))
			return -1;
		if (m->g_stack_snap && reconcile_stacks(m))
			return -1;
		if (m->g_span_snap || m->g_stack_snap)
			check_peak(m, m->g_snap_ts);
		if (failed(m, tool_replay_merge(&m->replay, m->gen, apply, m, m->err, sizeof m->err)))
			return -1;
	}
	if (m->g_page)
		m->page = m->g_page;
	m->gens++;
	drop_gen(m);
	return 0;
}

/* read_info takes the page size of an AllocFree info batch (min address,
 * page size, alignment, fixed stack); the heap judges the rest. */
static void read_info(struct tool_map *m, const struct gt_rbatch *b)
{
	uint64_t v;
	size_t pos = 1;
	for (int i = 0; i < 2; i++) {
		int n = gt_get_uvarint(b->data + pos, b->len - pos, &v);
		if (n <= 0)
			return;
		pos += (size_t)n;
	}
	if (v && !m->g_page) /* the first one of a generation counts */
		m->g_page = v;
}

static int batch(struct tool_map *m, const struct gt_rbatch *b)
{
	if (b->kind == GT_BATCH_END_OF_GEN)
		return end_gen(m);
	if (m->gen_open && b->gen != m->gen && end_gen(m))
		return -1;
	if (!m->gen_open)
		start_gen(m, b->gen);
	/* Event batches: the heap's replay checks them and shows this one's
	 * span and stack events to observe(), next. */
	if (b->kind == GT_BATCH_EXPERIMENTAL && b->exp == GT_EXP_ALLOCFREE && b->len > 0 &&
	    b->data[0] == GT_ALLOCFREE_INFO)
		read_info(m, b);
	return 0;
}

void tool_map_batch(void *ctx, const struct gt_rbatch *b)
{
	struct tool_map *m = ctx;
	if (m->failed)
		return;
	/* Payloads are read again from the heap's file, when it has one. */
	m->replay.fd = m->h->replay.fd;
	m->replay.fd_base = m->h->replay.fd_base;
	if (b)
		(void)batch(m, b);
	else
		(void)end_gen(m);
}
