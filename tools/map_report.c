/* map_report.c — the mapped memory section of `gotrace heap` and the
 * totals of `gotrace stat` (map_report.h). */
#include "tools/map_report.h"

#include <stdlib.h>
#include <string.h>

#include "tools/rank_list.h"
#include "tools/stat_site.h"
#include "tools/units.h"

typedef unsigned long long ull;

/* ---- the mapping call ---- */

static bool is_map_function(const char *f)
{
	static const char *const names[] = {
		"mmap", "mmap64", "__mmap", "__mmap64", "mremap", "__mremap", "munmap", "__munmap",
		"brk", "__brk", "sbrk", "__sbrk", "pthread_create", "__pthread_create_2_1",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(f, names[i]) == 0)
			return true;
	return false;
}

unsigned tool_map_call_frames(const struct tool_sites *s, uint32_t site)
{
	const struct tool_hsite *t = &s->sites[site];
	const uint32_t *fr = tool_sites_site_frames(s, site);
	unsigned n = 0;
	/* The run of mapping functions at the leaf. */
	for (unsigned i = 0; i + 1 < t->nframes; i++) {
		if (!is_map_function(tool_sites_str(s, s->frames[fr[i]].func)))
			break;
		n = i + 1;
	}
	return n;
}

/* ---- the section of `gotrace heap` ---- */

static double seconds(const struct tool_heap *h, uint64_t ts, uint64_t freq)
{
	return tool_heap_seconds(h, ts, freq);
}

static const char *hb(uint64_t v, char *buf, size_t len)
{
	return tool_human_bytes(v, buf, len);
}

/* class_list prints " name bytes" for each class with nonzero v[class],
 * comma separated, wrapped at 88 columns (col: where the line is now; the
 * next lines indented by 4). " nothing" when there is none. */
static void class_list(FILE *out, int col, const uint64_t v[TOOL_MAP_CLASSES])
{
	char a[32];
	bool any = false;
	for (unsigned i = 0; i < TOOL_MAP_CLASSES; i++) {
		if (!v[i])
			continue;
		char item[64];
		int n = snprintf(item, sizeof item, " %s %s", tool_map_class_name(i), hb(v[i], a, sizeof a));
		if (any)
			col += fprintf(out, ",");
		if (col + n > 88) {
			fprintf(out, "\n   ");
			col = 3;
		}
		col += fprintf(out, "%s", item);
		any = true;
	}
	fprintf(out, "%s\n", any ? "" : " nothing");
}

static void class_table(FILE *out, const struct tool_map *m, const struct tool_heap *h)
{
	char a[32], b[32], c[32];
	const char *fmt_start = "  %-14s %10s %10s %12.6f %10s %6llu\n";
	const char *fmt = "  %-14s %10s %12.6f %10s %6llu\n";
	if (m->have_start)
		fprintf(out, "  %-14s %10s %10s %12s %10s %6s\n", "class", "at start", "peak", "peak at (s)", "at end",
			"spans");
	else
		fprintf(out, "  %-14s %10s %12s %10s %6s\n", "class", "peak", "peak at (s)", "at end", "spans");
	for (unsigned i = 0; i <= TOOL_MAP_CLASSES; i++) {
		bool total = i == TOOL_MAP_CLASSES;
		const struct tool_map_class *k = total ? NULL : &m->cls[i];
		if (k && !k->peak_bytes && !k->live_bytes && !k->start_bytes)
			continue;
		const char *name = total ? "total" : tool_map_class_name(i);
		uint64_t start = total ? m->start_bytes : k->start_bytes, peak = total ? m->peak_bytes : k->peak_bytes;
		uint64_t live = total ? m->live_bytes : k->live_bytes, spans = total ? m->live_spans : k->live_spans;
		double at = total ? seconds(h, m->peak_ts, m->peak_freq) : seconds(h, k->peak_ts, k->peak_freq);
		if (m->have_start)
			fprintf(out, fmt_start, name, hb(start, a, sizeof a), hb(peak, b, sizeof b), at, hb(live, c, sizeof c),
				(ull)spans);
		else
			fprintf(out, fmt, name, hb(peak, b, sizeof b), at, hb(live, c, sizeof c), (ull)spans);
	}
	/* The classes at the total's peak (a class's own peak may be elsewhere). */
	uint64_t v[TOOL_MAP_CLASSES];
	for (unsigned i = 0; i < TOOL_MAP_CLASSES; i++)
		v[i] = m->cls[i].at_peak_bytes;
	class_list(out, fprintf(out, "  at the total's peak (%llu B), by class:", (ull)m->peak_bytes), v);
}

