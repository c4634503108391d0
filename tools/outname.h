/* outname.h — the names libgotrace.so gives trace files, read back from a
 * directory listing (`gotrace run` uses them to find every file a run wrote).
 *
 * From GOTRACE_OUT = DIR/BASE the library writes only into DIR, and only
 * these names (README "Processes started by a traced program",
 * core/sink.c create, core/flight.c):
 *
 *   BASE with %p:    E(pid)           the pid's first image
 *                    E(pid).k         its k-th later image that found the
 *                                     name taken (k >= 1)
 *   BASE without %p: BASE             the first image of the run
 *                    BASE.pid         a later process, or a later image
 *                    BASE.pid.k       the same when BASE.pid was taken
 *   either:          NAME.snapN       flight-recorder snapshot N (N >= 1)
 *                                     of the image that writes NAME
 *
 * E(pid) is BASE with every %p replaced by the pid's decimal digits and %%
 * by %. Numbers are decimal without a leading zero. */
#ifndef TOOLS_OUTNAME_H
#define TOOLS_OUTNAME_H

#include <stddef.h>

/* What a file name says about the process image that wrote it. */
struct tool_outname {
	long pid;       /* from %p or BASE.pid; 0 when the name does not say (BASE itself) */
	unsigned image; /* order of the names one pid's images take: E(pid) or BASE 0,
			 * E(pid).k k; BASE.pid 1, BASE.pid.k 1 + k */
	unsigned snap;  /* N for NAME.snapN, else 0 */
};

/* tool_outname_match returns 1 when name (a file name, no '/') is one the
 * library can produce from base (the last component of GOTRACE_OUT, '%p'
 * and '%%' unexpanded), filling *m; 0 otherwise. */
int tool_outname_match(const char *base, const char *name, struct tool_outname *m);

/* tool_outname_split splits pattern at its last '/': the directory with %p
 * expanded to pid and %% to % goes to dir ("." when there is none; "/" for
 * the root), and *base points at the last component inside pattern.
 * Returns 0; 1 when the directory itself holds %p (then dir is only the
 * directory of `pid`'s files); -1 when dir does not fit or base is empty. */
int tool_outname_split(const char *pattern, long pid, char *dir, size_t dirlen, const char **base);

#endif
