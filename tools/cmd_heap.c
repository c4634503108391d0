/* cmd_heap.c — `gotrace heap`: heap profile and leak report of a trace's
 * AllocFree events (docs/heap.md). The work is in heap_acct.c (accounting),
 * heap_report.c (text) and heap_pprof.c (profile), written as the other
 * profiles are (profile_cmd.c). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cmd.h"
#include "tools/heap_report.h"
#include "tools/map_report.h"
#include "tools/profile_cmd.h"
#include "tools/replay_cmd.h"

#define USAGE "gotrace heap [-pprof OUT.pb.gz] [-mapped-pprof OUT.pb.gz] [-top N] TRACE"
#define DEFAULT_TOP 10

static void heap_help(FILE *out)
{
	fprintf(out, "Reads the heap events of a trace written by libgotrace.so (malloc, calloc,\n"
		     "realloc, posix_memalign, ..., free, C++ new and delete) and prints\n"
		     "totals, the peak of live bytes and when it happened, the objects still live\n"
		     "at the end by allocation site (leaks), and the top sites by bytes and by\n"
		     "number of allocations. A trace with span events (mmap, mremap, brk, thread\n"
		     "stacks) also gets its mapped memory: bytes by class at the start, peak and\n"
		     "end, and the top mapping sites. TRACE may be - for standard input.\n\n"
		     "options:\n"
		     "  %-20s write a gzipped pprof heap profile: alloc_objects, alloc_space,\n"
		     "  %-20s inuse_objects, inuse_space (default), one sample per site\n"
		     "  %-20s write a gzipped pprof profile of mapped memory: mapped_spans,\n"
		     "  %-20s mapped_space, inuse_spans, inuse_space (default), one sample\n"
		     "  %-20s per mapping site and class (labels class, mapper)\n"
		     "  %-20s sites per list, default %d; 0 = all\n"
		     "  %-20s show this help\n",
		     "-pprof FILE", "", "-mapped-pprof FILE", "", "", "-top N", DEFAULT_TOP, "-h, -help");
	fprintf(out, "\nSampled traces (GOTRACE_MALLOC=sample, the default, or a mean such as 64KB)\n"
		     "record about one allocation per mean bytes allocated: an allocation of s bytes\n"
		     "with probability p(s) = 1-exp(-s/mean). Each recorded one then counts 1/p(s)\n"
		     "objects and s/p(s) bytes, so every figure, the peak, the lists and the profile\n"
		     "are estimates; the report says so, gives each site's relative standard error\n"
		     "(s.e.), and what the leak list can miss (a site that leaked much less than the\n"
		     "mean in all may not show). GOTRACE_MALLOC=all records every allocation.\n");
	fprintf(out, "\nSizes are the requested sizes. Objects allocated before tracing began are not\n"
		     "seen, and their frees are ignored. A truncated or malformed trace is reported\n"
		     "in one line on stderr (exit status 1) after the report of its complete\n"
		     "generations. A file without a complete generation (empty, a header alone,\n"
		     "cut inside its first generation, not a trace) gets one line on stderr and\n"
		     "nothing else: no report, no profile (exit status 2).\n"
		     "\nexit status: 0 done (also for a trace without heap events); 1 unreadable\n"
		     "file, a trace truncated or malformed after its complete generations, or an\n"
		     "unwritable profile; 2 bad option, or no complete generation.\n"
		     "\nexamples:\n"
		     "  gotrace run -o app.trace -- ./app\n"
		     "  gotrace heap app.trace\n"
		     "  gotrace heap -top 3 -pprof heap.pb.gz app.trace\n"
		     "  go tool pprof -top -sample_index=inuse_space heap.pb.gz\n"
		     "  go tool pprof -http=: -sample_index=alloc_space heap.pb.gz\n"
		     "  gotrace heap -mapped-pprof mapped.pb.gz app.trace\n"
		     "  go tool pprof -top -tagfocus='class=thread stack' mapped.pb.gz\n");
}


static int heap_main(int argc, char **argv)
{
	static const struct tool_replay_cmd args = { "heap", USAGE, &tool_cmd_heap, "sites", true, "pprof", true,
						     "mapped-pprof" };
	const char *pprof = NULL, *mapped_pprof = NULL;
	unsigned top = DEFAULT_TOP;
	const char *path = NULL;
	int status;
	FILE *f = tool_replay_args2(&args, argc, argv, &top, &pprof, NULL, &mapped_pprof, &path, &status);
	if (!f)
		return status;
	struct tool_heap *h = malloc(sizeof *h);
	struct tool_map *m = malloc(sizeof *m);
	if (!h || !m || tool_heap_init(h) || tool_map_init(m)) {
		fprintf(stderr, "gotrace heap: out of memory\n");
		if (h)
			tool_heap_release(h);
		free(h);
		free(m);
		if (f != stdin)
			fclose(f);
		return 1;
	}
	tool_map_attach(m, h); /* fed every batch by the heap (map_acct.h) */
	bool empty = tool_replay_empty(f);
	int failed = !empty && tool_heap_read(h, f) != 0;
	if (f != stdin)
		fclose(f);
	const char *name = f == stdin ? "(standard input)" : path;

	if (empty || h->gens == 0) {
		/* Nothing to report: one line, no empty report. */
		int rc = tool_replay_no_generation("heap", name, empty, h->version, failed ? h->err : NULL);
		tool_map_release(m);
		free(m);
		tool_heap_release(h);
		free(h);
		return rc;
	}
	int rc = 0;
	if (failed)
		printf("(the trace is truncated or malformed after generation %llu; this report covers\n"
		       " its complete generations only, and objects live at that point count as live)\n\n",
		       (unsigned long long)h->last_gen);
	tool_heap_report(stdout, h, name, top);
	tool_map_report(stdout, m, h, top);
	fflush(stdout);
	if (pprof) {
		struct tool_pprof p;
		int built = tool_heap_pprof(h, name, &p);
		if (tool_profile_save("heap", pprof, &p, built))
			rc = 1;
	}
	if (mapped_pprof) {
		struct tool_pprof p;
		int built = tool_map_pprof(m, h, name, &p);
		if (tool_profile_save("heap", mapped_pprof, &p, built))
			rc = 1;
	}
	if (failed) {
		fprintf(stderr, "gotrace heap: %s: %s\n", name, h->err);
		rc = 1;
	}
	tool_map_release(m);
	free(m);
	tool_heap_release(h);
	free(h);
	return rc;
}

const struct tool_command tool_cmd_heap = {
	.name = "heap",
	.summary = "heap profile and leak report of a trace (malloc/free, new/delete)",
	.usage = USAGE,
	.help = heap_help,
	.main = heap_main,
};
