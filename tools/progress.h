/* progress.h — "read 120 MiB of 800 MiB (15 %)" on a terminal while a
 * command reads a big trace.
 *
 * Shown on stderr only when it is a terminal, and only once the work has
 * run for a second (a quick command prints nothing); redrawn at most ten
 * times a second on one line, which tool_progress_end clears. GOTRACE_PROGRESS
 * = never | auto (the default) | always (on a terminal, from the start) |
 * force (also when stderr is no terminal: for scripts that want it). One
 * progress line at a time (the commands read one trace at a time). */
#ifndef TOOLS_PROGRESS_H
#define TOOLS_PROGRESS_H

#include <stdint.h>

/* tool_progress_begin starts a line about total bytes, what says what is read
 * ("reading app.trace"). */
void tool_progress_begin(const char *what, uint64_t total);
/* tool_progress_at says done bytes are behind us; cheap when nothing shows. */
void tool_progress_at(uint64_t done);
/* tool_progress_end clears the line if one was drawn. */
void tool_progress_end(void);

#endif
