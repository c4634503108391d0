/* heap_acct.c — replays the AllocFree events of a trace into live objects
 * and per-site counters (heap_acct.h, docs/heap.md). */
#include "tools/heap_acct.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/varint.h"

typedef unsigned long long ull;

#define DEFAULT_ALIGN 8

/* A live object's `used` field: the tag 1 + mean index (bits 0-15), the
 * stamp of the generation that last allocated or restated it (bits 16-29:
 * the ordinal of the generation replayed, mod 2^14), and flags: known from
 * a snapshot only; added by the snapshot of the generation being
 * replayed. */
#define SNAP_ONLY 0x80000000u
#define SNAP_NOW 0x40000000u
#define TAG_MASK 0xffffu
#define MAX_MEANS 0xfffe
#define STAMP_SHIFT 16
#define STAMP_MASK (0x3fffu << STAMP_SHIFT)

static uint32_t stamp(const struct tool_heap *h)
{
	return (uint32_t)((h->gens + 1) << STAMP_SHIFT) & STAMP_MASK;
}
#define DEFAULT_FREQ 1000000000ull

static int fail(struct tool_heap *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct tool_heap *h, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(h->err, sizeof h->err, fmt, ap);
	va_end(ap);
	return -1;
}

static int oom(struct tool_heap *h)
{
	return fail(h, "out of memory (generation %llu: %llu heap events, %zu bytes of batches kept; %zu live objects)",
		    (ull)h->gen, (ull)h->replay.events, h->replay.npayload, h->live.n);
}

/* failed turns what a shared reader returned (0, -1 with h->err, -2 out of
 * memory) into 0 or -1 with h->err. */
static int failed(struct tool_heap *h, int rc)
{
	return rc == -2 ? oom(h) : rc;
}

/* is_heap_event: the events the replay is for. */
static bool is_heap_event(uint8_t type)
{
	return type == GT_EV_HEAP_OBJECT_ALLOC || type == GT_EV_HEAP_OBJECT_FREE || type == GT_EV_HEAP_ALLOC ||
	       type == GT_EV_HEAP_OBJECT;
}

int tool_heap_init(struct tool_heap *h)
{
	memset(h, 0, sizeof *h);
	tool_hmap_init(&h->live);
	tool_hmap_init(&h->g_types);
	tool_gen_init(&h->tables);
	tool_replay_init(&h->replay, is_heap_event);
	h->freq = DEFAULT_FREQ;
	h->align = DEFAULT_ALIGN;
	h->g_min_ts = UINT64_MAX;
	if (tool_sites_init(&h->sites) || tool_grow(&h->means, &h->cap_means, 1, sizeof *h->means))
		return oom(h);
	h->means[h->nmeans++] = 0; /* every allocation recorded */
	return 0;
}

void tool_heap_release(struct tool_heap *h)
{
	tool_sites_free(&h->sites);
	tool_hmap_free(&h->live);
	tool_hmap_free(&h->g_types);
	tool_gen_free(&h->tables);
	tool_replay_free(&h->replay);
	free(h->g_typ);
	free(h->means);
	memset(h, 0, sizeof *h);
	tool_replay_init(&h->replay, is_heap_event);
}

double tool_heap_seconds(const struct tool_heap *h, uint64_t ts, uint64_t freq)
{
	if (!freq)
		freq = DEFAULT_FREQ;
	if (ts <= h->t0)
		return 0;
	return (double)(ts - h->t0) / (double)freq;
}

/* ---- the generation's batches and tables ---- */

static void start_gen(struct tool_heap *h, uint64_t gen)
{
	h->gen = gen;
	h->gen_open = true;
	h->g_freq = 0;
	h->g_min_ts = UINT64_MAX;
	h->g_info = false;
	h->g_min_addr = h->min_addr;
	h->g_align = h->align;
	h->g_sample_set = false;
	h->g_snap_events = 0;
}

/* drop_gen forgets the generation's tables and events (keeping memory
 * that is small enough to reuse). */
static void drop_gen(struct tool_heap *h)
{
	tool_gen_clear(&h->tables);
	tool_replay_clear(&h->replay);
	tool_hmap_clear(&h->g_types);
	h->g_ntyp = 0;
	h->gen_open = false;
}