static const struct tool_map_row *sort_rows;
static bool sort_by_live;

static uint64_t key_bytes(const struct tool_map_row *r, bool live)
{
	return live ? r->live_bytes : r->mapped_bytes;
}

static uint64_t key_spans(const struct tool_map_row *r, bool live)
{
	return live ? r->live_spans : r->mapped_spans;
}

static int cmp_row(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint64_t ka = key_bytes(&sort_rows[a], sort_by_live), kb = key_bytes(&sort_rows[b], sort_by_live);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	ka = key_spans(&sort_rows[a], sort_by_live), kb = key_spans(&sort_rows[b], sort_by_live);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* no_site says why a row has no stack, as far as its class tells. */
static const char *no_site(unsigned cls)
{
	switch (cls) {
	case GT_SPAN_BRK: return "(no stack: the brk heap)";
	case GT_SPAN_STACK: return "(no stack: a thread's own)";
	case GT_SPAN_UNSEEN: return "(no stack: seen only in the process's map)";
	default: return "(no stack)";
	}
}

static void row_list(FILE *out, const struct tool_map *m, const struct tool_heap *h, uint32_t *idx, bool live,
		     unsigned top, const char *title)
{
	size_t n = 0;
	for (uint32_t i = 0; i < m->nrows; i++)
		if (key_bytes(&m->rows[i], live))
			idx[n++] = i;
	sort_rows = m->rows;
	sort_by_live = live;
	qsort(idx, n, sizeof *idx, cmp_row);
	size_t shown = tool_list_shown(n, top);
	fprintf(out, "\n%s (top %zu of %zu)\n", title, shown, n);
	if (n == 0) {
		fprintf(out, "  (none)\n");
		return;
	}
	fprintf(out, "  %14s %6s  %-13s %s\n", "bytes", "spans", "class", "mapped by: the site (leaf first)");
	const struct tool_sites *s = &h->sites;
	for (size_t i = 0; i < shown; i++) {
		const struct tool_map_row *r = &m->rows[idx[i]];
		unsigned skip = tool_map_call_frames(s, r->site);
		char call[48];
		call[0] = '\0';
		if (skip > 0) {
			const uint32_t *fr = tool_sites_site_frames(s, r->site);
			tool_clean(tool_sites_str(s, s->frames[fr[skip - 1]].func), 30, call, sizeof call);
		}
		fprintf(out, "  %14llu %6llu  %-13s %s%s", (ull)key_bytes(r, live), (ull)key_spans(r, live),
			tool_map_class_name(r->cls), call, call[0] ? ": " : "");
		if (s->sites[r->site].nframes == 0)
			fprintf(out, "%s\n", no_site(r->cls));
		else {
			tool_sites_line(out, s, r->site, skip);
			fputc('\n', out);
		}
	}
}

void tool_map_report(FILE *out, const struct tool_map *m, const struct tool_heap *h, unsigned top)
{
	if (!tool_map_any(m))
		return;
	char a[32], b[32];
	fprintf(out, "\nMapped memory (mmap, mremap, brk, thread stacks; pages of %llu B)\n", (ull)m->page);
	fprintf(out, "  %llu span events, %llu generation%s restating the mappings (%llu Span events)", (ull)m->span_events,
		(ull)m->snapshots, m->snapshots == 1 ? "" : "s", (ull)m->snapshot_spans);
	if (m->stack_events)
		fprintf(out, ", %llu thread stack events", (ull)m->stack_events);
	fprintf(out, "\n");
	if (m->failed)
		fprintf(out, "  (incomplete: %s; the figures cover the generations before)\n", m->err);
	if (!m->snapshots)
		fprintf(out, "  No generation restated the mappings: mappings made before the trace are not counted.\n");
	fprintf(out, "\n");
	class_table(out, m, h);
	fprintf(out, "  mapped during the trace %s, unmapped %s\n", hb(m->mapped_bytes, a, sizeof a),
		hb(m->unmapped_bytes, b, sizeof b));
	if (m->stack_events)
		fprintf(out, "  thread stacks: %llu at the end, at most %llu at once\n", (ull)m->live_stacks,
			(ull)m->peak_stacks);
	if (m->appeared)
		fprintf(out, "  %llu spans appeared in a generation's snapshot without a SpanAlloc (mapped by calls\n"
			     "  gotrace does not see): counted as mapped at that generation's start\n", (ull)m->appeared);
	if (m->vanished)
		fprintf(out, "  %llu spans were missing from a snapshot without a SpanFree: unmapped at that\n"
			     "  generation's start\n", (ull)m->vanished);
	if (m->resized)
		fprintf(out, "  %llu spans had another size in a snapshot (brk, or a resize gotrace does not see):\n"
			     "  resized at that generation's start\n", (ull)m->resized);
	if (m->unknown_frees)
		fprintf(out, "  %llu SpanFree of spans not mapped in the trace were ignored\n", (ull)m->unknown_frees);
	if (m->replaced)
		fprintf(out, "  %llu SpanAlloc over a live span whose SpanFree was not recorded; those count as unmapped\n",
			(ull)m->replaced);

	uint32_t *idx = malloc((m->nrows ? m->nrows : 1) * sizeof *idx);
	if (!idx) {
		fprintf(out, "\n(out of memory: no mapping site lists)\n");
		return;
	}
	row_list(out, m, h, idx, true, top, "Mapped at the end by mapping site");
	row_list(out, m, h, idx, false, top, "Top mapping sites by bytes mapped during the trace");
	free(idx);
}

/* ---- the totals of `gotrace stat` ---- */

void tool_map_stat_text(FILE *out, const struct tool_map *m, const char *peak_at)
{
	if (!tool_map_any(m))
		return;
	char a[32], b[32];
	fprintf(out, "  mapped memory peak %s at %s, %s at the end; %llu span events", hb(m->peak_bytes, a, sizeof a),
		peak_at, hb(m->live_bytes, b, sizeof b), (ull)m->span_events);
	if (m->stack_events)
		fprintf(out, ", %llu thread stacks at the end", (ull)m->live_stacks);
	uint64_t v[TOOL_MAP_CLASSES];
	for (unsigned i = 0; i < TOOL_MAP_CLASSES; i++)
		v[i] = m->cls[i].live_bytes;
	class_list(out, fprintf(out, "\n    at the end by class (see `gotrace heap`):") - 1, v);
}

void tool_map_stat_json(FILE *out, const struct tool_map *m, uint64_t peak_at_ns)
{
	fprintf(out, "{\"span_events\": %llu, \"snapshots\": %llu, \"page_bytes\": %llu, \"peak_bytes\": %llu, "
		     "\"peak_at\": ",
		(ull)m->span_events, (ull)m->snapshots, (ull)m->page, (ull)m->peak_bytes);
	tool_json_seconds(out, peak_at_ns);
	fprintf(out, ", \"end_bytes\": %llu, \"end_spans\": %llu, \"mapped_bytes\": %llu, \"unmapped_bytes\": %llu, ",
		(ull)m->live_bytes, (ull)m->live_spans, (ull)m->mapped_bytes, (ull)m->unmapped_bytes);
	if (m->have_start)
		fprintf(out, "\"start_bytes\": %llu, ", (ull)m->start_bytes);
	else
		fprintf(out, "\"start_bytes\": null, ");
	fprintf(out, "\"classes\": {");
	bool any = false;
	for (unsigned i = 0; i < TOOL_MAP_CLASSES; i++) {
		const struct tool_map_class *k = &m->cls[i];
		if (!k->peak_bytes && !k->live_bytes && !k->start_bytes)
			continue;
		fprintf(out, "%s\"%s\": {\"peak_bytes\": %llu, \"end_bytes\": %llu, \"end_spans\": %llu}", any ? ", " : "",
			tool_map_class_name(i), (ull)k->peak_bytes, (ull)k->live_bytes, (ull)k->live_spans);
		any = true;
	}
	fprintf(out, "}, \"thread_stacks\": ");
	if (m->stack_events)
		fprintf(out, "{\"end\": %llu, \"peak\": %llu}", (ull)m->live_stacks, (ull)m->peak_stacks);
	else
		fprintf(out, "null");
	fprintf(out, ", \"complete\": %s}", m->failed ? "false" : "true");
}
