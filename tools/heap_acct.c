/* heap_acct.c — replays the AllocFree events of a trace into live objects
 * and per-site counters (heap_acct.h, docs/heap.md). */
#include "tools/heap_acct.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "encoder/varint.h"

typedef unsigned long long ull;

#define DEFAULT_ALIGN 8
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
	return fail(h, "out of memory (generation %llu: %zu heap events, %zu bytes of batches kept; %zu live objects)",
		    (ull)h->gen, h->g_nheap_events, h->g_npayload, h->live.n);
}

int tool_heap_init(struct tool_heap *h)
{
	memset(h, 0, sizeof *h);
	tool_hmap_init(&h->live);
	tool_hmap_init(&h->g_strings);
	tool_hmap_init(&h->g_stacks);
	tool_hmap_init(&h->g_types);
	tool_hmap_init(&h->g_thread_index);
	h->fd = -1;
	h->freq = DEFAULT_FREQ;
	h->align = DEFAULT_ALIGN;
	h->g_empty_site = TOOL_SITE_NONE;
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
	tool_hmap_free(&h->g_strings);
	tool_hmap_free(&h->g_stacks);
	tool_hmap_free(&h->g_types);
	tool_hmap_free(&h->g_thread_index);
	for (size_t i = 0; i < h->g_nthreads; i++)
		free(h->g_threads[i].buf);
	free(h->g_threads);
	free(h->g_runs);
	free(h->g_payload);
	free(h->g_heap);
	free(h->g_str);
	free(h->g_chars);
	free(h->g_stk);
	free(h->g_frames);
	free(h->g_typ);
	free(h->means);
	memset(h, 0, sizeof *h);
	h->fd = -1;
}

double tool_heap_seconds(const struct tool_heap *h, uint64_t ts, uint64_t freq)
{
	if (!freq)
		freq = DEFAULT_FREQ;
	if (ts <= h->t0)
		return 0;
	return (double)(ts - h->t0) / (double)freq;
}

/* ---- the generation's tables ---- */

static void start_gen(struct tool_heap *h, uint64_t gen)
{
	h->gen = gen;
	h->gen_open = true;
	h->g_freq = 0;
	h->g_min_ts = UINT64_MAX;
	h->g_max_ts = 0;
	h->g_info = false;
	h->g_min_addr = h->min_addr;
	h->g_align = h->align;
	h->g_sample_set = false;
}

/* drop_gen forgets the generation's tables and events (keeping memory
 * that is small enough to reuse). */