/* add_id maps a table id to the next index of an array of n entries; a
 * repeated id keeps its first definition (*dup = true). */
static int add_id(struct tool_heap *h, struct tool_hmap *m, uint64_t id, size_t n, bool *dup)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(m, id, &fresh);
	if (!e)
		return oom(h);
	*dup = !fresh;
	if (fresh)
		e->val = n;
	return 0;
}

/* fresh_string sees each new string of the generation: the first sampling
 * statement counts. */
static void fresh_string(void *ctx, const void *data, size_t len)
{
	struct tool_heap *h = ctx;
	uint64_t mean;
	if (!h->g_sample_set && tool_heap_sample_parse(data, len, &mean)) {
		h->g_sample_set = true;
		h->g_sample_bytes = mean;
	}
	if (!h->note[0])
		tool_heap_note_parse(data, len, h->note, sizeof h->note);
}

/* An AllocFree payload: kind byte, then uvarints (and type names). */
struct payload {
	const uint8_t *p;
	size_t len, pos;
	uint64_t off; /* file offset of p[0] */
};

static int pl_uvarint(struct tool_heap *h, struct payload *pl, const char *what, uint64_t *v)
{
	int n = gt_get_uvarint(pl->p + pl->pos, pl->len - pl->pos, v);
	if (n == GT_UVARINT_SHORT)
		return fail(h, "truncated AllocFree %s at offset %llu: the experimental batch ends at offset %llu",
			    what, (ull)(pl->off + pl->pos), (ull)(pl->off + pl->len));
	if (n == GT_UVARINT_OVERFLOW)
		return fail(h, "invalid uvarint (over 64 bits) in AllocFree %s at offset %llu", what,
			    (ull)(pl->off + pl->pos));
	pl->pos += (size_t)n;
	return 0;
}

static int read_info(struct tool_heap *h, struct payload *pl)
{
	uint64_t v[4];
	static const char *const what[4] = { "info (min address)", "info (page size)", "info (alignment)",
					     "info (fixed stack)" };
	uint64_t at = pl->off;
	for (int i = 0; i < 4; i++)
		if (pl_uvarint(h, pl, what[i], &v[i]))
			return -1;
	if (v[2] == 0)
		return fail(h, "invalid AllocFree info batch at offset %llu: object alignment 0", (ull)at);
	if (!h->g_info) { /* the first one of a generation counts */
		h->g_info = true;
		h->g_min_addr = v[0];
		h->g_align = v[2];
	}
	return 0;
}

static int read_types(struct tool_heap *h, struct payload *pl)
{
	while (pl->pos < pl->len) {
		uint64_t id, stack, size, ptr, nlen, at = pl->off + pl->pos;
		if (pl_uvarint(h, pl, "type id", &id) || pl_uvarint(h, pl, "type address (stack id)", &stack) ||
		    pl_uvarint(h, pl, "type size", &size) || pl_uvarint(h, pl, "type pointer bytes", &ptr) ||
		    pl_uvarint(h, pl, "type name length", &nlen))
			return -1;
		if (nlen > pl->len - pl->pos)
			return fail(h, "truncated AllocFree type at offset %llu: a %llu-byte name, %zu bytes left in the batch",
				    (ull)at, (ull)nlen, pl->len - pl->pos);
		pl->pos += (size_t)nlen;
		bool dup;
		if (add_id(h, &h->g_types, id, h->g_ntyp, &dup))
			return -1;
		if (dup)
			continue;
		if (tool_grow(&h->g_typ, &h->g_cap_typ, h->g_ntyp + 1, sizeof *h->g_typ))
			return oom(h);
		h->g_typ[h->g_ntyp++] = (struct tool_hgen_type){ .stack = stack, .size = size };
	}
	return 0;
}

static int read_allocfree(struct tool_heap *h, const struct gt_rbatch *b)
{
	struct payload pl = { .p = b->data, .len = b->len, .pos = 1, .off = b->data_offset };
	if (b->len == 0)
		return 0;
	switch (b->data[0]) {
	case GT_ALLOCFREE_INFO: return read_info(h, &pl);
	case GT_ALLOCFREE_TYPES: return read_types(h, &pl);
	default: return 0; /* a kind we do not know: not ours to judge */
	}
}

