/* mutex_report.c — the lock holders' lists (mutex_report.h). */
#include "tools/mutex_report.h"

#include <stdlib.h>
#include <string.h>

#include "tools/rank_list.h"
#include "tools/stat_site.h"

typedef unsigned long long ull;

#define DUR(ns) tool_stat_format_duration((ns), (char[24]){ 0 }, 24)

static int cmp_rows(const void *a, const void *b)
{
	const struct tool_mrow *x = a, *y = b;
	if (x->delay != y->delay)
		return x->delay > y->delay ? -1 : 1;
	if (x->flat != y->flat)
		return x->flat > y->flat ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* row returns the row of key in *rows (added), or NULL when out of memory. */
static struct tool_mrow *row(struct tool_mrow **rows, size_t *n, size_t *cap, struct tool_hmap *index, uint64_t key)
{
	bool fresh;
	long i = tool_rank_row(rows, n, cap, sizeof **rows, index, key, &fresh);
	if (i < 0)
		return NULL;
	if (fresh)
		(*rows)[i].key = key;
	return &(*rows)[i];
}

int tool_mutex_view_build(struct tool_mutex_view *v, const struct tool_stat *s)
{
	memset(v, 0, sizeof *v);
	struct tool_hmap ih, is, ifn;
	tool_hmap_init(&ih);
	tool_hmap_init(&is);
	tool_hmap_init(&ifn);
	size_t caph = 0, caps = 0, capf = 0;
	int rc = -1;
	const struct tool_mutex *m = &s->mutex;
	for (size_t i = 0; i < m->n; i++) {
		const struct tool_mcont *c = &m->c[i];
		struct tool_mrow *h = row(&v->holders, &v->nholders, &caph, &ih, c->holder);
		if (!h)
			goto out;
		h->count += c->count;
		h->delay += c->delay;
		struct tool_mrow *st = row(&v->sites, &v->nsites, &caps, &is, c->site);
		if (!st)
			goto out;
		st->count += c->count;
		st->delay += c->delay;
		const struct tool_hsite *hs = &s->sites.sites[c->site];
		const uint32_t *fr = tool_sites_site_frames(&s->sites, c->site);
		for (uint32_t k = 0; k < hs->nframes; k++) {
			if (tool_stack_has(s, fr, k)) /* cum counts a function once per stack */
				continue;
			struct tool_mrow *f = row(&v->funcs, &v->nfuncs, &capf, &ifn, tool_func_key(s, fr[k]));
			if (!f)
				goto out;
			f->frame = fr[k];
			f->count += c->count;
			f->delay += c->delay;
			if (k == 0)
				f->flat += c->delay;
		}
	}
	qsort(v->holders, v->nholders, sizeof *v->holders, cmp_rows);
	qsort(v->sites, v->nsites, sizeof *v->sites, cmp_rows);
	qsort(v->funcs, v->nfuncs, sizeof *v->funcs, cmp_rows);
	rc = 0;
out:
	tool_hmap_free(&ih);
	tool_hmap_free(&is);
	tool_hmap_free(&ifn);
	if (rc)
		tool_mutex_view_free(v);
	return rc;
}

void tool_mutex_view_free(struct tool_mutex_view *v)
{
	free(v->holders);
	free(v->sites);
	free(v->funcs);
	memset(v, 0, sizeof *v);
}

const char *tool_mutex_holder_name(const struct tool_stat *s, uint64_t key, char *buf, size_t len)
{
	if (key >= s->nth) {
		snprintf(buf, len, "(unknown)");
		return buf;
	}
	const struct tool_sthread *t = &s->th[key];
	char fn[TOOL_NAME_MAX_WIDTH + 8], pc[32], lab[TOOL_NAME_MAX_WIDTH + 8];
	const char *func = t->func == TOOL_STAT_NONE ? "?" : tool_frame_name(s, t->func, pc, sizeof pc);
	tool_clean(func, TOOL_NAME_MAX_WIDTH, fn, sizeof fn);
	if (t->label)
		snprintf(buf, len, "G%llu %s (%s)", (ull)t->g,
			 tool_clean(tool_sites_str(&s->sites, t->label), TOOL_NAME_MAX_WIDTH, lab, sizeof lab), fn);
	else
		snprintf(buf, len, "G%llu (%s)", (ull)t->g, fn);
	return buf;
}

static void print_holders(FILE *out, const struct tool_stat *s, const struct tool_mutex_view *v, unsigned top)
{
	size_t n = tool_list_shown(v->nholders, top);
	fprintf(out, "  %9s %7s %11s  %s\n", "delay", "delay%", "contentions", "holder thread");
	for (size_t i = 0; i < n; i++) {
		char name[3 * TOOL_NAME_MAX_WIDTH];
		fprintf(out, "  %9s %6.1f%% %11llu  %s\n", DUR(v->holders[i].delay),
			tool_pct(v->holders[i].delay, s->mutex.delay),
			(ull)v->holders[i].count, tool_mutex_holder_name(s, v->holders[i].key, name, sizeof name));
	}
}

static void print_sites(FILE *out, const struct tool_stat *s, const struct tool_mutex_view *v, unsigned top)
{
	size_t n = tool_list_shown(v->nsites, top);
	fprintf(out, "  %9s %7s %11s  %s\n", "delay", "delay%", "contentions", "releasing site (leaf first)");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "  %9s %6.1f%% %11llu  ", DUR(v->sites[i].delay),
			tool_pct(v->sites[i].delay, s->mutex.delay), (ull)v->sites[i].count);
		tool_site_print(out, s, (uint32_t)v->sites[i].key);
		fputc('\n', out);
	}
}

