/* profile_cmd.h — the body of a command that reads a trace into stat's
 * accounting, prints a report and may write a pprof profile (`gotrace cpu`,
 * `gotrace mutex`), and the profile writing that `gotrace heap` shares
 * (profile_cmd.c). */
#ifndef TOOLS_PROFILE_CMD_H
#define TOOLS_PROFILE_CMD_H

#include <stdio.h>

#include "tools/pprof.h"
#include "tools/replay_cmd.h"
#include "tools/stat_acct.h"

/* A command's report (0, or -1 when out of memory) and profile builder (0,
 * or -1 when out of memory with p freed); name is the trace's. */
typedef int (*tool_profile_report_fn)(FILE *out, const struct tool_stat *s, const char *name, unsigned top);
typedef int (*tool_profile_build_fn)(const struct tool_stat *s, const char *name, struct tool_pprof *p);

/* tool_profile_save writes the profile p that a builder made (built: its
 * return value) gzipped to path, and frees it; on a builder's failure it
 * says "out of memory" instead. cmd is the command's name ("heap"). 0, or
 * -1 after a line on stderr. */
int tool_profile_save(const char *cmd, const char *path, struct tool_pprof *p, int built);

/* tool_profile_cmd_main is the whole command: parses the command line
 * (args; top: the default -top), loads the trace as `gotrace stat` does,
 * prints the report, writes the profile when -pprof asks, and reports a
 * truncated or malformed trace. Returns the exit status. */
int tool_profile_cmd_main(const struct tool_replay_cmd *args, unsigned top, tool_profile_report_fn report,
			  tool_profile_build_fn build, int argc, char **argv);

#endif