static int read_sync(struct tool_heap *h, const struct gt_rbatch *b)
{
	struct gt_sync s;
	char err[GT_READER_ERR];
	if (gt_sync_decode(b, &s, err))
		return fail(h, "%s", err);
	if (h->g_freq == 0)
		h->g_freq = s.freq;
	if (s.has_clock && h->wall_ns == 0 && s.clock.wall_sec < UINT64_MAX / 1000000000u) {
		h->wall_ns = s.clock.wall_sec * 1000000000u + s.clock.wall_nsec % 1000000000u;
		h->wall_ts = s.clock.ts;
	}
	return 0;
}

/* ---- replay ---- */

/* The estimates move by what one object counts for: its weight in objects
 * and bytes, and what it adds to the variances. */
struct weight {
	double objects, bytes, var_objects, var_bytes;
};

static struct weight weight_of(uint64_t size, uint64_t mean)
{
	if (mean == 0) /* every allocation recorded: exact counts */
		return (struct weight){ 1, (double)size, 0, 0 };
	double w = tool_heap_sample_weight(size, mean);
	return (struct weight){ w, (double)size * w, tool_heap_sample_var(size, mean, 1),
				tool_heap_sample_var(size, mean, (double)size) };
}

/* est_free takes an object's weight out of the live estimates; when no
 * recorded object is left they are exactly 0 (no rounding residue). */
static void est_free(struct tool_hest *e, const struct weight *w, uint64_t live_left)
{
	if (live_left == 0) {
		e->live_objects = e->live_bytes = e->var_live_bytes = 0;
		return;
	}
	e->live_objects -= w->objects;
	e->live_bytes -= w->bytes;
	e->var_live_bytes -= w->var_bytes;
	if (e->live_objects < 0)
		e->live_objects = 0;
	if (e->live_bytes < 0)
		e->live_bytes = 0;
	if (e->var_live_bytes < 0)
		e->var_live_bytes = 0;
}

static void est_alloc(struct tool_hest *e, const struct weight *w)
{
	e->alloc_objects += w->objects;
	e->alloc_bytes += w->bytes;
	e->var_alloc_objects += w->var_objects;
	e->var_alloc_bytes += w->var_bytes;
	e->live_objects += w->objects;
	e->live_bytes += w->bytes;
	e->var_live_bytes += w->var_bytes;
}

static uint64_t mean_of(const struct tool_heap *h, uint32_t used)
{
	uint32_t tag = used & TAG_MASK;
	return tag >= 1 && tag <= h->nmeans ? h->means[tag - 1] : 0;
}

/* snap_live_add / _sub: a snapshot-only object becomes live / leaves. */
static void snap_live(struct tool_hsite *s, uint64_t size, const struct weight *w, int d)
{
	s->snap_live_objects += (uint64_t)(int64_t)d;
	s->snap_live_bytes += (uint64_t)((int64_t)d * (int64_t)size);
	s->snap_est_live_objects += d * w->objects;
	s->snap_est_live_bytes += d * w->bytes;
	if (s->snap_live_objects == 0 || s->snap_est_live_objects < 0 || s->snap_est_live_bytes < 0)
		s->snap_est_live_objects = s->snap_est_live_bytes = 0; /* no rounding residue */
}

/* count_free counts the free of a live object (size, site, and its used
 * field: the tag of its mean, and flags). */
static void count_free(struct tool_heap *h, uint32_t site, uint64_t size, uint32_t used)
{
	struct tool_hsite *s = &h->sites.sites[site];
	uint64_t mean = mean_of(h, used);
	struct weight w = weight_of(size, mean);
	if (used & SNAP_ONLY)
		snap_live(s, size, &w, -1);
	s->free_objects++;
	s->free_bytes += size;
	s->live_objects--;
	s->live_bytes -= size;
	est_free(&s->est, &w, s->live_objects);
	h->free_objects++;
	h->free_bytes += size;
	h->live_objects--;
	h->live_bytes -= size;
	est_free(&h->est, &w, h->live_objects);
	h->live_peak_figure -= tool_heap_sample_bytes(size, mean);
}

