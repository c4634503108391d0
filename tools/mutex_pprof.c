/* mutex_pprof.c — the mutex profile of `gotrace mutex -pprof`
 * (mutex_report.h).
 *
 * As Go's mutex profile: sample types contentions/count and
 * delay/nanoseconds, period type contentions/count, period 1; each sample
 * is a releasing stack, leaf first (the release call itself, then the code
 * that released), so `pprof -top` puts the flat delay on the release and
 * the cum delay on the code that held the lock. One sample per (stack,
 * holder thread), labelled "holder" with the holder's name. Every frame is
 * a location with one line; functions are keyed by (name, file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/mutex_report.h"

#define MAPPING 1 /* the one mapping: every address, already symbolized */

struct ctx {
	const struct tool_stat *s;
	struct tool_pprof *p;
	int64_t *str;       /* sites string -> profile string (0: not yet) */
	uint64_t *loc;      /* frame -> location id (0: not yet) */
	struct tool_hmap funcs; /* name << 32 | file -> function id */
	uint64_t nfuncs, nlocs;
};

static int64_t str(struct ctx *c, uint32_t i)
{
	const struct tool_sites *s = &c->s->sites;
	if (i == 0 || tool_sites_strlen(s, i) == 0)
		return 0;
	if (!c->str[i])
		c->str[i] = tool_pprof_string(c->p, tool_sites_str(s, i), tool_sites_strlen(s, i));
	return c->str[i];
}

static uint64_t location(struct ctx *c, uint32_t frame)
{
	if (c->loc[frame])
		return c->loc[frame];
	const struct tool_hframe *f = &c->s->sites.frames[frame];
	int64_t name = str(c, f->func);
	if (name == 0) {
		char buf[32];
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)f->pc);
		name = tool_pprof_cstring(c->p, buf);
	}
	int64_t file = str(c, f->file);
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(&c->funcs, (uint64_t)name << 32 | (uint64_t)file, &fresh);
	if (!e)
		return 0;
	if (fresh) {
		e->val = ++c->nfuncs;
		tool_pprof_function(c->p, e->val, name, name, file, 0);
	}
	c->loc[frame] = ++c->nlocs;
	tool_pprof_location(c->p, c->loc[frame], MAPPING, f->pc, e->val, (int64_t)f->line);
	return c->loc[frame];
}

int tool_mutex_pprof(const struct tool_stat *s, const char *name, struct tool_pprof *p)
{
	struct ctx c = { .s = s, .p = p };
	tool_pprof_init(p);
	tool_hmap_init(&c.funcs);
	c.str = calloc(s->sites.nstrs ? s->sites.nstrs : 1, sizeof *c.str);
	c.loc = calloc(s->sites.nframes ? s->sites.nframes : 1, sizeof *c.loc);
	int64_t *holder = calloc(s->nth + 1, sizeof *holder); /* thread -> label string (0: not yet) */
	int rc = -1;
	if (!c.str || !c.loc || !holder)
		goto out;
	int64_t count = tool_pprof_cstring(p, "contentions");
	tool_pprof_sample_type(p, count, tool_pprof_cstring(p, "count"));
	int64_t delay = tool_pprof_cstring(p, "delay");
	tool_pprof_sample_type(p, delay, tool_pprof_cstring(p, "nanoseconds"));
	tool_pprof_default_sample_type(p, delay);
	tool_pprof_period(p, count, tool_pprof_cstring(p, "count"), 1);
	tool_pprof_time(p, 0, (int64_t)(s->have_time ? s->t_last - s->t_first : 0));
	tool_pprof_mapping(p, MAPPING, 0, UINT64_MAX, tool_pprof_cstring(p, name));
	tool_pprof_comment(p, tool_pprof_cstring(p, "gotrace mutex: lock waits (sync.mutex, sync.rwlock) ended by "
						  "another thread's release, delay charged to the releasing stack"));
	int64_t k_holder = tool_pprof_cstring(p, "holder");
	const struct tool_mutex *m = &s->mutex;
	for (size_t i = 0; i < m->n; i++) {
		const struct tool_mcont *mc = &m->c[i];
		const struct tool_hsite *h = &s->sites.sites[mc->site];
		const uint32_t *fr = tool_sites_site_frames(&s->sites, mc->site);
		uint64_t locs[GT_MAX_FRAMES];
		size_t n = 0;
		for (uint32_t k = 0; k < h->nframes && n < GT_MAX_FRAMES; k++)
			if (!(locs[n++] = location(&c, fr[k])))
				goto out;
		size_t slot = mc->holder < s->nth ? mc->holder : s->nth;
		if (!holder[slot]) {
			char buf[160];
			holder[slot] = tool_pprof_cstring(p, tool_mutex_holder_name(s, mc->holder, buf, sizeof buf));
		}
		int64_t values[2] = { (int64_t)mc->count, (int64_t)mc->delay };
		struct tool_pprof_label label = { .key = k_holder, .str = holder[slot] };
		tool_pprof_sample(p, locs, n, values, 2, &label, 1);
	}
	rc = tool_pprof_failed(p) ? -1 : 0;
out:
	free(c.str);
	free(c.loc);
	free(holder);
	tool_hmap_free(&c.funcs);
	if (rc)
		tool_pprof_free(p);
	return rc;
}
