/* mutex_report.h — what `gotrace mutex` and the lock holders' section of
 * `gotrace stat` print from the mutex profile (tools/mutex_acct.h, kept in
 * struct tool_stat): the releasing functions by delay (flat: released there;
 * cum: there or in a function it called), the releasing sites, and the
 * holder threads with the delay they caused; and the profile as pprof
 * (mutex_pprof.c). Lists are cut to `top` entries (0: all). */
#ifndef TOOLS_MUTEX_REPORT_H
#define TOOLS_MUTEX_REPORT_H

#include <stdio.h>

#include "tools/pprof.h"
#include "tools/stat_acct.h"

/* One row of a ranked list: a holder (thread index or TOOL_MUTEX_NONE), a
 * releasing site, or a function (flat and cum). */
struct tool_mrow {
	uint64_t key;
	uint32_t frame;       /* functions: a frame of the function (its name) */
	uint64_t count, delay; /* delay: cum for functions */
	uint64_t flat;
};

struct tool_mutex_view {
	struct tool_mrow *holders, *sites, *funcs;
	size_t nholders, nsites, nfuncs;
};

/* tool_mutex_view_build ranks the profile of s (by delay, most first).
 * Returns 0, or -1 when out of memory. tool_mutex_view_free releases it. */
int tool_mutex_view_build(struct tool_mutex_view *v, const struct tool_stat *s);
void tool_mutex_view_free(struct tool_mutex_view *v);

/* tool_mutex_holder_name writes "G<goid> <label> (<start function>)" for a
 * holder row's key (a thread index), or "(unknown)". */
const char *tool_mutex_holder_name(const struct tool_stat *s, uint64_t key, char *buf, size_t len);

/* tool_mutex_report prints `gotrace mutex`'s text. Returns 0 or -1 (out of
 * memory). */
int tool_mutex_report(FILE *out, const struct tool_stat *s, const char *name, unsigned top);

/* tool_mutex_stat_text prints the "Lock holders" section of `gotrace stat`
 * (nothing when the trace has no lock wait); tool_mutex_stat_json prints its
 * JSON member "lock_holders" (no trailing comma). 0 or -1 (out of memory). */
int tool_mutex_stat_text(FILE *out, const struct tool_stat *s, unsigned top);
int tool_mutex_stat_json(FILE *out, const struct tool_stat *s, unsigned top);

/* tool_mutex_pprof builds the mutex profile: sample types contentions/count
 * and delay/nanoseconds, period type contentions/count, period 1 (as Go's
 * mutex profile), one sample per (releasing stack, holder) with the label
 * "holder" (the holder's name, tool_mutex_holder_name); name is the trace's
 * (the mapping's file name). Returns 0, or -1 when out of memory (p freed). */
int tool_mutex_pprof(const struct tool_stat *s, const char *name, struct tool_pprof *p);

#endif
