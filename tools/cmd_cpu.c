/* cmd_cpu.c — `gotrace cpu`: the CPU profile samples of a trace (the
 * CPUSample events written by libgotrace.so's sampler, or by the Go runtime
 * with CPU profiling on): top functions flat and cumulative, the threads
 * and thread groups that used the CPU, and a pprof CPU profile. The command's
 * body is profile_cmd.c's (the trace read as `gotrace stat` reads it, with
 * cpu_acct.c); it prints cpu_report.c's lists and writes cpu_pprof.c's
 * profile. */
#include "tools/cmd.h"
#include "tools/cpu_report.h"
#include "tools/profile_cmd.h"

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

static int cpu_main(int argc, char **argv)
{
	static const struct tool_replay_cmd args = { "cpu", USAGE, &tool_cmd_cpu, "entries", false, "pprof", true };
	return tool_profile_cmd_main(&args, DEFAULT_TOP, tool_cpu_report, tool_cpu_pprof, argc, argv);
}

const struct tool_command tool_cmd_cpu = {
	.name = "cpu",
	.summary = "CPU profile: top functions by CPU samples, per thread group; pprof output",
	.usage = USAGE,
	.help = cpu_help,
	.main = cpu_main,
};
