/* mutex_pprof.c — the mutex profile of `gotrace mutex -pprof`
 * (mutex_report.h).
 *
 * As Go's mutex profile: sample types contentions/count and
 * delay/nanoseconds, period type contentions/count, period 1; each sample
 * is a releasing stack, leaf first (the release call itself, then the code
 * that released), so `pprof -top` puts the flat delay on the release and
 * the cum delay on the code that held the lock. One sample per (stack,
 * holder thread), labelled "holder" with the holder's name. Locations and
 * functions are site_pprof.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/mutex_report.h"
#include "tools/site_pprof.h"

int tool_mutex_pprof(const struct tool_stat *s, const char *name, struct tool_pprof *p)
{
	struct tool_site_pprof c;
	int64_t *holder = NULL; /* thread -> label string (0: not yet) */
	int rc = -1;
	if (tool_site_pprof_init(&c, &s->sites, p) || !(holder = calloc(s->nth + 1, sizeof *holder)))
		goto out;
	int64_t count = tool_pprof_cstring(p, "contentions");
	tool_pprof_sample_type(p, count, tool_pprof_cstring(p, "count"));
	int64_t delay = tool_pprof_cstring(p, "delay");
	tool_pprof_sample_type(p, delay, tool_pprof_cstring(p, "nanoseconds"));
	tool_pprof_default_sample_type(p, delay);
	tool_pprof_period(p, count, tool_pprof_cstring(p, "count"), 1);
	tool_pprof_time(p, 0, (int64_t)(s->have_time ? s->t_last - s->t_first : 0));
	tool_pprof_mapping(p, TOOL_SITE_PPROF_MAPPING, 0, UINT64_MAX, tool_pprof_cstring(p, name));
	tool_pprof_comment(p, tool_pprof_cstring(p, "gotrace mutex: lock waits (sync.mutex, sync.rwlock) ended by "
						  "another thread's release, delay charged to the releasing stack"));
	int64_t k_holder = tool_pprof_cstring(p, "holder");
	const struct tool_mutex *m = &s->mutex;
	for (size_t i = 0; i < m->n; i++) {
		const struct tool_mcont *mc = &m->c[i];
		uint64_t locs[GT_MAX_FRAMES];
		size_t n;
		if (tool_site_pprof_stack(&c, mc->site, 0, locs, &n))
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
	free(holder);
	tool_site_pprof_free(&c);
	if (rc)
		tool_pprof_free(p);
	return rc;
}
