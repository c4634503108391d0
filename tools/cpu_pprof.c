/* cpu_pprof.c — the CPU profile of `gotrace cpu -pprof` (cpu_report.h).
 *
 * As Go's CPU profile (runtime/pprof): sample types samples/count and
 * cpu/nanoseconds, period type cpu/nanoseconds, period 1e9 / hz; each
 * sample is a sampled stack, leaf first, with its count and count × period.
 * One sample per (stack, thread), labelled "thread" (the thread's label or
 * G<goid>) and "group" (its start function), so that `go tool pprof
 * -tagfocus=group=worker_main` keeps one thread group. Every frame is a
 * location with one line; functions are keyed by (name, file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cpu_report.h"
#include "tools/stat_site.h"

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

/* labels returns the profile strings of a thread's labels, made once per
 * thread (slot nth: no thread). */
static void labels(struct ctx *c, int64_t (*lab)[2], uint32_t thread)
{
	const struct tool_stat *s = c->s;
	size_t slot = thread < s->nth ? thread : s->nth;
	if (lab[slot][0])
		return;
	char buf[64], pc[32];
	lab[slot][0] = tool_pprof_cstring(c->p, tool_cpu_thread_name(s, thread, buf, sizeof buf));
	const char *group = "(no thread)";
	if (slot < s->nth)
		group = s->th[slot].func == TOOL_STAT_NONE ? "(unknown)" : tool_frame_name(s, s->th[slot].func, pc, sizeof pc);
	lab[slot][1] = tool_pprof_cstring(c->p, group);
}

int tool_cpu_pprof(const struct tool_stat *s, const char *name, struct tool_pprof *p)
{
	struct ctx c = { .s = s, .p = p };
	tool_pprof_init(p);
	tool_hmap_init(&c.funcs);
	c.str = calloc(s->sites.nstrs ? s->sites.nstrs : 1, sizeof *c.str);
	c.loc = calloc(s->sites.nframes ? s->sites.nframes : 1, sizeof *c.loc);
	int64_t (*lab)[2] = calloc(s->nth + 1, sizeof *lab); /* thread -> label strings (0: not yet) */
	int rc = -1;
	if (!c.str || !c.loc || !lab)
		goto out;
	const struct tool_cpu *cpu = &s->cpu;
	int64_t period = (int64_t)tool_cpu_period(cpu);
	int64_t ns = tool_pprof_cstring(p, "nanoseconds");
	tool_pprof_sample_type(p, tool_pprof_cstring(p, "samples"), tool_pprof_cstring(p, "count"));
	int64_t cpu_s = tool_pprof_cstring(p, "cpu");
	tool_pprof_sample_type(p, cpu_s, ns);
	tool_pprof_period(p, cpu_s, ns, period);
	tool_pprof_time(p, 0, (int64_t)(s->have_time ? s->t_last - s->t_first : 0));
	tool_pprof_mapping(p, MAPPING, 0, UINT64_MAX, tool_pprof_cstring(p, name));
	char note[160];
	snprintf(note, sizeof note, "gotrace cpu: CPU samples of the trace at %llu Hz (%s)",
		 (unsigned long long)tool_cpu_rate(cpu), cpu->hz ? "stated by the trace" : "assumed: Go's default");
	tool_pprof_comment(p, tool_pprof_cstring(p, note));
	int64_t k_thread = tool_pprof_cstring(p, "thread"), k_group = tool_pprof_cstring(p, "group");
	for (size_t i = 0; i < cpu->n; i++) {
		const struct tool_csample *cs = &cpu->c[i];
		const struct tool_hsite *h = &s->sites.sites[cs->site];
		const uint32_t *fr = tool_sites_site_frames(&s->sites, cs->site);
		uint64_t locs[GT_MAX_FRAMES];
		size_t n = 0;
		for (uint32_t k = 0; k < h->nframes && n < GT_MAX_FRAMES; k++)
			if (!(locs[n++] = location(&c, fr[k])))
				goto out;
		labels(&c, lab, cs->thread);
		size_t slot = cs->thread < s->nth ? cs->thread : s->nth;
		int64_t values[2] = { (int64_t)cs->count, (int64_t)cs->count * period };
		struct tool_pprof_label l[2] = { { .key = k_thread, .str = lab[slot][0] },
						 { .key = k_group, .str = lab[slot][1] } };
		tool_pprof_sample(p, locs, n, values, 2, l, 2);
	}
	rc = tool_pprof_failed(p) ? -1 : 0;
out:
	free(c.str);
	free(c.loc);
	free(lab);
	tool_hmap_free(&c.funcs);
	if (rc)
		tool_pprof_free(p);
	return rc;
}