static void drop_gen(struct tool_heap *h)
{
	tool_hmap_clear(&h->g_strings);
	tool_hmap_clear(&h->g_stacks);
	tool_hmap_clear(&h->g_types);
	tool_hmap_clear(&h->g_thread_index);
	for (size_t i = 0; i < h->g_nthreads; i++)
		free(h->g_threads[i].buf);
	h->g_nstr = h->g_nchars = h->g_nstk = h->g_nframes = h->g_ntyp = 0;
	h->g_nruns = h->g_npayload = h->g_nthreads = h->g_nheap_events = 0;
	if (h->g_cap_payload > (1u << 20)) { /* keep a small arena only */
		free(h->g_payload);
		h->g_payload = NULL;
		h->g_cap_payload = 0;
	}
	h->g_empty_site = TOOL_SITE_NONE;
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

static int read_strings(struct tool_heap *h, const struct gt_rbatch *b)
{
	struct gt_string_cursor c;
	struct gt_string s;
	int r;
	if (gt_strings_begin(&c, b))
		return fail(h, "%s", c.at.err);
	while ((r = gt_strings_next(&c, &s)) > 0) {
		bool dup = false;
		if (add_id(h, &h->g_strings, s.id, h->g_nstr, &dup))
			return -1;
		if (dup)
			continue;
		/* The sampling statement: the first of the generation counts. */
		uint64_t mean;
		if (!h->g_sample_set && tool_heap_sample_parse(s.data, s.len, &mean)) {
			h->g_sample_set = true;
			h->g_sample_bytes = mean;
		}
		if (tool_grow(&h->g_str, &h->g_cap_str, h->g_nstr + 1, sizeof *h->g_str) ||
		    tool_grow(&h->g_chars, &h->g_cap_chars, h->g_nchars + s.len, 1))
			return oom(h);
		h->g_str[h->g_nstr++] = (struct tool_hgen_str){ .off = h->g_nchars, .len = (uint32_t)s.len,
							      .global = TOOL_SITE_NONE };
		if (s.len)
			memcpy(h->g_chars + h->g_nchars, s.data, s.len);
		h->g_nchars += s.len;
	}
	return r < 0 ? fail(h, "%s", c.at.err) : 0;
}

static int read_stacks(struct tool_heap *h, const struct gt_rbatch *b)
{
	struct gt_stack_cursor c;
	struct gt_stack *s = malloc(sizeof *s); /* 4 KiB of frames: not on the stack */
	int r = 0, rc = 0;
	if (!s)
		return oom(h);
	if (gt_stacks_begin(&c, b)) {
		free(s);
		return fail(h, "%s", c.at.err);
	}
	while (rc == 0 && (r = gt_stacks_next(&c, s)) > 0) {
		bool dup;
		if ((rc = add_id(h, &h->g_stacks, s->id, h->g_nstk, &dup)) || dup)
			continue;
		if (tool_grow(&h->g_stk, &h->g_cap_stk, h->g_nstk + 1, sizeof *h->g_stk) ||
		    tool_grow(&h->g_frames, &h->g_cap_frames, h->g_nframes + 4 * s->nframes, sizeof *h->g_frames)) {
			rc = oom(h);
			continue;
		}
		h->g_stk[h->g_nstk++] = (struct tool_hgen_stack){ .off = h->g_nframes, .n = (uint32_t)s->nframes,
								.site = TOOL_SITE_NONE };
		for (size_t i = 0; i < s->nframes; i++) {
			uint64_t *f = h->g_frames + h->g_nframes + 4 * i;
			f[0] = s->frames[i].pc;
			f[1] = s->frames[i].func;
			f[2] = s->frames[i].file;
			f[3] = s->frames[i].line;
		}
		h->g_nframes += 4 * s->nframes;
	}
	if (rc == 0 && r < 0)
		rc = fail(h, "%s", c.at.err);
	free(s);
	return rc;
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

static bool is_heap_event(uint8_t type)
{
	return type == GT_EV_HEAP_OBJECT_ALLOC || type == GT_EV_HEAP_OBJECT_FREE || type == GT_EV_HEAP_ALLOC;
}

/* add_run remembers an event batch with heap events for the replay, under
 * its thread, copying the payload unless it can be read again. */
static int add_run(struct tool_heap *h, const struct gt_rbatch *b)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(&h->g_thread_index, b->m, &fresh);
	if (!e || h->g_nruns >= UINT32_MAX || h->g_nthreads >= UINT32_MAX)
		return oom(h);
	if (fresh) {
		if (tool_grow(&h->g_threads, &h->g_cap_threads, h->g_nthreads + 1, sizeof *h->g_threads))
			return oom(h);
		e->val = h->g_nthreads;
		h->g_threads[h->g_nthreads++] = (struct tool_replay_thread){ .m = b->m, .first = UINT32_MAX,
								     .last = UINT32_MAX };
	}
	struct tool_replay_thread *t = &h->g_threads[e->val];
	if (tool_grow(&h->g_runs, &h->g_cap_runs, h->g_nruns + 1, sizeof *h->g_runs))
		return oom(h);
	uint32_t i = (uint32_t)h->g_nruns++;
	h->g_runs[i] = (struct tool_replay_run){ .base_ts = b->base_ts, .data_offset = b->data_offset, .len = b->len,
					 .mem = SIZE_MAX, .next = UINT32_MAX };
	if (h->fd < 0) {
		if (tool_grow(&h->g_payload, &h->g_cap_payload, h->g_npayload + b->len, 1))
			return oom(h);
		memcpy(h->g_payload + h->g_npayload, b->data, b->len);
		h->g_runs[i].mem = h->g_npayload;
		h->g_npayload += b->len;
	}
	if (t->last == UINT32_MAX)
		t->first = i;
	else
		h->g_runs[t->last].next = i;
	t->last = i;
	return 0;
}

/* read_events checks an event batch to its end (so the replay cannot fail
 * on it) and remembers it if it holds heap events. */
static int read_events(struct tool_heap *h, const struct gt_rbatch *b)
{
	struct gt_event_cursor c;
	struct gt_event ev;
	size_t n = 0;
	int r;
	gt_events_begin(&c, b);
	while ((r = gt_events_next(&c, &ev)) > 0) {
		if (ev.ts > h->g_max_ts)
			h->g_max_ts = ev.ts;
		n += is_heap_event(ev.type);
	}
	if (r < 0)
		return fail(h, "%s", c.at.err);
	h->g_nheap_events += n;
	return n ? add_run(h, b) : 0;
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

/* gen_string returns the interned string of a generation string id ("" for
 * 0 or an id the generation does not define), or TOOL_SITE_NONE. */
static uint32_t gen_string(struct tool_heap *h, uint64_t id)
{
	struct tool_hmap_entry *e = id ? tool_hmap_get(&h->g_strings, id) : NULL;
	if (!e)
		return 0;
	struct tool_hgen_str *s = &h->g_str[e->val];
	if (s->len == 0)
		return 0;
	if (s->global == TOOL_SITE_NONE)
		s->global = tool_sites_string(&h->sites, h->g_chars + s->off, s->len);
	return s->global;
}

/* stack_site returns the site of a generation stack id (the site without
 * frames for 0 or an undefined id), or TOOL_SITE_NONE when out of memory. */
static uint32_t stack_site(struct tool_heap *h, uint64_t id)
{
	struct tool_hmap_entry *e = id ? tool_hmap_get(&h->g_stacks, id) : NULL;
	if (!e) {
		if (h->g_empty_site == TOOL_SITE_NONE)
			h->g_empty_site = tool_sites_site(&h->sites, NULL, 0);
		return h->g_empty_site;
	}
	struct tool_hgen_stack *s = &h->g_stk[e->val];
	if (s->site != TOOL_SITE_NONE)
		return s->site;
	uint32_t frames[GT_MAX_FRAMES];
	for (uint32_t i = 0; i < s->n && i < GT_MAX_FRAMES; i++) {
		const uint64_t *f = h->g_frames + s->off + 4 * i;
		uint32_t func = gen_string(h, f[1]), file = gen_string(h, f[2]);
		if (func == TOOL_SITE_NONE || file == TOOL_SITE_NONE)
			return TOOL_SITE_NONE;
		if ((frames[i] = tool_sites_frame(&h->sites, func, file, f[3], f[0])) == TOOL_SITE_NONE)
			return TOOL_SITE_NONE;
	}
	s->site = tool_sites_site(&h->sites, frames, s->n < GT_MAX_FRAMES ? s->n : GT_MAX_FRAMES);
	return s->site;
}

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

/* count_free counts the free of a live object (size, site, and the tag
 * of its mean). */
static void count_free(struct tool_heap *h, uint32_t site, uint64_t size, uint32_t tag)
{
	struct tool_hsite *s = &h->sites.sites[site];
	uint64_t mean = tag >= 1 && tag <= h->nmeans ? h->means[tag - 1] : 0;
	struct weight w = weight_of(size, mean);
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
}

static int replay_alloc(struct tool_heap *h, const struct gt_event *ev)
{
	uint64_t addr = h->g_min_addr + ev->args[0] * h->g_align;
	uint64_t size = 0, stack = 0;
	uint64_t type = ev->args[1];
	struct tool_hmap_entry *t = type ? tool_hmap_get(&h->g_types, type) : NULL;
	if (t) {
		size = h->g_typ[t->val].size;
		stack = h->g_typ[t->val].stack;
	} else {
		h->untyped++;
	}
	uint32_t site = stack_site(h, stack);
	if (site == TOOL_SITE_NONE)
		return oom(h);

	bool fresh;
	struct tool_hmap_entry *o = tool_hmap_put(&h->live, addr, &fresh);
	if (!o)
		return oom(h);
	if (!fresh) { /* its free was not recorded */
		h->replaced++;
		count_free(h, o->aux, o->val, o->used);
	}
	o->val = size;
	o->aux = site;
	o->used = h->g_mean + 1;

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
	if (h->est.live_bytes > h->peak_bytes) {
		h->peak_bytes = h->est.live_bytes;
		h->peak_objects = h->est.live_objects;
		h->peak_time = tool_heap_seconds(h, ev->ts, h->g_freq);
	}
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

/* ---- the replay: the threads' heap events merged by time ---- */

/* load_run points thread t's cursor at run i. */
static int load_run(struct tool_heap *h, struct tool_replay_thread *t, uint32_t i)
{
	struct tool_replay_src src = { h->g_runs, h->g_payload, h->fd, h->fd_base, h->gen };
	int r = tool_replay_load(&src, t, i, h->err, sizeof h->err);
	return r == -2 ? oom(h) : r;
}

/* next_heap_event moves thread t to its next heap event: 1, 0 when it has
 * none left, -1 on an error. */
static int next_heap_event(struct tool_heap *h, struct tool_replay_thread *t)
{
	for (;;) {
		int r;
		while ((r = gt_events_next(&t->c, &t->ev)) > 0)
			if (is_heap_event(t->ev.type))
				return 1;
		if (r < 0)
			return fail(h, "%s", t->c.at.err);
		uint32_t next = h->g_runs[t->run].next;
		if (next == UINT32_MAX)
			return 0;
		if (load_run(h, t, next))
			return -1;
	}
}

static int replay_event(struct tool_heap *h, const struct gt_event *ev)
{
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

static int load_first(void *ctx, struct tool_replay_thread *t)
{
	return load_run(ctx, t, t->first);
}

static int next_event(void *ctx, struct tool_replay_thread *t)
{
	return next_heap_event(ctx, t);
}

static int emit_event(void *ctx, struct tool_replay_thread *t)
{
	return replay_event(ctx, &t->ev);
}

/* replay merges the threads' heap events by time and accounts them. */
static int replay(struct tool_heap *h)
{
	int r = tool_replay_merge(h->g_threads, h->g_nthreads, &h->g_heap, load_first, next_event, emit_event, h);
	return r == -2 ? oom(h) : r;
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
		if (h->nmeans >= UINT32_MAX - 1 || tool_grow(&h->means, &h->cap_means, h->nmeans + 1, sizeof *h->means))
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
	if (replay(h))
		return -1;
	double end = tool_heap_seconds(h, h->g_max_ts, h->g_freq);
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
	case GT_BATCH_EVENTS: return read_events(h, b);
	case GT_BATCH_STRINGS: return read_strings(h, b);
	case GT_BATCH_STACKS: return read_stacks(h, b);
	case GT_BATCH_SYNC: return read_sync(h, b);
	case GT_BATCH_EXPERIMENTAL: return b->exp == GT_EXP_ALLOCFREE ? read_allocfree(h, b) : 0;
	case GT_BATCH_CPU_SAMPLES:
	case GT_BATCH_END_OF_GEN: break;
	}
	return 0;
}

int tool_heap_end(struct tool_heap *h)
{
	return end_gen(h);
}

int tool_heap_read(struct tool_heap *h, FILE *f)
{
	struct gt_reader *r = malloc(sizeof *r);
	struct gt_rbatch b;
	int rc;
	if (!r)
		return oom(h);
	h->fd = tool_replay_fd(f, &h->fd_base);
	if (gt_reader_init(r, f)) {
		fail(h, "%s", r->err);
		free(r);
		h->fd = -1;
		return -1;
	}
	h->version = r->version;
	while ((rc = gt_reader_next(r, &b)) > 0)
		if (tool_heap_batch(h, &b)) {
			free(r);
			h->fd = -1;
			return -1;
		}
	if (rc < 0)
		fail(h, "%s", r->err);
	free(r);
	rc = rc < 0 ? -1 : tool_heap_end(h);
	h->fd = -1; /* f is the caller's again */
	return rc;
}
