/* cmd_stat.c — `gotrace stat`: where the threads' time went, in a terminal
 * (or as JSON), without a browser. The work is in stat_read.c (input),
 * stat_acct.c (state machine) and stat_report.c (output). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cmd.h"
#include "tools/replay_cmd.h"
#include "tools/stat_load.h"
#include "tools/stat_acct.h"
#include "tools/stat_report.h"

#define USAGE "gotrace stat [-json] [-top N] TRACE"
#define DEFAULT_TOP 10

static void stat_help(FILE *out)
{
	fprintf(out, "Summarizes a trace written by libgotrace.so: for every thread (goroutine) the\n"
		     "time it ran, waited to run after a wake-up (runnable), spent in slow system\n"
		     "calls, slept, and was blocked, by reason (sync.mutex, sync.cond, sync.join,\n"
		     "network, ...); the same by start function; the wait sites (stacks of the\n"
		     "blocking calls) and syscall sites with the most total time; the number of\n"
		     "threads, events and generations, the time span and the heap peak. TRACE may\n"
		     "be - for standard input.\n\n"
		     "options:\n"
		     "  %-10s print one JSON object instead of tables (times in seconds)\n"
		     "  %-10s entries per list (threads, start functions, sites), default %d;\n"
		     "  %-10s 0 = all\n"
		     "  %-10s show this help\n",
		     "-json", "-top N", DEFAULT_TOP, "", "-h, -help");
	fprintf(out, "\nThe summary starts with the process that wrote the trace (pid, parent and\n"
		     "command line) when the trace names it. A thread's times add up to its\n"
		     "lifetime in the trace: from its creation (or first event) to its exit or the\n"
		     "end of the trace. Threads are listed by time not running, most first. A\n"
		     "truncated or malformed trace is reported in one line on stderr (exit status\n"
		     "1) after the summary of its complete generations. A file without a complete\n"
		     "generation (empty, a header alone, cut inside its first generation, not a\n"
		     "trace) gets one line on stderr and nothing else (exit status 2).\n"
		     "\nexit status: 0 done; 1 unreadable file, or a trace truncated or malformed\n"
		     "after its complete generations; 2 bad option, or no complete generation.\n"
		     "\nexamples:\n"
		     "  gotrace run -o app.trace -- ./app\n"
		     "  gotrace stat app.trace\n"
		     "  gotrace stat -top 0 -json app.trace | python3 -m json.tool\n");
}


static int stat_main(int argc, char **argv)
{
	static const struct tool_replay_cmd args = { "stat", USAGE, &tool_cmd_stat, "entries", false, "json", false };
	bool json = false;
	unsigned top = DEFAULT_TOP;
	const char *path = NULL;
	int status;
	FILE *f = tool_replay_args(&args, argc, argv, &top, NULL, &json, &path, &status);
	if (!f)
		return status;
	const char *name = f == stdin ? "(standard input)" : path;
	bool failed;
	int rc;
	struct tool_stat *s = tool_stat_load("stat", f, name, &failed, &rc);
	if (!s)
		return rc;
	rc = failed;
	if (json) {
		if (tool_stat_json(stdout, s, name, top, failed ? s->err : NULL)) {
			fflush(stdout);
			fprintf(stderr, "gotrace stat: out of memory while writing the summary\n");
			rc = 1;
		}
	} else {
		if (failed)
			printf("(the trace is truncated or malformed after generation %llu; this summary\n"
			       " covers its complete generations only)\n\n",
			       (unsigned long long)s->last_gen);
		if (tool_stat_report(stdout, s, name, top))
			rc = 1;
	}
	if (fflush(stdout) != 0 && !failed) {
		fprintf(stderr, "gotrace stat: cannot write the summary: %s\n", strerror(errno));
		rc = 1;
	}
	if (failed)
		fprintf(stderr, "gotrace stat: %s: %s\n", name, s->err);
	tool_stat_drop(s);
	return rc;
}

const struct tool_command tool_cmd_stat = {
	.name = "stat",
	.summary = "where the threads' time went: running, blocked by reason, syscalls, top wait sites",
	.usage = USAGE,
	.help = stat_help,
	.main = stat_main,
};
