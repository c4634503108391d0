/* cmd_stat.c — `gotrace stat`: where the threads' time went, in a terminal
 * (or as JSON), without a browser. The work is in stat_read.c (input),
 * stat_acct.c (state machine) and stat_report.c (output). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cmd.h"
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
	fprintf(out, "\nA thread's times add up to its lifetime in the trace: from its creation (or\n"
		     "first event) to its exit or the end of the trace. Threads are listed by time\n"
		     "not running, most first. A truncated or malformed trace is reported in one\n"
		     "line on stderr (exit status 1) after the summary of its complete generations,\n"
		     "if any.\n"
		     "\nexit status: 0 done, 1 unreadable or malformed trace, 2 bad option.\n"
		     "\nexamples:\n"
		     "  gotrace run -o app.trace -- ./app\n"
		     "  gotrace stat app.trace\n"
		     "  gotrace stat -top 0 -json app.trace | python3 -m json.tool\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "gotrace stat: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: %s\n", USAGE);
	return GT_EXIT_USAGE;
}

static int parse_top(const char *s, unsigned *top)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || s[0] == '+' || v > 1000000)
		return -1;
	*top = (unsigned)v;
	return 0;
}

static int stat_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	unsigned top = DEFAULT_TOP;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long_only(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 't':
			if (parse_top(optarg, &top))
				return usage_error("-top wants a number of entries (0 = all), not \"%s\"", optarg);
			break;
		case 'h': gt_print_command_help(stdout, &gt_cmd_stat); return 0;
		case ':': return usage_error("option %s needs a value", argv[optind - 1]);
		default: return usage_error("bad option \"%s\"", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error(optind < argc ? "one trace file please, got \"%s\" and more"
						 : "which trace? (missing TRACE)%s",
				   optind < argc ? argv[optind + 1] : "");
	const char *path = argv[optind];

	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "gotrace stat: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	const char *name = f == stdin ? "(standard input)" : path;
	struct gt_stat *s = malloc(sizeof *s);
	if (!s || gt_stat_init(s)) {
		fprintf(stderr, "gotrace stat: out of memory\n");
		if (s)
			gt_stat_free(s);
		free(s);
		if (f != stdin)
			fclose(f);
		return 1;
	}
	bool failed = gt_stat_read(s, f) != 0;
	if (f != stdin)
		fclose(f);

	int rc = failed;
	if (s->gens > 0) {
		if (json) {
			if (gt_stat_json(stdout, s, name, top, failed ? s->err : NULL)) {
				fflush(stdout);
				fprintf(stderr, "gotrace stat: out of memory while writing the summary\n");
				rc = 1;
			}
		} else {
			if (failed)
				printf("(the trace is truncated or malformed after generation %llu; this summary\n"
				       " covers its complete generations only)\n\n",
				       (unsigned long long)s->last_gen);
			if (gt_stat_report(stdout, s, name, top))
				rc = 1;
		}
	} else if (!failed) {
		/* A trace with a header and nothing else. */
		if (json)
			gt_stat_json(stdout, s, name, top, NULL);
		else
			gt_stat_report(stdout, s, name, top);
	}
	if (fflush(stdout) != 0 && !failed) {
		fprintf(stderr, "gotrace stat: cannot write the summary: %s\n", strerror(errno));
		rc = 1;
	}
	if (failed)
		fprintf(stderr, "gotrace stat: %s: %s\n", name, s->err);
	gt_stat_free(s);
	free(s);
	return rc;
}

const struct gt_command gt_cmd_stat = {
	.name = "stat",
	.summary = "where the threads' time went: running, blocked by reason, syscalls, top wait sites",
	.usage = USAGE,
	.help = stat_help,
	.main = stat_main,
};