/* type_of: size and site of a type of the generation. */
static uint32_t type_site(struct tool_heap *h, uint64_t type, uint64_t *size)
{
	uint64_t stack = 0;
	*size = 0;
	struct tool_hmap_entry *t = type ? tool_hmap_get(&h->g_types, type) : NULL;
	if (t) {
		*size = h->g_typ[t->val].size;
		stack = h->g_typ[t->val].stack;
	} else {
		h->untyped++;
	}
	return tool_gen_site(&h->tables, &h->sites, stack);
}

static void peak_check(struct tool_heap *h, uint64_t ts)
{
	if ((double)h->live_peak_figure > h->peak_bytes) {
		h->peak_bytes = (double)h->live_peak_figure;
		h->peak_objects = h->est.live_objects;
		h->peak_time = tool_heap_seconds(h, ts, h->g_freq);
		h->peak_ts = ts;
	}
}

/* snap_take adds a live object known from a snapshot only (o: its new
 * entry). first: the window's first generation (live before it). */
static void snap_take(struct tool_heap *h, struct tool_hmap_entry *o, uint64_t size, uint32_t site, bool first,
		      uint64_t ts)
{
	uint64_t mean = h->means[h->g_mean];
	struct weight w = weight_of(size, mean);
	o->val = size;
	o->aux = site;
	o->used = (h->g_mean + 1) | SNAP_ONLY | SNAP_NOW | stamp(h);
	struct tool_hsite *s = &h->sites.sites[site];
	if ((s->alloc_objects == 0 && s->snap_objects == 0) || size < s->min_size)
		s->min_size = size;
	if ((s->alloc_objects == 0 && s->snap_objects == 0) || size > s->max_size)
		s->max_size = size;
	s->snap_objects++;
	s->snap_bytes += size;
	snap_live(s, size, &w, 1);
	s->live_objects++;
	s->live_bytes += size;
	s->est.live_objects += w.objects;
	s->est.live_bytes += w.bytes;
	s->est.var_live_bytes += w.var_bytes;
	h->live_objects++;
	h->live_bytes += size;
	h->est.live_objects += w.objects;
	h->est.live_bytes += w.bytes;
	h->est.var_live_bytes += w.var_bytes;
	if (first) {
		h->before_objects++;
		h->before_bytes += size;
		h->before_est_objects += w.objects;
		h->before_est_bytes += w.bytes;
	} else {
		h->snap_added++;
	}
	h->live_peak_figure += tool_heap_sample_bytes(size, mean);
	peak_check(h, ts);
}

/* snap_untake takes back what snap_take added for o (this generation's). */
static void snap_untake(struct tool_heap *h, struct tool_hmap_entry *o)
{
	uint64_t size = o->val, mean = mean_of(h, o->used);
	struct weight w = weight_of(size, mean);
	struct tool_hsite *s = &h->sites.sites[o->aux];
	s->snap_objects--;
	s->snap_bytes -= size;
	snap_live(s, size, &w, -1);
	s->live_objects--;
	s->live_bytes -= size;
	est_free(&s->est, &w, s->live_objects);
	h->live_objects--;
	h->live_bytes -= size;
	est_free(&h->est, &w, h->live_objects);
	if (h->gens == 0) {
		h->before_objects--;
		h->before_bytes -= size;
		h->before_est_objects -= w.objects;
		h->before_est_bytes -= w.bytes;
	} else {
		h->snap_added--;
	}
	h->live_peak_figure -= tool_heap_sample_bytes(size, mean);
}

/* replay_object: a HeapObject of the generation's snapshot. */
static int replay_object(struct tool_heap *h, const struct gt_event *ev)
{
	uint64_t addr = h->g_min_addr + ev->args[0] * h->g_align;
	h->g_snap_events++;
	h->snap_events++;
	struct tool_hmap_entry *o = tool_hmap_get(&h->live, addr);
	if (o) {
		o->used = (o->used & ~STAMP_MASK) | stamp(h);
		return 0;
	}
	uint64_t size;
	uint32_t site = type_site(h, ev->args[1], &size);
	if (site == TOOL_SITE_NONE)
		return oom(h);
	bool fresh;
	o = tool_hmap_put(&h->live, addr, &fresh);
	if (!o)
		return oom(h);
	snap_take(h, o, size, site, h->gens == 0, ev->ts);
	return 0;
}

