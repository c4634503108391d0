/* stat_read.c — `gotrace stat` input: generations, their string and stack
 * tables, and the replay of their events merged by time (stat_acct.h). */
#include "tools/stat_acct.h"
#include "tools/heap_sample.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef unsigned long long ull;

#define FALLBACK_FREQ 1000000000ull
#define KEEP_PAYLOAD (1u << 20) /* a payload arena this small is kept for the next generation */

static int failf(struct tool_stat *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int failf(struct tool_stat *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof s->err, fmt, ap);
	va_end(ap);
	return -1;
}

int tool_stat_oom(struct tool_stat *s)
{
	return failf(s, "out of memory (generation %llu: %zu batches, %zu bytes of batches kept; %zu threads, %zu sites)",
		     (ull)s->gen, s->g_nruns, s->g_npayload, s->nth, s->sites.nsites);
}

int tool_stat_init(struct tool_stat *s)
{
	memset(s, 0, sizeof *s);
	struct tool_hmap *maps[] = { &s->th_index, &s->m_cur, &s->wait_index, &s->syscall_index,
				   &s->g_strings, &s->g_stacks, &s->g_m_index };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
		tool_hmap_init(maps[i]);
	s->fd = -1;
	s->freq = FALLBACK_FREQ;
	if (tool_sites_init(&s->sites))
		return tool_stat_oom(s);
	return 0;
}

