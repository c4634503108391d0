/* cmd_mutex.c — `gotrace mutex`: the mutex profile of a trace, with Go's
 * semantics (tools/mutex_acct.h): who held the locks others waited for,
 * and where they released them. The command's body is profile_cmd.c's
 * (the trace read as `gotrace stat` reads it); it prints mutex_report.c's
 * lists and writes mutex_pprof.c's profile. */
#include "tools/cmd.h"
#include "tools/mutex_report.h"
#include "tools/profile_cmd.h"

#define USAGE "gotrace mutex [-pprof OUT.pb.gz] [-top N] TRACE"
#define DEFAULT_TOP 10

static void mutex_help(FILE *out)
{
	fprintf(out, "The mutex profile of a trace written by libgotrace.so, as Go's runtime keeps\n"
		     "one: each wait on a pthread mutex or rwlock (sync.mutex, sync.rwlock) that\n"
		     "another thread's release ended is one contention, and its delay (from the\n"
		     "wait's start to the release) is charged to the releasing stack, each\n"
		     "waiter's delay counted. Prints the releasing functions (flat: the release\n"
		     "call; cum: the code that held the lock), the releasing sites, and the\n"
		     "threads that held the locks with the delay they caused (the releasing\n"
		     "thread, or the holder the waiter's \"gotrace.holder\" log named). TRACE may\n"
		     "be - for standard input.\n\n"
		     "options:\n"
		     "  %-20s write a gzipped pprof mutex profile: contentions/count,\n"
		     "  %-20s delay/nanoseconds (default), labelled with the holder thread\n"
		     "  %-20s entries per list, default %d; 0 = all\n"
		     "  %-20s show this help\n",
		     "-pprof FILE", "", "-top N", DEFAULT_TOP, "-h, -help");
	fprintf(out, "\nexit status: 0 done (also for a trace without lock waits); 1 unreadable\n"
		     "file, a trace truncated or malformed after its complete generations, or an\n"
		     "unwritable profile; 2 bad option, or no complete generation.\n"
		     "\nexamples:\n"
		     "  gotrace run -o app.trace -- ./app\n"
		     "  gotrace mutex -pprof mutex.pb.gz app.trace\n"
		     "  go tool pprof -top mutex.pb.gz\n");
}

static int mutex_main(int argc, char **argv)
{
	static const struct tool_replay_cmd args = { "mutex", USAGE, &tool_cmd_mutex, "entries", false, "pprof", true };
	return tool_profile_cmd_main(&args, DEFAULT_TOP, tool_mutex_report, tool_mutex_pprof, argc, argv);
}

const struct tool_command tool_cmd_mutex = {
	.name = "mutex",
	.summary = "mutex profile: who held the locks others waited for, delay by releasing stack",
	.usage = USAGE,
	.help = mutex_help,
	.main = mutex_main,
};
