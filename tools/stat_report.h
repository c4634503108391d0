/* stat_report.h — what `gotrace stat` prints from the accounting
 * (stat_acct.h): a terminal summary, or the same data as one JSON object.
 *
 * Both show: the trace's counts and span, the heap peak if the trace has
 * one, the time of all threads by state and block reason, the threads
 * grouped by start function, the threads, the wait sites (sleeps left out)
 * and the syscall sites. Lists are cut to `top` entries (0: all): threads
 * and groups ranked by time not running, sites by total time. Times are in
 * seconds in JSON, and in the unit that suits them (ns, us, ms, s) in text. */
#ifndef TOOLS_STAT_REPORT_H
#define TOOLS_STAT_REPORT_H

#include <stdio.h>

#include "tools/stat_acct.h"

/* tool_stat_report prints the text summary; name is the trace's name.
 * Returns 0, or -1 when out of memory (what fits is printed). */
int tool_stat_report(FILE *out, const struct tool_stat *s, const char *name, unsigned top);

/* tool_stat_json prints the JSON object (one line per list entry) and a
 * newline; error is the message of a damaged trace, or NULL. Returns 0,
 * or -1 when out of memory (nothing is printed). */
int tool_stat_json(FILE *out, const struct tool_stat *s, const char *name, unsigned top, const char *error);

#endif
