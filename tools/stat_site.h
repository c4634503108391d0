/* stat_site.h — how a wait site, a frame name, a duration and a JSON
 * string are printed: shared by `gotrace stat`'s report (stat_report.c)
 * and `gotrace mutex`'s, also stat's "Lock holders" section
 * (mutex_report.c). Neither report calls into the other for these. */
#ifndef TOOLS_STAT_SITE_H
#define TOOLS_STAT_SITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/stat_acct.h"

/* Function names, labels, reasons and file names are cut to this many
 * bytes in text (then "..."). */
#define TOOL_NAME_MAX_WIDTH 40

/* tool_stat_format_duration writes ns as "0", "812ns", "15.3us", "200.1ms",
 * "1.523s", "12.35s" or "123.4s" (at most 9 characters below 10^6 s). */
const char *tool_stat_format_duration(uint64_t ns, char *buf, size_t len);

/* tool_clean copies str for a terminal into buf: control bytes become '?',
 * at most max bytes are kept (then "..."). Returns buf. */
const char *tool_clean(const char *str, size_t max, char *buf, size_t len);

/* tool_frame_name is a frame's function, or its PC ("0x...", written to
 * buf) when it has no name. */
const char *tool_frame_name(const struct tool_stat *s, uint32_t frame, char *buf, size_t len);

/* tool_site_print prints a site as the wait sites list it:
 * "f0 ← f1 ← f2 ← f3 ← ... (+n)  (file.c:line)", or "(no stack)". */
void tool_site_print(FILE *out, const struct tool_stat *s, uint32_t site);

/* tool_sites_line prints a site of a site table as tool_site_print does,
 * from its frame `from` on (the frames before it, e.g. the mapping call
 * itself, left out; "(no stack)" when none is left); the place shown is
 * then that of the first frame printed. */
void tool_sites_line(FILE *out, const struct tool_sites *s, uint32_t site, unsigned from);

/* tool_site_json prints a site's JSON members: "summary" (the text form
 * without the place) and "frames" (every frame's function, file, line, pc). */
void tool_site_json(FILE *out, const struct tool_stat *s, uint32_t site);

/* tool_json_string prints str as a JSON string; invalid UTF-8 becomes
 * U+FFFD. */
void tool_json_string(FILE *out, const char *str);

#endif
