/* stat_load.h — a trace read into stat's accounting (stat_acct.h) for a
 * command that reports from it (gotrace stat, gotrace mutex): the
 * accounting made, the trace read and closed, the "no complete generation"
 * case said in one line. */
#ifndef TOOLS_STAT_LOAD_H
#define TOOLS_STAT_LOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/stat_acct.h"

/* tool_stat_load reads f (closed here unless it is stdin), the trace named
 * name, for command cmd. Returns the accounting, or NULL with *rc the
 * command's exit status (1: out of memory; the status of a trace with no
 * complete generation, already said). *failed: the trace is damaged after
 * its complete generations (the accounting's err says how). */
struct tool_stat *tool_stat_load(const char *cmd, FILE *f, const char *name, bool *failed, int *rc);

/* tool_stat_drop frees what tool_stat_load returned. */
void tool_stat_drop(struct tool_stat *s);

#endif
