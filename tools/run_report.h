/* run_report.h — what `gotrace run` says after the command ends: every file
 * the run's processes wrote, which one is the command's own, and which to
 * open (docs/gotrace.1, "gotrace run"). */
#ifndef TOOLS_RUN_REPORT_H
#define TOOLS_RUN_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

struct tool_run_result {
	const char *pattern;   /* GOTRACE_OUT as the processes got it (%p unexpanded) */
	pid_t pid;             /* the command's process: the one gotrace forked */
	struct timespec start; /* CLOCK_REALTIME_COARSE before the fork: older files are not the run's */
	int status;            /* its wait status */
	bool have_lib;         /* libgotrace.so was preloaded */
	char *open;            /* if not NULL: set to the trace the report says to open, or "" */
	size_t open_len;
};

/* tool_run_report writes the report to out, every line starting "gotrace: ". */
void tool_run_report(FILE *out, const struct tool_run_result *run);

/* tool_shell_quote writes s so that it can be pasted into a shell. */
void tool_shell_quote(const char *s, char *buf, size_t len);

#endif
