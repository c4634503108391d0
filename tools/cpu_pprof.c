/* cpu_pprof.c — the CPU profile of `gotrace cpu -pprof` (cpu_report.h).
 *
 * As Go's CPU profile (runtime/pprof): sample types samples/count and
 * cpu/nanoseconds, period type cpu/nanoseconds, period 1e9 / hz; each
 * sample is a sampled stack, leaf first, with its count and count × period.
 * One sample per (stack, thread), labelled "thread" (the thread's label or
 * G<goid>) and "group" (its start function), so that `go tool pprof
 * -tagfocus=group=worker_main` keeps one thread group. Locations and
 * functions are site_pprof.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cpu_report.h"
#include "tools/site_pprof.h"
#include "tools/stat_site.h"

/* labels returns the profile strings of a thread's labels, made once per
 * thread (slot nth: no thread). */
static void labels(const struct tool_stat *s, struct tool_pprof *p, int64_t (*lab)[2], uint32_t thread)
{
	size_t slot = thread < s->nth ? thread : s->nth;
	if (lab[slot][0])
		return;
	char buf[64], pc[32];
	lab[slot][0] = tool_pprof_cstring(p, tool_cpu_thread_name(s, thread, buf, sizeof buf));
	const char *group = "(no thread)";
	if (slot < s->nth)
		group = s->th[slot].func == TOOL_STAT_NONE ? "(unknown)" : tool_frame_name(s, s->th[slot].func, pc, sizeof pc);
	lab[slot][1] = tool_pprof_cstring(p, group);
}

int tool_cpu_pprof(const struct tool_stat *s, const char *name, struct tool_pprof *p)
{
	struct tool_site_pprof c;
	int64_t (*lab)[2] = NULL; /* thread -> label strings (0: not yet) */
	int rc = -1;
	if (tool_site_pprof_init(&c, &s->sites, p) || !(lab = calloc(s->nth + 1, sizeof *lab)))
		goto out;
	const struct tool_cpu *cpu = &s->cpu;
	int64_t period = (int64_t)tool_cpu_period(cpu);
	int64_t ns = tool_pprof_cstring(p, "nanoseconds");
	tool_pprof_sample_type(p, tool_pprof_cstring(p, "samples"), tool_pprof_cstring(p, "count"));
	int64_t cpu_s = tool_pprof_cstring(p, "cpu");
	tool_pprof_sample_type(p, cpu_s, ns);
	tool_pprof_period(p, cpu_s, ns, period);
	tool_pprof_time(p, 0, (int64_t)(s->have_time ? s->t_last - s->t_first : 0));
	tool_pprof_mapping(p, TOOL_SITE_PPROF_MAPPING, 0, UINT64_MAX, tool_pprof_cstring(p, name));
	char note[160];
	snprintf(note, sizeof note, "gotrace cpu: CPU samples of the trace at %llu Hz (%s)",
		 (unsigned long long)tool_cpu_rate(cpu), cpu->hz ? "stated by the trace" : "assumed: Go's default");
	tool_pprof_comment(p, tool_pprof_cstring(p, note));
	int64_t k_thread = tool_pprof_cstring(p, "thread"), k_group = tool_pprof_cstring(p, "group");
	for (size_t i = 0; i < cpu->n; i++) {
		const struct tool_csample *cs = &cpu->c[i];
		uint64_t locs[GT_MAX_FRAMES];
		size_t n;
		if (tool_site_pprof_stack(&c, cs->site, 0, locs, &n))
			goto out;
		labels(s, p, lab, cs->thread);
		size_t slot = cs->thread < s->nth ? cs->thread : s->nth;
		int64_t values[2] = { (int64_t)cs->count, (int64_t)cs->count * period };
		struct tool_pprof_label l[2] = { { .key = k_thread, .str = lab[slot][0] },
						 { .key = k_group, .str = lab[slot][1] } };
		tool_pprof_sample(p, locs, n, values, 2, l, 2);
	}
	rc = tool_pprof_failed(p) ? -1 : 0;
out:
	free(lab);
	tool_site_pprof_free(&c);
	if (rc)
		tool_pprof_free(p);
	return rc;
}
