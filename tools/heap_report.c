/* heap_report.c — the text report of `gotrace heap` (heap_report.h). */
#include "units.h"
#include "tools/heap_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long ull;

/* ---- estimates ---- */

/* count rounds an estimate to the count it prints as (never negative). */
static ull count(double v)
{
	if (!(v > 0.5))
		return 0;
	if (v >= 1.8e19)
		return ~0ull;
	return (ull)llround(v);
}

static bool sampled(const struct tool_heap *h)
{
	return h->sampled_gens > 0;
}

/* rel_err writes a relative standard error sqrt(var)/v as "4.4%". */
static const char *rel_err(double var, double v, char *buf, size_t len)
{
	if (!(v > 0) || !(var > 0)) {
		snprintf(buf, len, "0%%");
		return buf;
	}
	double r = sqrt(var) / v * 100;
	if (r < 0.05)
		snprintf(buf, len, "<0.1%%");
	else if (r < 99.95)
		snprintf(buf, len, "%.1f%%", r);
	else
		snprintf(buf, len, "%.0f%%", r);
	return buf;
}

#define SHOW_FRAMES 5      /* frames printed per site */
#define FUNC_WIDTH 60      /* longer function names are cut */

/* ---- allocation functions ---- */

static bool is_alloc_function(const char *f)
{
	static const char *const names[] = {
		"malloc", "calloc", "realloc", "reallocarray", "posix_memalign", "aligned_alloc",
		"memalign", "valloc", "pvalloc", "__libc_malloc", "__libc_calloc", "__libc_realloc",
		"__libc_memalign", "__libc_valloc", "__libc_pvalloc", "strdup", "strndup", "__strdup",
		"__strndup", "wcsdup",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(f, names[i]) == 0)
			return true;
	/* C++: operator new / new[] in every overload, demangled or not. */
	if (strncmp(f, "operator new", 12) == 0 && (f[12] == '\0' || f[12] == '(' || f[12] == '['))
		return true;
	if ((strncmp(f, "_Znw", 4) == 0 || strncmp(f, "_Zna", 4) == 0) && (f[4] == 'm' || f[4] == 'j'))
		return true;
	return false;
}

unsigned tool_heap_alloc_frames(const struct tool_sites *s, uint32_t site)
{
	const struct tool_hsite *t = &s->sites[site];
	const uint32_t *fr = tool_sites_site_frames(s, site);
	unsigned n = 0;
	/* The run of allocation functions at the leaf, with the helpers inlined
	 * into them (a frame in the same file as the frame after it). */
	for (unsigned i = 0; i + 1 < t->nframes; i++) {
		const struct tool_hframe *f = &s->frames[fr[i]], *next = &s->frames[fr[i + 1]];
		if (is_alloc_function(tool_sites_str(s, f->func)))
			n = i + 1;
		else if (f->file != next->file || tool_sites_strlen(s, f->file) == 0)
			break;
	}
	return n;
}

/* ---- formatting ---- */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* printable copies s for the terminal: control bytes become '?', and at
 * most max bytes are kept (then "..."). */