void tool_stat_free(struct tool_stat *s)
{
	struct tool_hmap *maps[] = { &s->th_index, &s->m_cur, &s->wait_index, &s->syscall_index,
				   &s->g_strings, &s->g_stacks, &s->g_m_index };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
		tool_hmap_free(maps[i]);
	tool_sites_free(&s->sites);
	for (size_t i = 0; i < s->g_nms; i++)
		free(s->g_ms[i].buf);
	void *arrays[] = { s->th, s->waits, s->syscalls, s->g_str, s->g_chars, s->g_stk, s->g_frames,
			   s->g_runs, s->g_payload, s->g_ms, s->g_heap };
	for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
		free(arrays[i]);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

uint64_t tool_stat_ns(const struct tool_stat *s, uint64_t ts)
{
	uint64_t f = s->g_freq ? s->g_freq : s->freq;
	if (f == 1000000000ull)
		return ts;
	unsigned __int128 ns = (unsigned __int128)ts * 1000000000u / f;
	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* ---- the generation's tables ---- */

/* table_slot maps a table id to index n (a fresh id) or reports a repeat
 * (the first definition stays). Returns 1 fresh, 0 repeated, -1 no memory. */
static int table_slot(struct tool_stat *s, struct tool_hmap *m, uint64_t id, size_t n)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(m, id, &fresh);
	if (!e)
		return tool_stat_oom(s);
	if (fresh)
		e->val = n;
	return fresh;
}

static int read_strings(struct tool_stat *s, const struct gt_rbatch *b)
{
	struct gt_string_cursor c;
	struct gt_string str;
	int r;
	if (gt_strings_begin(&c, b))
		return failf(s, "%s", c.at.err);
	while ((r = gt_strings_next(&c, &str)) > 0) {
		int fresh = table_slot(s, &s->g_strings, str.id, s->g_nstr);
		if (fresh < 0)
			return -1;
		if (!fresh)
			continue;
		/* The process identity: every generation has it, the first is kept. */
		if (!s->have_ident && tool_ident_parse(str.data, str.len, &s->ident))
			s->have_ident = true;
		/* Sampled heap events: every generation says so, the first is kept. */
		uint64_t mean;
		if (!s->heap_sample_bytes && tool_heap_sample_parse(str.data, str.len, &mean))
			s->heap_sample_bytes = mean;
		if (tool_grow(&s->g_str, &s->g_cap_str, s->g_nstr + 1, sizeof *s->g_str) ||
		    tool_grow(&s->g_chars, &s->g_cap_chars, s->g_nchars + str.len + 1, 1))
			return tool_stat_oom(s);
		s->g_str[s->g_nstr++] = (struct tool_sgstr){ s->g_nchars, (uint32_t)str.len, TOOL_STAT_NONE };
		memcpy(s->g_chars + s->g_nchars, str.data, str.len);
		s->g_nchars += str.len;
	}
	return r < 0 ? failf(s, "%s", c.at.err) : 0;
}

static int read_stacks(struct tool_stat *s, const struct gt_rbatch *b)
{
	struct gt_stack_cursor c;
	struct gt_stack *stk = malloc(sizeof *stk); /* 4 KiB of frames */
	int r = 0, rc = 0;
	if (!stk)
		return tool_stat_oom(s);
	if (gt_stacks_begin(&c, b)) {
		free(stk);
		return failf(s, "%s", c.at.err);
	}
	while (rc == 0 && (r = gt_stacks_next(&c, stk)) > 0) {
		int fresh = table_slot(s, &s->g_stacks, stk->id, s->g_nstk);
		if (fresh <= 0) {
			rc = fresh;
			continue;
		}
		if (tool_grow(&s->g_stk, &s->g_cap_stk, s->g_nstk + 1, sizeof *s->g_stk) ||
		    tool_grow(&s->g_frames, &s->g_cap_frames, s->g_nframes + 4 * stk->nframes, sizeof *s->g_frames)) {
			rc = tool_stat_oom(s);
			continue;
		}
		s->g_stk[s->g_nstk++] = (struct tool_sgstk){ s->g_nframes, (uint32_t)stk->nframes, TOOL_STAT_NONE };
		for (size_t i = 0; i < stk->nframes; i++) {
			s->g_frames[s->g_nframes++] = stk->frames[i].pc;
			s->g_frames[s->g_nframes++] = stk->frames[i].func;
			s->g_frames[s->g_nframes++] = stk->frames[i].file;
			s->g_frames[s->g_nframes++] = stk->frames[i].line;
		}
	}
	if (rc == 0 && r < 0)
		rc = failf(s, "%s", c.at.err);
	free(stk);
	return rc;
}

uint32_t tool_stat_string(struct tool_stat *s, uint64_t id)
{
	struct tool_hmap_entry *e = id ? tool_hmap_get(&s->g_strings, id) : NULL;
	if (!e)
		return 0;
	struct tool_sgstr *str = &s->g_str[e->val];
	if (str->global == TOOL_STAT_NONE)
		str->global = tool_sites_string(&s->sites, s->g_chars + str->off, str->len);
	return str->global;
}

uint32_t tool_stat_stack(struct tool_stat *s, uint64_t id)
{
	struct tool_hmap_entry *e = id ? tool_hmap_get(&s->g_stacks, id) : NULL;
	if (!e)
		return tool_sites_site(&s->sites, NULL, 0);
	struct tool_sgstk *stk = &s->g_stk[e->val];
	if (stk->site != TOOL_STAT_NONE)
		return stk->site;
	uint32_t frames[GT_MAX_FRAMES];
	uint32_t n = stk->n < GT_MAX_FRAMES ? stk->n : GT_MAX_FRAMES;
	for (uint32_t i = 0; i < n; i++) {
		const uint64_t *f = s->g_frames + stk->off + 4 * i;
		uint32_t func = tool_stat_string(s, f[1]), file = tool_stat_string(s, f[2]);
		if (func == TOOL_STAT_NONE || file == TOOL_STAT_NONE)
			return TOOL_STAT_NONE;
		frames[i] = tool_sites_frame(&s->sites, func, file, f[3], f[0]);
		if (frames[i] == TOOL_STAT_NONE)
			return TOOL_STAT_NONE;
	}
	stk->site = tool_sites_site(&s->sites, frames, n);
	return stk->site;
}

/* ---- event batches ---- */

/* remember adds an event batch to its M's list for the replay, copying the
 * payload unless it can be read again. */
static int remember(struct tool_stat *s, const struct gt_rbatch *b)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(&s->g_m_index, b->m, &fresh);
	if (!e || s->g_nruns >= UINT32_MAX - 1 || s->g_nms >= UINT32_MAX - 1)
		return tool_stat_oom(s);
	if (fresh) {
		if (tool_grow(&s->g_ms, &s->g_cap_ms, s->g_nms + 1, sizeof *s->g_ms))
			return tool_stat_oom(s);
		e->val = s->g_nms;
		s->g_ms[s->g_nms++] = (struct tool_replay_thread){ .m = b->m, .first = UINT32_MAX, .last = UINT32_MAX };
	}
	size_t mi = e->val;
	if (tool_grow(&s->g_runs, &s->g_cap_runs, s->g_nruns + 1, sizeof *s->g_runs))
		return tool_stat_oom(s);
	struct tool_replay_run run = { b->base_ts, b->data_offset, b->len, SIZE_MAX, UINT32_MAX };
	if (s->fd < 0) {
		if (tool_grow(&s->g_payload, &s->g_cap_payload, s->g_npayload + b->len, 1))
			return tool_stat_oom(s);
		memcpy(s->g_payload + s->g_npayload, b->data, b->len);
		run.mem = s->g_npayload;
		s->g_npayload += b->len;
	}
	uint32_t i = (uint32_t)s->g_nruns++;
	s->g_runs[i] = run;
	struct tool_replay_thread *m = &s->g_ms[mi];
	if (m->last == UINT32_MAX)
		m->first = i;
	else
		s->g_runs[m->last].next = i;
	m->last = i;
	return 0;
}

/* read_events checks an event batch to its end, so that the replay cannot
 * fail on it, and remembers it. */
static int read_events(struct tool_stat *s, const struct gt_rbatch *b)
{
	struct gt_event_cursor c;
	struct gt_event ev;
	uint64_t n = 0;
	int r;
	gt_events_begin(&c, b);
	while ((r = gt_events_next(&c, &ev)) > 0)
		n++;
	if (r < 0)
		return failf(s, "%s", c.at.err);
	s->g_events += n;
	return n ? remember(s, b) : 0;
}

