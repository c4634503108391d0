/* view.h — open a trace in Go's viewer, or one of its profiles in pprof's
 * (`gotrace view`, `gotrace run --view`). */
#ifndef TOOLS_VIEW_H
#define TOOLS_VIEW_H

/* tool_view opens trace in `go tool trace` (profile NULL) or the profile
 * ("sync", "net", "syscall", "sched") in `go tool pprof -http`, with the
 * newest Go that reads it; http, if not NULL, is the address to serve on.
 * It returns when the viewer ends, with the command's exit status. */
int tool_view(const char *trace, const char *profile, const char *http);

#endif