/* snap_sweep ends a generation that had a snapshot: a known object it did
 * not restate and that was not allocated in it was freed unseen (not in
 * the window's first generation: nothing was known before it). Clears the
 * generation's flags. */
static int snap_sweep(struct tool_heap *h)
{
	bool reconcile = h->g_snap_events > 0 && h->gens > 0;
	struct tool_hmap *m = &h->live;
	uint64_t *gone = NULL;
	size_t ngone = 0, cap = 0;
	for (size_t i = 0; i < m->cap; i++) {
		struct tool_hmap_entry *o = &m->e[i];
		if (!o->used)
			continue;
		if (reconcile && (o->used & STAMP_MASK) != stamp(h)) {
			if (tool_grow(&gone, &cap, ngone + 1, sizeof *gone)) {
				free(gone);
				return oom(h);
			}
			gone[ngone++] = o->key;
			continue;
		}
		o->used &= ~SNAP_NOW;
	}
	/* Deleted after the walk: a deletion moves entries. */
	for (size_t i = 0; i < ngone; i++) {
		struct tool_hmap_entry o;
		if (tool_hmap_del(m, gone[i], &o)) {
			count_free(h, o.aux, o.val, o.used);
			h->snap_gone++;
		}
	}
	free(gone);
	return 0;
}

static int replay_alloc(struct tool_heap *h, const struct gt_event *ev)
{
	uint64_t addr = h->g_min_addr + ev->args[0] * h->g_align;
	uint64_t size;
	uint32_t site = type_site(h, ev->args[1], &size);
	if (site == TOOL_SITE_NONE)
		return oom(h);

	bool fresh;
	struct tool_hmap_entry *o = tool_hmap_put(&h->live, addr, &fresh);
	if (!o)
		return oom(h);
	if (!fresh && (o->used & SNAP_NOW)) {
		/* This generation's snapshot restated it just before: the same
		 * object, allocated between the switch and the copy. */
		snap_untake(h, o);
	} else if (!fresh) { /* its free was not recorded */
		h->replaced++;
		count_free(h, o->aux, o->val, o->used);
	}
	o->val = size;
	o->aux = site;
	o->used = (h->g_mean + 1) | stamp(h);

	struct weight w = weight_of(size, h->means[h->g_mean]);
	struct tool_hsite *s = &h->sites.sites[site];
	if (s->alloc_objects == 0 || size < s->min_size)
		s->min_size = size;
	if (s->alloc_objects == 0 || size > s->max_size)
		s->max_size = size;
	s->alloc_objects++;
	s->alloc_bytes += size;
	s->live_objects++;
	s->live_bytes += size;
	est_alloc(&s->est, &w);
	h->alloc_objects++;
	h->alloc_bytes += size;
	h->live_objects++;
	h->live_bytes += size;
	est_alloc(&h->est, &w);
	h->live_peak_figure += tool_heap_sample_bytes(size, h->means[h->g_mean]);
	peak_check(h, ev->ts);
	return 0;
}

static void replay_free(struct tool_heap *h, const struct gt_event *ev)
{
	struct tool_hmap_entry o;
	if (tool_hmap_del(&h->live, h->g_min_addr + ev->args[0] * h->g_align, &o))
		count_free(h, o.aux, o.val, o.used);
	else
		h->unknown_frees++;
}

/* replay_event accounts one heap event of thread m, in the merged order. */
static int replay_event(void *ctx, uint64_t m, const struct gt_event *ev)
{
	struct tool_heap *h = ctx;
	switch (ev->type) {
	case GT_EV_HEAP_OBJECT_ALLOC:
		if (replay_alloc(h, ev))
			return -1;
		h->events++;
		break;
	case GT_EV_HEAP_OBJECT_FREE:
		replay_free(h, ev);
		h->events++;
		break;
	case GT_EV_HEAP_OBJECT:
		if (replay_object(h, ev))
			return -1;
		break;
	case GT_EV_HEAP_ALLOC:
		if (!h->have_metric || ev->args[0] > h->metric_max) {
			h->have_metric = true;
			h->metric_max = ev->args[0];
			h->metric_time = tool_heap_seconds(h, ev->ts, h->g_freq);
		}
		break;
	}
	return 0;
}