static int read_sync(struct tool_stat *s, const struct gt_rbatch *b)
{
	struct gt_sync sync;
	char err[GT_READER_ERR];
	if (gt_sync_decode(b, &sync, err))
		return failf(s, "%s", err);
	if (s->g_freq == 0)
		s->g_freq = sync.freq;
	return 0;
}

/* ---- the replay ---- */

static int load_run(struct tool_stat *s, struct tool_replay_thread *m, uint32_t i)
{
	struct tool_replay_src src = { s->g_runs, s->g_payload, s->fd, s->fd_base, s->gen };
	int r = tool_replay_load(&src, m, i, s->err, sizeof s->err);
	return r == -2 ? tool_stat_oom(s) : r;
}

/* advance moves M m to its next event: 1, 0 when it has none, -1 on error. */
static int advance(struct tool_stat *s, struct tool_replay_thread *m)
{
	for (;;) {
		int r = gt_events_next(&m->c, &m->ev);
		if (r != 0)
			return r < 0 ? failf(s, "%s", m->c.at.err) : 1;
		uint32_t next = s->g_runs[m->run].next;
		if (next == UINT32_MAX) {
			free(m->buf); /* done with this M for the generation */
			m->buf = NULL;
			m->cap = 0;
			return 0;
		}
		if (load_run(s, m, next))
			return -1;
	}
}

static int load_first(void *ctx, struct tool_replay_thread *m)
{
	return load_run(ctx, m, m->first);
}

static int next_event(void *ctx, struct tool_replay_thread *m)
{
	return advance(ctx, m);
}

static int emit_event(void *ctx, struct tool_replay_thread *m)
{
	return tool_stat_event(ctx, m->m, &m->ev);
}

static int replay(struct tool_stat *s)
{
	int r = tool_replay_merge(s->g_ms, s->g_nms, &s->g_heap, load_first, next_event, emit_event, s);
	return r == -2 ? tool_stat_oom(s) : r;
}

/* ---- generations ---- */

static void drop_gen(struct tool_stat *s)
{
	tool_hmap_clear(&s->g_strings);
	tool_hmap_clear(&s->g_stacks);
	tool_hmap_clear(&s->g_m_index);
	for (size_t i = 0; i < s->g_nms; i++)
		free(s->g_ms[i].buf);
	s->g_nstr = s->g_nchars = s->g_nstk = s->g_nframes = 0;
	s->g_nruns = s->g_npayload = s->g_nms = 0;
	s->g_events = 0;
	if (s->g_cap_payload > KEEP_PAYLOAD) {
		free(s->g_payload);
		s->g_payload = NULL;
		s->g_cap_payload = 0;
	}
	s->gen_open = false;
}

static int end_gen(struct tool_stat *s)
{
	if (!s->gen_open)
		return 0;
	if (s->g_freq == 0)
		s->g_freq = s->freq;
	s->freq = s->g_freq;
	if (replay(s))
		return -1;
	s->events += s->g_events;
	if (s->gens++ == 0)
		s->first_gen = s->gen;
	s->last_gen = s->gen;
	drop_gen(s);
	return 0;
}

int tool_stat_batch(struct tool_stat *s, const struct gt_rbatch *b)
{
	if (s->finished)
		return failf(s, "batch at offset %llu after the end of the accounting", (ull)b->offset);
	if (b->kind == GT_BATCH_END_OF_GEN)
		return end_gen(s);
	if (s->gen_open && b->gen != s->gen && end_gen(s))
		return -1;
	if (!s->gen_open) {
		s->gen = b->gen;
		s->gen_open = true;
		s->g_freq = 0;
	}
	switch (b->kind) {
	case GT_BATCH_EVENTS: return read_events(s, b);
	case GT_BATCH_STRINGS: return read_strings(s, b);
	case GT_BATCH_STACKS: return read_stacks(s, b);
	case GT_BATCH_SYNC: return read_sync(s, b);
	default: return 0; /* CPU samples, experimental batches: nothing to count */
	}
}

int tool_stat_end(struct tool_stat *s)
{
	int rc = s->finished ? 0 : end_gen(s);
	tool_stat_finish(s);
	return rc;
}

int tool_stat_read(struct tool_stat *s, FILE *f)
{
	struct gt_reader *r = malloc(sizeof *r);
	struct gt_rbatch b;
	int rc = -1;
	if (!r) {
		tool_stat_oom(s);
		tool_stat_finish(s);
		return -1;
	}
	s->fd = tool_replay_fd(f, &s->fd_base);
	if (gt_reader_init(r, f)) {
		failf(s, "%s", r->err);
		goto out;
	}
	s->version = r->version;
	int got;
	while ((got = gt_reader_next(r, &b)) > 0)
		if (tool_stat_batch(s, &b))
			goto out;
	if (got < 0) {
		failf(s, "%s", r->err);
		goto out;
	}
	rc = tool_stat_end(s);
out:
	tool_stat_finish(s);
	free(r);
	s->fd = -1; /* f is the caller's again */
	return rc;
}
