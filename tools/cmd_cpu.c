/* cmd_cpu.c — `gotrace cpu`: the CPU profile samples of a trace (the
 * CPUSample events written by libgotrace.so's sampler, or by the Go runtime
 * with CPU profiling on): top functions flat and cumulative, the threads
 * and thread groups that used the CPU, and a pprof CPU profile. Reads the
 * trace as `gotrace stat` does (stat_load.c, cpu_acct.c); prints
 * cpu_report.c's lists and writes cpu_pprof.c's profile. */
#include <stdbool.h>
#include <stdlib.h>

#include "tools/cmd.h"
#include "tools/cpu_report.h"
#include "tools/gzip.h"
#include "tools/replay_cmd.h"
#include "tools/stat_load.h"

#define USAGE "gotrace cpu [-pprof OUT.pb.gz] [-top N] TRACE"
#define DEFAULT_TOP 10

static void cpu_help(FILE *out)
{
	fprintf(out, "The CPU profile of a trace: its CPU samples (CPUSample events, each a\n"
		     "thread's stack when its CPU-time clock ticked), as Go's CPU profiler\n"
		     "counts them. Prints the total samples and CPU time (samples x period),\n"
		     "the top functions (flat: the sampled function; cum: it or what it\n"
		     "called), the threads by samples, and each thread group's (start\n"
		     "function's) top functions. The period is 1/hz: the rate the trace\n"
		     "states (\"cpu_hz=N\" in libgotrace.so's gotrace.process string), else\n"
		     "Go's default 100 Hz, and the output says which. TRACE may be - for\n"
		     "standard input.\n\n"
		     "options:\n"
		     "  %-20s write a gzipped pprof CPU profile: samples/count,\n"
		     "  %-20s cpu/nanoseconds, labels \"thread\" and \"group\"\n"
		     "  %-20s entries per list, default %d; 0 = all\n"
		     "  %-20s show this help\n",
		     "-pprof FILE", "", "-top N", DEFAULT_TOP, "-h, -help");
	fprintf(out, "\nexit status: 0 done (also for a trace without samples); 1 unreadable\n"
		     "file, a trace truncated or malformed after its complete generations, or an\n"
		     "unwritable profile; 2 bad option, or no complete generation.\n"
		     "\nexamples:\n"
		     "  gotrace run -o app.trace -- ./app\n"
		     "  gotrace cpu -pprof cpu.pb.gz app.trace\n"
		     "  go tool pprof -top cpu.pb.gz\n"
		     "  go tool pprof -top -tagfocus=group=worker_main cpu.pb.gz\n");
}

static int write_profile(const struct tool_stat *s, const char *name, const char *path)
{
	struct tool_pprof p;
	if (tool_cpu_pprof(s, name, &p)) {
		fprintf(stderr, "gotrace cpu: out of memory while building the profile\n");
		return -1;
	}
	int rc = tool_gzip_save("cpu", path, p.out.buf, p.out.len);
	tool_pprof_free(&p);
	return rc;
}

static int cpu_main(int argc, char **argv)
{
	static const struct tool_replay_cmd args = { "cpu", USAGE, &tool_cmd_cpu, "entries", false, "pprof", true };
	const char *pprof = NULL;
	unsigned top = DEFAULT_TOP;
	const char *path = NULL;
	int status;
	FILE *f = tool_replay_args(&args, argc, argv, &top, &pprof, NULL, &path, &status);
	if (!f)
		return status;
	const char *name = f == stdin ? "(standard input)" : path;
	bool failed;
	int rc;
	struct tool_stat *s = tool_stat_load("cpu", f, name, &failed, &rc);
	if (!s)
		return rc;
	rc = failed;
	if (failed)
		printf("(the trace is truncated or malformed after generation %llu; this profile covers\n"
		       " its complete generations only)\n\n",
		       (unsigned long long)s->last_gen);
	if (tool_cpu_report(stdout, s, name, top))
		rc = 1;
	fflush(stdout);
	if (pprof && write_profile(s, name, pprof))
		rc = 1;
	if (failed)
		fprintf(stderr, "gotrace cpu: %s: %s\n", name, s->err);
	tool_stat_drop(s);
	return rc;
}

const struct tool_command tool_cmd_cpu = {
	.name = "cpu",
	.summary = "CPU profile: top functions by CPU samples, per thread group; pprof output",
	.usage = USAGE,
	.help = cpu_help,
	.main = cpu_main,
};