static const char *printable(const char *s, size_t max, char *buf, size_t len)
{
	size_t n = 0, i = 0;
	for (; s[i] && n + 4 < len; i++) {
		if (i == max) {
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
		unsigned char c = (unsigned char)s[i];
		buf[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[n] = '\0';
	return buf;
}

/* site_title describes the allocation: "malloc, 48 B each". */
static void site_title(const struct tool_heap *h, uint32_t site, char *buf, size_t len)
{
	const struct tool_sites *s = &h->sites;
	const struct tool_hsite *t = &s->sites[site];
	const uint32_t *fr = tool_sites_site_frames(s, site);
	unsigned skip = tool_heap_alloc_frames(s, site);
	char fn[FUNC_WIDTH + 8], size[80];
	const char *how = NULL;
	if (skip > 0)
		how = tool_sites_str(s, s->frames[fr[skip - 1]].func);
	else if (t->nframes == 1 && is_alloc_function(tool_sites_str(s, s->frames[fr[0]].func)))
		how = tool_sites_str(s, s->frames[fr[0]].func); /* a stack of the allocation call alone */
	if (t->alloc_objects == 0 && t->snap_objects == 0)
		size[0] = '\0';
	else if (t->min_size == t->max_size)
		snprintf(size, sizeof size, "%llu B each", (ull)t->min_size);
	else /* the average of what was allocated (the estimate, when sampled),
	      * or of the objects from before the window */
		snprintf(size, sizeof size, "%llu-%llu B (%llu B on average)", (ull)t->min_size, (ull)t->max_size,
			 t->est.alloc_objects > 0 ? count(t->est.alloc_bytes / t->est.alloc_objects)
			 : t->snap_est_live_objects > 0 ? count(t->snap_est_live_bytes / t->snap_est_live_objects)
			 : t->snap_objects > 0 ? (ull)(t->snap_bytes / t->snap_objects) : 0ull);
	if (how)
		snprintf(buf, len, "%s%s%s", printable(how, FUNC_WIDTH, fn, sizeof fn), size[0] ? ", " : "", size);
	else
		snprintf(buf, len, "%s", size);
}

/* print_frames prints the site's frames after the allocation function,
 * leaf first, one per line: "function  file:line". */
static void print_frames(FILE *out, const struct tool_heap *h, uint32_t site, const char *indent)
{
	const struct tool_sites *s = &h->sites;
	const struct tool_hsite *t = &s->sites[site];
	const uint32_t *fr = tool_sites_site_frames(s, site);
	unsigned skip = tool_heap_alloc_frames(s, site);
	if (t->nframes == 0) {
		fprintf(out, "%s(no stack)\n", indent);
		return;
	}
	unsigned shown = t->nframes - skip < SHOW_FRAMES ? t->nframes - skip : SHOW_FRAMES;
	char names[SHOW_FRAMES][FUNC_WIDTH + 8];
	int width = 0;
	for (unsigned i = 0; i < shown; i++) {
		const struct tool_hframe *f = &s->frames[fr[skip + i]];
		if (tool_sites_strlen(s, f->func) == 0)
			snprintf(names[i], sizeof names[i], "0x%llx", (ull)f->pc);
		else
			printable(tool_sites_str(s, f->func), FUNC_WIDTH, names[i], sizeof names[i]);
		int w = (int)strlen(names[i]);
		if (w > width)
			width = w;
	}
	for (unsigned i = 0; i < shown; i++) {
		const struct tool_hframe *f = &s->frames[fr[skip + i]];
		char file[128];
		if (tool_sites_strlen(s, f->file) == 0) {
			fprintf(out, "%s%s\n", indent, names[i]);
			continue;
		}
		printable(base_name(tool_sites_str(s, f->file)), 100, file, sizeof file);
		fprintf(out, "%s%-*s  %s:%llu\n", indent, width, names[i], file, (ull)f->line);
	}
	if (t->nframes - skip > shown)
		fprintf(out, "%s... %u more frames\n", indent, t->nframes - skip - shown);
}

/* ---- top lists ---- */

enum order { BY_LIVE_BYTES, BY_ALLOC_BYTES, BY_ALLOC_OBJECTS };

static const struct tool_hsite *sort_sites;
static enum order sort_order;

/* keys: the two figures of a row, the first sorts; var: the variance of
 * the first. Estimates (the exact counts when every allocation was recorded). */
static void keys(const struct tool_hsite *t, enum order o, double k[2], double *var)
{
	const struct tool_hest *e = &t->est;
	switch (o) {
	case BY_LIVE_BYTES: k[0] = e->live_bytes, k[1] = e->live_objects, *var = e->var_live_bytes; break;
	case BY_ALLOC_BYTES: k[0] = e->alloc_bytes, k[1] = e->alloc_objects, *var = e->var_alloc_bytes; break;
	default: k[0] = e->alloc_objects, k[1] = e->alloc_bytes, *var = e->var_alloc_objects; break;
	}
}

static int cmp_site(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	double ka[2], kb[2], var;
	keys(&sort_sites[a], sort_order, ka, &var);
	keys(&sort_sites[b], sort_order, kb, &var);
	for (int i = 0; i < 2; i++)
		if (ka[i] != kb[i])
			return ka[i] > kb[i] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* leak_note says, in sampled mode, what the leak list can miss. */
static void leak_note(FILE *out, const struct tool_heap *h)
{
	char m[32], m3[32], m5[32];
	uint64_t mean = h->sample_max; /* the largest mean misses the most */
	tool_human_bytes(mean, m, sizeof m);
	tool_human_bytes(3 * mean, m3, sizeof m3);
	tool_human_bytes(5 * mean, m5, sizeof m5);
	fprintf(out, "  Sampled: a site's leak shows here only if one of its leaked objects was\n"
		     "  recorded. For L bytes leaked at a site that happens with probability\n"
		     "  1-exp(-L/%llu), whatever the sizes (n objects of s bytes: 1-(1-p(s))^n):\n"
		     "  %.0f%% for L = %s, %.0f%% for %s, %.1f%% for %s. A site that leaked\n"
		     "  much less than %s in all may be missing; GOTRACE_MALLOC=all finds every leak.\n",
		(ull)mean, 100 * tool_heap_sample_seen((double)mean, mean), m,
		100 * tool_heap_sample_seen(3.0 * (double)mean, mean), m3,
		100 * tool_heap_sample_seen(5.0 * (double)mean, mean), m5, m);
}

/* top_list prints the sites with a nonzero key in `o` order. */
static void top_list(FILE *out, const struct tool_heap *h, uint32_t *idx, enum order o, unsigned top,
		     const char *title, const char *col1, const char *col2)
{
	const struct tool_sites *s = &h->sites;
	size_t n = 0;
	for (uint32_t i = 0; i < s->nsites; i++) {
		double k[2], var;
		keys(&s->sites[i], o, k, &var);
		if (count(k[0]) || count(k[1]))
			idx[n++] = i;
	}
	sort_sites = s->sites;
	sort_order = o;
	qsort(idx, n, sizeof *idx, cmp_site);
	size_t shown = top && top < n ? top : n;
	fprintf(out, "\n%s%s (top %zu of %zu sites)\n", title, sampled(h) ? ", estimated" : "", shown, n);
	if (o == BY_LIVE_BYTES && sampled(h))
		leak_note(out, h);
	if (n == 0) {
		fprintf(out, "  (none)\n");
		return;
	}
	if (sampled(h))
		fprintf(out, "  %12s %10s %6s  %s\n", col1, col2, "s.e.", "allocated by, then the site (leaf first)");
	else
		fprintf(out, "  %12s %10s  %s\n", col1, col2, "allocated by, then the site (leaf first)");
	for (size_t i = 0; i < shown; i++) {
		double k[2], var;
		keys(&s->sites[idx[i]], o, k, &var);
		char title_buf[FUNC_WIDTH + 80], err[16];
		site_title(h, idx[i], title_buf, sizeof title_buf);
		if (sampled(h))
			fprintf(out, "  %12llu %10llu %6s  %s\n", count(k[0]), count(k[1]), rel_err(var, k[0], err, sizeof err),
				title_buf);
		else
			fprintf(out, "  %12llu %10llu  %s\n", count(k[0]), count(k[1]), title_buf);
		const char *indent = sampled(h) ? "                                    " : "                             ";
		const struct tool_hsite *t = &s->sites[idx[i]];
		if (o == BY_LIVE_BYTES && t->snap_live_objects)
			fprintf(out, "%s(%llu of them, %llu bytes, allocated before the window: live-heap snapshot)\n",
				indent, count(t->snap_est_live_objects), count(t->snap_est_live_bytes));
		print_frames(out, h, idx[i], indent);
	}
}

/* sampling_note says how the trace was sampled and what the figures are. */
static void sampling_note(FILE *out, const struct tool_heap *h)
{
	char m[32];
	tool_human_bytes(h->sample_max, m, sizeof m);
	if (h->sample_min == h->sample_max)
		fprintf(out, "  Sampled: about one allocation per %s allocated was recorded (mean %llu B).\n",
			m, (ull)h->sample_max);
	else
		fprintf(out, "  Sampled: about one allocation per %llu to %llu bytes allocated was recorded\n"
			     "  (the mean changed between generations).\n", (ull)h->sample_min, (ull)h->sample_max);
	if (h->sampled_gens < h->gens)
		fprintf(out, "  %llu of the %llu generations recorded every allocation.\n",
			(ull)(h->gens - h->sampled_gens), (ull)h->gens);
	char mean[32] = "M";
	if (h->sample_min == h->sample_max)
		snprintf(mean, sizeof mean, "%llu", (ull)h->sample_max);
	fprintf(out, "  Every figure below is an estimate: a recorded allocation of s bytes counts\n"
		     "  1/(1-exp(-s/%s)) objects and s times as many bytes%s. s.e.: the relative\n"
		     "  standard error of a site's estimate (the truth is within 2 s.e. about 95%%\n"
		     "  of the time). GOTRACE_MALLOC=all records every allocation (exact figures).\n",
		mean, h->sample_min == h->sample_max ? "" : " (M: the mean when it was allocated)");
}

void tool_heap_report(FILE *out, const struct tool_heap *h, const char *name, unsigned top)
{
	char a[32], b[32];
	const struct tool_hest *e = &h->est;
	fprintf(out, "gotrace heap: %s\n", name);
	fprintf(out, "  %llu generation%s", (ull)h->gens, h->gens == 1 ? "" : "s");
	if (h->gens)
		fprintf(out, " (%llu-%llu)", (ull)h->first_gen, (ull)h->last_gen);
	fprintf(out, ", %.6f s of trace, %llu heap events\n", h->duration, (ull)h->events);
	if (h->note[0])
		fprintf(out, "  heap events not recorded: %s\n", h->note);
	if (h->events == 0 && h->note[0])
		return;
	if (h->events == 0) {
		fprintf(out, "\nNo heap events in this trace: it was written with GOTRACE_MALLOC=0, by a\n"
			     "program that allocated nothing while traced, or by a tracer without heap events.\n");
		if (sampled(h))
			fprintf(out, "Heap events were sampled (mean %llu B): a program that allocated less than\n"
				     "that may have none recorded.\n", (ull)h->sample_max);
		return;
	}
	if (sampled(h))
		sampling_note(out, h);

	double freed_objects = e->alloc_objects + h->before_est_objects - e->live_objects,
	       freed_bytes = e->alloc_bytes + h->before_est_bytes - e->live_bytes;
	fprintf(out, "\n  %-12s %10s %14s%s\n", "", "objects", "bytes", sampled(h) ? "  (estimated)" : "");
	if (h->before_objects)
		fprintf(out, "  %-12s %10llu %14llu  (%s) allocated before the window (live-heap snapshot)\n",
			"live at start", count(h->before_est_objects), count(h->before_est_bytes),
			tool_human_bytes(count(h->before_est_bytes), a, sizeof a));
	fprintf(out, "  %-12s %10llu %14llu  (%s)\n", "allocated", count(e->alloc_objects), count(e->alloc_bytes),
		tool_human_bytes(count(e->alloc_bytes), a, sizeof a));
	fprintf(out, "  %-12s %10llu %14llu  (%s)\n", "freed", count(freed_objects), count(freed_bytes),
		tool_human_bytes(count(freed_bytes), a, sizeof a));
	fprintf(out, "  %-12s %10llu %14llu  (%s)\n", "live at end", count(e->live_objects), count(e->live_bytes),
		tool_human_bytes(count(e->live_bytes), a, sizeof a));
	fprintf(out, "  %-12s %10llu %14llu  (%s) at %.6f s\n", "peak live", count(h->peak_objects),
		count(h->peak_bytes), tool_human_bytes(count(h->peak_bytes), b, sizeof b), h->peak_time);
	if (sampled(h))
		fprintf(out, "  %-12s %10llu allocations and %llu frees (%llu objects live at the end)\n", "recorded",
			(ull)h->alloc_objects, (ull)h->free_objects, (ull)h->live_objects);
	if (h->have_metric && h->metric_max > 0)
		fprintf(out, "  HeapAlloc metric (the viewer's Heap counter, %s) peaked at %s at %.6f s\n",
			sampled(h) ? "estimated" : "usable sizes",
			tool_human_bytes(h->metric_max, a, sizeof a), h->metric_time);
	if (h->unknown_frees)
		fprintf(out, "  %llu frees of objects not allocated in the trace were ignored\n",
			(ull)h->unknown_frees);
	if (h->replaced)
		fprintf(out, "  %llu allocations reused the address of a live object whose free was not\n"
			     "  recorded; those objects count as freed\n", (ull)h->replaced);
	if (h->untyped)
		fprintf(out, "  %llu allocations had no known type (size counted as 0)\n", (ull)h->untyped);
	if (h->snap_added)
		fprintf(out, "  %llu live objects whose allocation is not in the trace were added from the\n"
			     "  live-heap snapshots of later generations\n", (ull)h->snap_added);
	if (h->snap_gone)
		fprintf(out, "  %llu objects missing from a later live-heap snapshot count as freed (their\n"
			     "  free was not recorded)\n", (ull)h->snap_gone);

	uint32_t *idx = malloc((h->sites.nsites ? h->sites.nsites : 1) * sizeof *idx);
	if (!idx) {
		fprintf(out, "\n(out of memory: no site lists)\n");
		return;
	}
	top_list(out, h, idx, BY_LIVE_BYTES, top, "Live at the end (leaks) by allocation site", "live bytes",
		 "objects");
	top_list(out, h, idx, BY_ALLOC_BYTES, top, "Top allocation sites by bytes allocated", "alloc bytes",
		 "objects");
	top_list(out, h, idx, BY_ALLOC_OBJECTS, top, "Top allocation sites by allocation count", "allocations",
		 "bytes");
	free(idx);
}
