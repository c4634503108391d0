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

/* tool_stat_format_duration writes ns as "0", "812ns", "15.3us", "200.1ms",
 * "1.523s", "12.35s" or "123.4s" (at most 9 characters below 10^6 s). */
const char *tool_stat_format_duration(uint64_t ns, char *buf, size_t len);

/* For the lock holders' report (tools/mutex_report.c): a site as the
 * wait sites print it ("f0 ← f1 ← ... (file.c:line)"), its JSON members
 * ("summary", "frames"), a JSON string, a name cleaned for a terminal
 * (control bytes '?', cut at max bytes), a frame's function (or PC). */
void tool_stat_print_site(FILE *out, const struct tool_stat *s, uint32_t site);
void tool_stat_json_site(FILE *out, const struct tool_stat *s, uint32_t site);
void tool_stat_json_string(FILE *out, const char *str);
const char *tool_stat_clean(const char *str, size_t max, char *buf, size_t len);
const char *tool_stat_frame_name(const struct tool_stat *s, uint32_t frame, char *buf, size_t len);

#endif
