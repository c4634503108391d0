/* heap_pprof.c — the heap profile of `gotrace heap -pprof` (heap_report.h).
 *
 * Like Go's heap profiles: sample types alloc_objects, alloc_space,
 * inuse_objects, inuse_space; one sample per allocation site with the
 * allocation function left out of its stack (so `pprof -top` puts the flat
 * cost on the code that allocated, and names the function in the
 * "allocator" label). Locations and functions are site_pprof.c's
 * (locations by frame, carrying its PC).
 *
 * A sampled trace gives estimates, as Go's heap profiles under
 * MemProfileRate do: the values are scaled by the weights
 * (tools/heap_sample.h), the period is the sampling mean in bytes (period
 * type space/bytes), and comments say that the values are estimates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/heap_report.h"
#include "tools/site_pprof.h"

struct ctx {
	const struct tool_heap *h;
	struct tool_site_pprof sp;
	uint64_t unknown_loc; /* location of the frameless site */
};

/* value rounds an estimate to a sample value (never negative). */
static int64_t value(double v)
{
	if (!(v > 0.5))
		return 0;
	if (v >= 9.2e18)
		return INT64_MAX;
	return (int64_t)llround(v);
}

static int sample(struct ctx *c, uint32_t site, int64_t k_alloc, int64_t k_bytes)
{
	const struct tool_sites *s = &c->h->sites;
	const struct tool_hsite *t = &s->sites[site];
	const uint32_t *fr = tool_sites_site_frames(s, site);
	unsigned skip = tool_heap_alloc_frames(s, site);
	struct tool_pprof *p = c->sp.p;
	if (!value(t->est.alloc_objects) && !value(t->est.alloc_bytes) && !value(t->est.live_objects) &&
	    !value(t->est.live_bytes))
		return 0; /* not an allocation site (a mapping site, tools/map_acct.h) */
	uint64_t locs[GT_MAX_FRAMES];
	size_t n;
	if (tool_site_pprof_stack(&c->sp, site, skip, locs, &n))
		return -1;
	if (n == 0) {
		if (!c->unknown_loc) {
			int64_t name = tool_pprof_cstring(p, "(unknown allocation site)");
			uint64_t fn = tool_site_pprof_function(&c->sp, name, 0);
			if (!fn)
				return -1;
			c->unknown_loc = ++c->sp.nlocs;
			tool_pprof_location(p, c->unknown_loc, TOOL_SITE_PPROF_MAPPING, 0, fn, 0);
		}
		locs[n++] = c->unknown_loc;
	}
	int64_t values[4] = { value(t->est.alloc_objects), value(t->est.alloc_bytes), value(t->est.live_objects),
			      value(t->est.live_bytes) };
	struct tool_pprof_label labels[2];
	size_t nl = 0;
	if (skip > 0) {
		int64_t alloc = tool_site_pprof_str(&c->sp, s->frames[fr[skip - 1]].func);
		labels[nl++] = (struct tool_pprof_label){ .key = k_alloc, .str = alloc };
	}
	if (t->alloc_objects && t->min_size == t->max_size)
		labels[nl++] = (struct tool_pprof_label){ .key = k_bytes, .num = (int64_t)t->min_size };
	tool_pprof_sample(p, locs, n, values, 4, labels, nl);
	return 0;
}

/* ns converts seconds to nanoseconds, within int64_t. */
static int64_t ns(double seconds)
{
	if (!(seconds > 0))
		return 0;
	if (seconds * 1e9 >= 9.2e18)
		return INT64_MAX;
	return (int64_t)(seconds * 1e9);
}

int tool_heap_pprof(const struct tool_heap *h, const char *name, struct tool_pprof *p)
{
	const struct tool_sites *s = &h->sites;
	struct ctx c = { .h = h };
	int rc = -1;
	if (tool_site_pprof_init(&c.sp, s, p))
		goto out;

	static const char *const types[4][2] = {
		{ "alloc_objects", "count" },
		{ "alloc_space", "bytes" },
		{ "inuse_objects", "count" },
		{ "inuse_space", "bytes" },
	};
	tool_pprof_sample_types(p, types, 4, 3); /* default: inuse_space */
	/* Go's heap profiles: period = the sampling rate in bytes (1: every allocation). */
	uint64_t mean = h->sampled_gens ? h->sample_max : 0;
	tool_pprof_period(p, tool_pprof_cstring(p, "space"), tool_pprof_cstring(p, "bytes"),
			mean && mean <= INT64_MAX ? (int64_t)mean : 1);
	int64_t wall = 0;
	if (h->wall_ns && h->wall_ns <= INT64_MAX) { /* the wall clock at the trace start */
		int64_t before = ns(tool_heap_seconds(h, h->wall_ts, h->freq));
		wall = (int64_t)h->wall_ns - (before < (int64_t)h->wall_ns ? before : 0);
	}
	tool_pprof_time(p, wall, ns(h->duration));
	tool_pprof_mapping(p, TOOL_SITE_PPROF_MAPPING, 0, UINT64_MAX, tool_pprof_cstring(p, name));
	if (!h->sampled_gens) {
		tool_pprof_comment(p, tool_pprof_cstring(p, "gotrace heap: every allocation of the trace, requested sizes"));
	} else {
		char buf[256];
		if (h->sample_min == h->sample_max)
			snprintf(buf, sizeof buf, "gotrace heap: SAMPLED heap profile, values are ESTIMATES: allocations "
				 "recorded by bytes allocated (a Poisson process, mean %llu bytes), requested sizes",
				 (unsigned long long)mean);
		else
			snprintf(buf, sizeof buf, "gotrace heap: SAMPLED heap profile, values are ESTIMATES: allocations "
				 "recorded by bytes allocated (Poisson processes, means %llu to %llu bytes), requested sizes",
				 (unsigned long long)h->sample_min, (unsigned long long)mean);
		tool_pprof_comment(p, tool_pprof_cstring(p, buf));
		tool_pprof_comment(p, tool_pprof_cstring(p, "gotrace heap: each recorded allocation of s bytes counts "
						      "1/(1-exp(-s/mean)) objects and s times as many bytes; "
						      "GOTRACE_MALLOC=all records every allocation"));
	}

	int64_t k_alloc = tool_pprof_cstring(p, "allocator"), k_bytes = tool_pprof_cstring(p, "bytes");
	for (uint32_t i = 0; i < s->nsites; i++)
		if (sample(&c, i, k_alloc, k_bytes))
			goto out;
	rc = tool_pprof_failed(p) ? -1 : 0;
out:
	tool_site_pprof_free(&c.sp);
	if (rc)
		tool_pprof_free(p);
	return rc;
}