int tool_mutex_report(FILE *out, const struct tool_stat *s, const char *name, unsigned top)
{
	const struct tool_mutex *m = &s->mutex;
	fprintf(out, "gotrace mutex: %s\n", name);
	fprintf(out, "  %llu contention%s, %s of delay: lock waits (sync.mutex, sync.rwlock) that another\n"
		     "  thread's release ended, charged to the releasing stack\n",
		(ull)m->contentions, m->contentions == 1 ? "" : "s", DUR(m->delay));
	if (m->no_release)
		fprintf(out, "  (%llu lock wait%s ended without a release: timeouts, errors; not counted)\n",
			(ull)m->no_release, m->no_release == 1 ? "" : "s");
	if (m->contentions == 0)
		return 0;
	struct tool_mutex_view v;
	if (tool_mutex_view_build(&v, s)) {
		fprintf(out, "\n(out of memory: no tables)\n");
		return -1;
	}
	size_t n = tool_list_shown(v.nfuncs, top);
	fprintf(out, "\nReleasing functions (%zu of %zu, by cum delay; flat: the release was called there)\n", n,
		v.nfuncs);
	fprintf(out, "  %9s %7s %9s %7s %11s  %s\n", "flat", "flat%", "cum", "cum%", "contentions", "function");
	for (size_t i = 0; i < n; i++) {
		const struct tool_mrow *f = &v.funcs[i];
		char pc[32], buf[TOOL_NAME_MAX_WIDTH + 8];
		fprintf(out, "  %9s %6.1f%% %9s %6.1f%% %11llu  %s\n", DUR(f->flat), tool_pct(f->flat, m->delay),
			DUR(f->delay), tool_pct(f->delay, m->delay), (ull)f->count,
			tool_clean(tool_frame_name(s, f->frame, pc, sizeof pc), TOOL_NAME_MAX_WIDTH, buf, sizeof buf));
	}
	fprintf(out, "\nReleasing sites (%zu of %zu, by delay)\n", tool_list_shown(v.nsites, top), v.nsites);
	print_sites(out, s, &v, top);
	fprintf(out, "\nHolder threads (%zu of %zu, by the delay they caused)\n", tool_list_shown(v.nholders, top),
		v.nholders);
	print_holders(out, s, &v, top);
	tool_mutex_view_free(&v);
	return 0;
}

int tool_mutex_stat_text(FILE *out, const struct tool_stat *s, unsigned top)
{
	const struct tool_mutex *m = &s->mutex;
	if (m->contentions == 0)
		return 0;
	struct tool_mutex_view v;
	if (tool_mutex_view_build(&v, s))
		return -1;
	fprintf(out, "\nLock holders (%llu contention%s, %s of delay; see `gotrace mutex`)\n", (ull)m->contentions,
		m->contentions == 1 ? "" : "s", DUR(m->delay));
	fprintf(out, " threads that held the locks others waited for (%zu of %zu):\n", tool_list_shown(v.nholders, top),
		v.nholders);
	print_holders(out, s, &v, top);
	fprintf(out, " where they released them (%zu of %zu):\n", tool_list_shown(v.nsites, top), v.nsites);
	print_sites(out, s, &v, top);
	tool_mutex_view_free(&v);
	return 0;
}

int tool_mutex_stat_json(FILE *out, const struct tool_stat *s, unsigned top)
{
	const struct tool_mutex *m = &s->mutex;
	struct tool_mutex_view v;
	if (tool_mutex_view_build(&v, s))
		return -1;
	fprintf(out, "  \"lock_holders\": {\"contentions\": %llu, \"delay\": ", (ull)m->contentions);
	tool_json_seconds(out, m->delay);
	fprintf(out, ", \"no_release\": %llu,\n   \"threads\": {\"count\": %zu, \"shown\": %zu, \"list\": [",
		(ull)m->no_release, v.nholders, tool_list_shown(v.nholders, top));
	size_t n = tool_list_shown(v.nholders, top);
	for (size_t i = 0; i < n; i++) {
		const struct tool_mrow *r = &v.holders[i];
		fprintf(out, "%s\n    {\"g\": ", i ? "," : "");
		const struct tool_sthread *t = r->key < s->nth ? &s->th[r->key] : NULL;
		char pc[32];
		if (t) {
			fprintf(out, "%llu, \"label\": ", (ull)t->g);
			if (t->label)
				tool_json_string(out, tool_sites_str(&s->sites, t->label));
			else
				fprintf(out, "null");
			fprintf(out, ", \"function\": ");
			if (t->func != TOOL_STAT_NONE)
				tool_json_string(out, tool_frame_name(s, t->func, pc, sizeof pc));
			else
				fprintf(out, "null");
		} else {
			fprintf(out, "null, \"label\": null, \"function\": null");
		}
		fprintf(out, ", \"contentions\": %llu, \"delay\": ", (ull)r->count);
		tool_json_seconds(out, r->delay);
		fprintf(out, "}");
	}
	fprintf(out, "%s]},\n", n ? "\n   " : "");
	n = tool_list_shown(v.nsites, top);
	fprintf(out, "   \"sites\": {\"count\": %zu, \"shown\": %zu, \"list\": [", v.nsites, n);
	for (size_t i = 0; i < n; i++) {
		const struct tool_mrow *r = &v.sites[i];
		fprintf(out, "%s\n    {\"contentions\": %llu, \"delay\": ", i ? "," : "", (ull)r->count);
		tool_json_seconds(out, r->delay);
		fprintf(out, ", ");
		tool_site_json(out, s, (uint32_t)r->key);
		fprintf(out, "}");
	}
	fprintf(out, "%s]}}", n ? "\n   " : "");
	tool_mutex_view_free(&v);
	return 0;
}