/* set_mean finds the generation's sampling mean (its own statement, or
 * the one in force) and its index in means. */
static int set_mean(struct tool_heap *h, uint64_t *mean)
{
	*mean = h->g_sample_set ? h->g_sample_bytes : h->sample_bytes;
	size_t i = 0;
	while (i < h->nmeans && h->means[i] != *mean)
		i++;
	if (i == h->nmeans) {
		if (h->nmeans >= MAX_MEANS || tool_grow(&h->means, &h->cap_means, h->nmeans + 1, sizeof *h->means))
			return oom(h);
		h->means[h->nmeans++] = *mean;
	}
	h->g_mean = (uint32_t)i;
	return 0;
}

/* end_gen replays the generation's heap events, then drops it. */
static int end_gen(struct tool_heap *h)
{
	if (!h->gen_open)
		return 0;
	if (h->g_freq == 0)
		h->g_freq = h->freq;
	h->freq = h->g_freq;
	if (!h->have_t0) {
		/* Events are never before their batch's base time. */
		h->have_t0 = true;
		h->t0 = h->g_min_ts != UINT64_MAX ? h->g_min_ts : 0;
	}
	uint64_t mean;
	if (set_mean(h, &mean))
		return -1;
	/* Counted before the replay: events it accounts before an error are
	 * weighted with this mean too. */
	h->sample_bytes = mean;
	if (mean) {
		if (h->sampled_gens == 0 || mean < h->sample_min)
			h->sample_min = mean;
		if (h->sampled_gens == 0 || mean > h->sample_max)
			h->sample_max = mean;
		h->sampled_gens++;
	}
	if (failed(h, tool_replay_merge(&h->replay, h->gen, replay_event, h, h->err, sizeof h->err)))
		return -1;
	if (h->g_snap_events) {
		h->snap_gens++;
		if (snap_sweep(h))
			return -1;
	}
	double end = tool_heap_seconds(h, h->replay.max_ts, h->g_freq);
	if (end > h->duration)
		h->duration = end;
	h->min_addr = h->g_min_addr;
	h->align = h->g_align;
	if (h->gens++ == 0)
		h->first_gen = h->gen;
	h->last_gen = h->gen;
	drop_gen(h);
	return 0;
}

int tool_heap_batch(struct tool_heap *h, const struct gt_rbatch *b)
{
	if (h->batch_hook)
		h->batch_hook(h->hook_ctx, b);
	if (b->kind == GT_BATCH_END_OF_GEN)
		return end_gen(h);
	if (h->gen_open && b->gen != h->gen && end_gen(h))
		return -1;
	if (!h->gen_open)
		start_gen(h, b->gen);
	if ((b->kind == GT_BATCH_SYNC || (b->kind == GT_BATCH_EVENTS && b->len > 0)) && b->base_ts != 0 &&
	    b->base_ts < h->g_min_ts)
		h->g_min_ts = b->base_ts;

	switch (b->kind) {
	case GT_BATCH_EVENTS: return failed(h, tool_replay_add(&h->replay, b, h->err, sizeof h->err));
	case GT_BATCH_STRINGS:
		return failed(h, tool_gen_read_strings(&h->tables, b, fresh_string, h, h->err, sizeof h->err));
	case GT_BATCH_STACKS: return failed(h, tool_gen_read_stacks(&h->tables, b, h->err, sizeof h->err));
	case GT_BATCH_SYNC: return read_sync(h, b);
	case GT_BATCH_EXPERIMENTAL: return b->exp == GT_EXP_ALLOCFREE ? read_allocfree(h, b) : 0;
	case GT_BATCH_CPU_SAMPLES:
	case GT_BATCH_END_OF_GEN: break;
	}
	return 0;
}

int tool_heap_end(struct tool_heap *h)
{
	if (h->batch_hook)
		h->batch_hook(h->hook_ctx, NULL);
	return end_gen(h);
}

static int feed(void *ctx, const struct gt_rbatch *b)
{
	return tool_heap_batch(ctx, b);
}

static int end(void *ctx)
{
	return tool_heap_end(ctx);
}

int tool_heap_read(struct tool_heap *h, FILE *f)
{
	return failed(h, tool_replay_read(&h->replay, f, &h->version, feed, end, h, h->err, sizeof h->err));
}
