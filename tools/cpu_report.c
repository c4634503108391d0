/* cpu_report.c — the CPU samples ranked and printed (cpu_report.h). */
#include "tools/cpu_report.h"

#include <stdlib.h>
#include <string.h>

#include "tools/mutex_report.h"
#include "tools/rank_list.h"
#include "tools/stat_site.h"

typedef unsigned long long ull;

#define DUR(ns) tool_stat_format_duration((ns), (char[24]){ 0 }, 24)

/* group_key: the start function of a thread as `gotrace stat` groups
 * threads (its name string, an unnamed frame, or UINT64_MAX: unknown). */
static uint64_t group_key(const struct tool_stat *s, uint32_t thread)
{
	if (thread == TOOL_CPU_NONE || thread >= s->nth)
		return TOOL_CPU_GROUP_NONE;
	const struct tool_sthread *t = &s->th[thread];
	if (t->func == TOOL_STAT_NONE)
		return UINT64_MAX;
	return tool_func_key(s, t->func);
}

static int cmp_funcs(const void *a, const void *b)
{
	const struct tool_cfunc *x = a, *y = b;
	if (x->flat != y->flat)
		return x->flat > y->flat ? -1 : 1;
	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_groups(const void *a, const void *b)
{
	const struct tool_cgroup *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_threads(const void *a, const void *b)
{
	const struct tool_cthread *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/* add_site charges count samples of site to the functions on its stack. */
static int add_site(const struct tool_stat *s, struct tool_cfunc **rows, size_t *n, size_t *cap,
		    struct tool_hmap *index, uint32_t site, uint64_t count)
{
	const struct tool_hsite *h = &s->sites.sites[site];
	const uint32_t *fr = tool_sites_site_frames(&s->sites, site);
	for (uint32_t k = 0; k < h->nframes; k++) {
		if (tool_stack_has(s, fr, k)) /* cum counts a function once per stack */
			continue;
		uint64_t key = tool_func_key(s, fr[k]);
		bool fresh;
		long at = tool_rank_row(rows, n, cap, sizeof **rows, index, key, &fresh);
		if (at < 0)
			return -1;
		struct tool_cfunc *f = &(*rows)[at];
		if (fresh)
			*f = (struct tool_cfunc){ .key = key, .frame = fr[k] };
		f->cum += count;
		if (k == 0)
			f->flat += count;
	}
	return 0;
}

/* group_funcs ranks the functions of the samples of group g. */
static int group_funcs(const struct tool_stat *s, struct tool_cgroup *g)
{
	struct tool_hmap index;
	tool_hmap_init(&index);
	size_t cap = 0;
	int rc = 0;
	for (size_t i = 0; i < s->cpu.n && rc == 0; i++)
		if (group_key(s, s->cpu.c[i].thread) == g->key)
			rc = add_site(s, &g->funcs, &g->nfuncs, &cap, &index, s->cpu.c[i].site, s->cpu.c[i].count);
	tool_hmap_free(&index);
	qsort(g->funcs, g->nfuncs, sizeof *g->funcs, cmp_funcs);
	return rc;
}

int tool_cpu_view_build(struct tool_cpu_view *v, const struct tool_stat *s)
{
	memset(v, 0, sizeof *v);
	struct tool_hmap ifn, ith, igr;
	tool_hmap_init(&ifn);
	tool_hmap_init(&ith);
	tool_hmap_init(&igr);
	size_t capf = 0, capt = 0, capg = 0;
	int rc = -1;
	const struct tool_cpu *c = &s->cpu;
	for (size_t i = 0; i < c->n; i++) {
		const struct tool_csample *cs = &c->c[i];
		if (add_site(s, &v->funcs, &v->nfuncs, &capf, &ifn, cs->site, cs->count))
			goto out;
		bool fresh;
		long at = tool_rank_row(&v->threads, &v->nthreads, &capt, sizeof *v->threads, &ith, cs->thread, &fresh);
		if (at < 0)
			goto out;
		if (fresh)
			v->threads[at].thread = cs->thread;
		v->threads[at].samples += cs->count;
		uint64_t gk = group_key(s, cs->thread);
		at = tool_rank_row(&v->groups, &v->ngroups, &capg, sizeof *v->groups, &igr, gk, &fresh);
		if (at < 0)
			goto out;
		struct tool_cgroup *g = &v->groups[at];
		if (fresh)
			*g = (struct tool_cgroup){ .key = gk, .first = cs->thread };
		g->samples += cs->count;
		if (cs->thread < g->first)
			g->first = cs->thread;
	}
	for (size_t i = 0; i < v->nthreads; i++) {
		struct tool_hmap_entry *e = tool_hmap_get(&igr, group_key(s, v->threads[i].thread));
		if (e && v->threads[i].thread != TOOL_CPU_NONE)
			v->groups[e->val].threads++;
	}
	for (size_t i = 0; i < v->ngroups; i++)
		if (group_funcs(s, &v->groups[i]))
			goto out;
	qsort(v->funcs, v->nfuncs, sizeof *v->funcs, cmp_funcs);
	qsort(v->groups, v->ngroups, sizeof *v->groups, cmp_groups);
	qsort(v->threads, v->nthreads, sizeof *v->threads, cmp_threads);
	rc = 0;
out:
	tool_hmap_free(&ifn);
	tool_hmap_free(&ith);
	tool_hmap_free(&igr);
	if (rc)
		tool_cpu_view_free(v);
	return rc;
}

void tool_cpu_view_free(struct tool_cpu_view *v)
{
	for (size_t i = 0; i < v->ngroups; i++)
		free(v->groups[i].funcs);
	free(v->funcs);
	free(v->groups);
	free(v->threads);
	memset(v, 0, sizeof *v);
}

const char *tool_cpu_group_name(const struct tool_stat *s, const struct tool_cgroup *g, char *buf, size_t len)
{
	if (g->key == TOOL_CPU_GROUP_NONE)
		return "(no thread)";
	const struct tool_sthread *t = &s->th[g->first];
	if (t->func == TOOL_STAT_NONE)
		return "(unknown)";
	return tool_frame_name(s, t->func, buf, len);
}

const char *tool_cpu_thread_name(const struct tool_stat *s, uint32_t thread, char *buf, size_t len)
{
	if (thread == TOOL_CPU_NONE || thread >= s->nth)
		return "(no thread)";
	const struct tool_sthread *t = &s->th[thread];
	if (t->label && tool_sites_strlen(&s->sites, t->label))
		return tool_sites_str(&s->sites, t->label);
	snprintf(buf, len, "G%llu", (ull)t->g);
	return buf;
}

static const char *func_name(const struct tool_stat *s, const struct tool_cfunc *f, char *buf, size_t len)
{
	char pc[32];
	return tool_clean(tool_frame_name(s, f->frame, pc, sizeof pc), TOOL_NAME_MAX_WIDTH, buf, len);
}

/* print_funcs prints a ranked function list as `pprof -top` does. */
static void print_funcs(FILE *out, const struct tool_stat *s, const struct tool_cfunc *f, size_t n,
			uint64_t total, const char *indent)
{
	uint64_t per = tool_cpu_period(&s->cpu), sum = 0;
	fprintf(out, "%s%9s %6s %6s %9s %6s %8s  %s\n", indent, "flat", "flat%", "sum%", "cum", "cum%", "samples",
		"function");
	for (size_t i = 0; i < n; i++) {
		char buf[TOOL_NAME_MAX_WIDTH + 8];
		sum += f[i].flat;
		fprintf(out, "%s%9s %5.1f%% %5.1f%% %9s %5.1f%% %8llu  %s\n", indent, DUR(f[i].flat * per),
			tool_pct(f[i].flat, total), tool_pct(sum, total), DUR(f[i].cum * per), tool_pct(f[i].cum, total),
			(ull)f[i].flat, func_name(s, &f[i], buf, sizeof buf));
	}
}

/* print_rate says how many samples, what CPU time, and where the rate came from. */
static void print_rate(FILE *out, const struct tool_stat *s, const char *indent)
{
	const struct tool_cpu *c = &s->cpu;
	fprintf(out, "%s%llu sample%s, %s of CPU time: %s per sample at %llu Hz (%s)\n", indent, (ull)c->samples,
		c->samples == 1 ? "" : "s", DUR(c->samples * tool_cpu_period(c)), DUR(tool_cpu_period(c)),
		(ull)tool_cpu_rate(c),
		c->hz ? "the rate the trace states" : "Go's default: the trace does not state its rate");
}

int tool_cpu_report(FILE *out, const struct tool_stat *s, const char *name, unsigned top)
{
	const struct tool_cpu *c = &s->cpu;
	fprintf(out, "gotrace cpu: %s\n", name);
	if (c->samples == 0) {
		fprintf(out, "  no CPU samples: the trace was written without CPU profiling\n");
		return 0;
	}
	print_rate(out, s, "  ");
	if (c->no_thread)
		fprintf(out, "  (%llu sample%s of no known thread: listed as \"(no thread)\")\n", (ull)c->no_thread,
			c->no_thread == 1 ? "" : "s");
	struct tool_cpu_view v;
	if (tool_cpu_view_build(&v, s)) {
		fprintf(out, "\n(out of memory: no tables)\n");
		return -1;
	}
	size_t n = tool_list_shown(v.nfuncs, top);
	fprintf(out, "\nTop functions (%zu of %zu, by flat; flat: sampled there, cum: there or in callees)\n", n,
		v.nfuncs);
	print_funcs(out, s, v.funcs, n, c->samples, "  ");

	n = tool_list_shown(v.nthreads, top);
	fprintf(out, "\nThreads (%zu of %zu, most samples first)\n", n, v.nthreads);
	fprintf(out, "  %9s %6s %8s  %s\n", "cpu", "cpu%", "samples", "thread");
	for (size_t i = 0; i < n; i++) {
		char name[3 * TOOL_NAME_MAX_WIDTH];
		const struct tool_cthread *t = &v.threads[i];
		fprintf(out, "  %9s %5.1f%% %8llu  %s\n", DUR(t->samples * tool_cpu_period(c)),
			tool_pct(t->samples, c->samples), (ull)t->samples,
			t->thread == TOOL_CPU_NONE ? "(no thread)" : tool_mutex_holder_name(s, t->thread, name, sizeof name));
	}

	n = tool_list_shown(v.ngroups, top);
	fprintf(out, "\nBy thread group (start function; %zu of %zu, most samples first)\n", n, v.ngroups);
	for (size_t i = 0; i < n; i++) {
		const struct tool_cgroup *g = &v.groups[i];
		char pc[32], buf[TOOL_NAME_MAX_WIDTH + 8];
		fprintf(out, "\n %s: %u thread%s, %llu samples, %s (%.1f%%)\n",
			tool_clean(tool_cpu_group_name(s, g, pc, sizeof pc), TOOL_NAME_MAX_WIDTH, buf, sizeof buf),
			g->threads, g->threads == 1 ? "" : "s", (ull)g->samples, DUR(g->samples * tool_cpu_period(c)),
			tool_pct(g->samples, c->samples));
		print_funcs(out, s, g->funcs, tool_list_shown(g->nfuncs, top), c->samples, "  ");
	}
	tool_cpu_view_free(&v);
	return 0;
}

/* stat_funcs: how many of a group's functions the stat section lists (its
 * first TOOL_CPU_STAT_FUNCS that were sampled themselves: flat > 0). */
static size_t stat_funcs(const struct tool_cgroup *g)
{
	size_t k = 0;
	while (k < g->nfuncs && k < TOOL_CPU_STAT_FUNCS && g->funcs[k].flat)
		k++;
	return k;
}

int tool_cpu_stat_text(FILE *out, const struct tool_stat *s, unsigned top)
{
	const struct tool_cpu *c = &s->cpu;
	if (c->samples == 0)
		return 0;
	struct tool_cpu_view v;
	if (tool_cpu_view_build(&v, s))
		return -1;
	fprintf(out, "\nCPU samples (see `gotrace cpu`)\n");
	print_rate(out, s, " ");
	size_t n = tool_list_shown(v.ngroups, top);
	fprintf(out, " top functions of each thread group (by flat samples; %zu of %zu groups):\n", n, v.ngroups);
	uint64_t per = tool_cpu_period(c);
	for (size_t i = 0; i < n; i++) {
		const struct tool_cgroup *g = &v.groups[i];
		char pc[32], buf[TOOL_NAME_MAX_WIDTH + 8];
		fprintf(out, "  %s: %u thread%s, %s (%.1f%%)\n",
			tool_clean(tool_cpu_group_name(s, g, pc, sizeof pc), TOOL_NAME_MAX_WIDTH, buf, sizeof buf),
			g->threads, g->threads == 1 ? "" : "s", DUR(g->samples * per), tool_pct(g->samples, c->samples));
		size_t k = stat_funcs(g);
		for (size_t j = 0; j < k; j++) {
			const struct tool_cfunc *f = &g->funcs[j];
			fprintf(out, "    %9s %5.1f%%  %s\n", DUR(f->flat * per), tool_pct(f->flat, c->samples),
				func_name(s, f, buf, sizeof buf));
		}
	}
	tool_cpu_view_free(&v);
	return 0;
}

int tool_cpu_stat_json(FILE *out, const struct tool_stat *s, unsigned top)
{
	const struct tool_cpu *c = &s->cpu;
	struct tool_cpu_view v;
	if (tool_cpu_view_build(&v, s))
		return -1;
	uint64_t per = tool_cpu_period(c);
	fprintf(out, "  \"cpu\": {\"samples\": %llu, \"hz\": %llu, \"hz_stated\": %s, \"period\": ", (ull)c->samples,
		(ull)tool_cpu_rate(c), c->hz ? "true" : "false");
	tool_json_seconds(out, per);
	fprintf(out, ", \"cpu_time\": ");
	tool_json_seconds(out, c->samples * per);
	size_t n = tool_list_shown(v.ngroups, top);
	fprintf(out, ", \"no_thread\": %llu,\n   \"groups\": {\"count\": %zu, \"shown\": %zu, \"list\": [", (ull)c->no_thread,
		v.ngroups, n);
	for (size_t i = 0; i < n; i++) {
		const struct tool_cgroup *g = &v.groups[i];
		char pc[32];
		fprintf(out, "%s\n    {\"function\": ", i ? "," : "");
		if (g->key == TOOL_CPU_GROUP_NONE || s->th[g->first].func == TOOL_STAT_NONE)
			fprintf(out, "null");
		else
			tool_json_string(out, tool_cpu_group_name(s, g, pc, sizeof pc));
		fprintf(out, ", \"threads\": %u, \"samples\": %llu, \"cpu_time\": ", g->threads, (ull)g->samples);
		tool_json_seconds(out, g->samples * per);
		fprintf(out, ", \"top\": [");
		size_t k = stat_funcs(g);
		for (size_t j = 0; j < k; j++) {
			const struct tool_cfunc *f = &g->funcs[j];
			fprintf(out, "%s{\"function\": ", j ? ", " : "");
			tool_json_string(out, tool_frame_name(s, f->frame, pc, sizeof pc));
			fprintf(out, ", \"flat\": %llu, \"cum\": %llu}", (ull)f->flat, (ull)f->cum);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "%s]}}", n ? "\n   " : "");
	tool_cpu_view_free(&v);
	return 0;
}
