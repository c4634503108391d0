/* map_pprof.c — the profile of mapped memory, `gotrace heap -mapped-pprof`
 * (map_report.h).
 *
 * Like the heap profile (heap_pprof.c), in the same shape: sample types
 * mapped_spans, mapped_space (mapped during the trace), inuse_spans,
 * inuse_space (mapped at the end, the default); one sample per row (a
 * mapping site in one class) with the mapping call left out of its stack
 * (so `pprof -top` puts the flat bytes on the code that mapped) and named
 * in the label "mapper"; the class in the label "class" (`pprof
 * -tagfocus='class=thread stack'`). A row without frames (a mapping seen only
 * in the process's map, the brk heap, main's stack) gets one location
 * named after its class, "(brk heap)", so `-top` shows it by class.
 * Locations and functions are site_pprof.c's. Nothing is sampled: the
 * values are exact (period 1). */
#include <stdio.h>
#include <stdlib.h>

#include "tools/map_report.h"
#include "tools/site_pprof.h"

struct ctx {
	struct tool_site_pprof sp;
	uint64_t class_loc[TOOL_MAP_CLASSES]; /* location of a class's frameless rows */
};

static int64_t value(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

static uint64_t class_location(struct ctx *c, unsigned cls)
{
	if (c->class_loc[cls])
		return c->class_loc[cls];
	char buf[48];
	snprintf(buf, sizeof buf, "(%s)", tool_map_class_name(cls));
	uint64_t fn = tool_site_pprof_function(&c->sp, tool_pprof_cstring(c->sp.p, buf), 0);
	if (!fn)
		return 0;
	c->class_loc[cls] = ++c->sp.nlocs;
	tool_pprof_location(c->sp.p, c->class_loc[cls], TOOL_SITE_PPROF_MAPPING, 0, fn, 0);
	return c->class_loc[cls];
}

static int sample(struct ctx *c, const struct tool_map_row *r, int64_t k_mapper, int64_t k_class)
{
	const struct tool_sites *s = c->sp.sites;
	unsigned skip = tool_map_call_frames(s, r->site);
	uint64_t locs[GT_MAX_FRAMES];
	size_t n;
	if (tool_site_pprof_stack(&c->sp, r->site, skip, locs, &n))
		return -1;
	if (n == 0 && !(locs[n++] = class_location(c, r->cls)))
		return -1;
	/* Spans mapped before the trace count in inuse only. */
	int64_t values[4] = { value(r->mapped_spans), value(r->mapped_bytes), value(r->live_spans),
			      value(r->live_bytes) };
	struct tool_pprof_label labels[2];
	size_t nl = 0;
	labels[nl++] = (struct tool_pprof_label){ .key = k_class,
						  .str = tool_pprof_cstring(c->sp.p, tool_map_class_name(r->cls)) };
	if (skip > 0) {
		const uint32_t *fr = tool_sites_site_frames(s, r->site);
		labels[nl++] = (struct tool_pprof_label){ .key = k_mapper,
							  .str = tool_site_pprof_str(&c->sp, s->frames[fr[skip - 1]].func) };
	}
	tool_pprof_sample(c->sp.p, locs, n, values, 4, labels, nl);
	return 0;
}

int tool_map_pprof(const struct tool_map *m, const struct tool_heap *h, const char *name, struct tool_pprof *p)
{
	struct ctx c = { 0 };
	int rc = -1;
	if (tool_site_pprof_init(&c.sp, &h->sites, p))
		goto out;
	static const char *const types[4][2] = {
		{ "mapped_spans", "count" },
		{ "mapped_space", "bytes" },
		{ "inuse_spans", "count" },
		{ "inuse_space", "bytes" },
	};
	tool_pprof_sample_types(p, types, 4, 3); /* default: inuse_space */
	tool_pprof_period(p, tool_pprof_cstring(p, "space"), tool_pprof_cstring(p, "bytes"), 1);
	double d = h->duration * 1e9;
	tool_pprof_time(p, 0, d > 0 && d < 9.2e18 ? (int64_t)d : 0);
	tool_pprof_mapping(p, TOOL_SITE_PPROF_MAPPING, 0, UINT64_MAX, tool_pprof_cstring(p, name));
	tool_pprof_comment(p, tool_pprof_cstring(p, "gotrace heap: mapped memory (mmap, mremap, brk, thread stacks) "
						  "by mapping site and class; inuse = mapped at the end of the trace, "
						  "mapped = mapped during it"));
	int64_t k_mapper = tool_pprof_cstring(p, "mapper"), k_class = tool_pprof_cstring(p, "class");
	for (size_t i = 0; i < m->nrows; i++) {
		const struct tool_map_row *r = &m->rows[i];
		if (!r->live_bytes && !r->mapped_bytes && !r->live_spans && !r->mapped_spans)
			continue;
		if (sample(&c, r, k_mapper, k_class))
			goto out;
	}
	rc = tool_pprof_failed(p) ? -1 : 0;
out:
	tool_site_pprof_free(&c.sp);
	if (rc)
		tool_pprof_free(p);
	return rc;
}
