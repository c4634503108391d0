/* cpu_report.h — what `gotrace cpu` and the "CPU samples" section of
 * `gotrace stat` print from the CPU samples (tools/cpu_acct.h, kept in
 * struct tool_stat), and the samples as a pprof CPU profile (cpu_pprof.c).
 *
 * Functions are ranked as `go tool pprof -top` ranks them: by flat samples
 * (the function was the leaf of the sampled stack), then cum (it was on
 * the stack; counted once per stack). Thread groups are the threads that
 * share a start function, as `gotrace stat` groups them; samples with no
 * known thread form a group of their own. Lists are cut to `top` entries
 * (0: all). */
#ifndef TOOLS_CPU_REPORT_H
#define TOOLS_CPU_REPORT_H

#include <stdio.h>

#include "tools/pprof.h"
#include "tools/stat_acct.h"

/* Functions of the stat section's groups. */
#define TOOL_CPU_STAT_FUNCS 3

/* A function's samples (its key: a name string, or 1 << 32 | frame). */
struct tool_cfunc {
	uint64_t key;
	uint32_t frame;  /* a frame of the function (its name) */
	uint64_t flat, cum;
};

/* A thread group: the key of its start function (TOOL_CPU_GROUP_NONE: no
 * thread; UINT64_MAX: threads of unknown start), its samples and functions. */
#define TOOL_CPU_GROUP_NONE (UINT64_MAX - 1)
struct tool_cgroup {
	uint64_t key;
	uint32_t first;   /* a thread of the group (its name), TOOL_CPU_NONE for no thread */
	uint32_t threads; /* threads of the group with samples */
	uint64_t samples;
	struct tool_cfunc *funcs; /* ranked */
	size_t nfuncs;
};

/* A thread's samples (thread: index in tool_stat.th, or TOOL_CPU_NONE). */
struct tool_cthread {
	uint32_t thread;
	uint64_t samples;
};

struct tool_cpu_view {
	struct tool_cfunc *funcs;     /* all samples, ranked */
	size_t nfuncs;
	struct tool_cgroup *groups;   /* most samples first */
	size_t ngroups;
	struct tool_cthread *threads; /* most samples first */
	size_t nthreads;
};

/* tool_cpu_view_build ranks the samples of s. Returns 0, or -1 when out of
 * memory. tool_cpu_view_free releases it. */
int tool_cpu_view_build(struct tool_cpu_view *v, const struct tool_stat *s);
void tool_cpu_view_free(struct tool_cpu_view *v);

/* tool_cpu_group_name is a group's start function ("(unknown)" for threads
 * of unknown start, "(no thread)" for samples of no known thread);
 * tool_cpu_thread_name is a thread's label, or "G<goid>", or "(no thread)". */
const char *tool_cpu_group_name(const struct tool_stat *s, const struct tool_cgroup *g, char *buf, size_t len);
const char *tool_cpu_thread_name(const struct tool_stat *s, uint32_t thread, char *buf, size_t len);

/* tool_cpu_report prints `gotrace cpu`'s text. Returns 0 or -1 (out of
 * memory). */
int tool_cpu_report(FILE *out, const struct tool_stat *s, const char *name, unsigned top);

/* tool_cpu_stat_text prints the "CPU samples" section of `gotrace stat`:
 * each thread group's TOOL_CPU_STAT_FUNCS top functions (nothing when the
 * trace has no sample); tool_cpu_stat_json prints its JSON member "cpu"
 * (no trailing comma). 0 or -1 (out of memory). */
int tool_cpu_stat_text(FILE *out, const struct tool_stat *s, unsigned top);
int tool_cpu_stat_json(FILE *out, const struct tool_stat *s, unsigned top);

/* tool_cpu_pprof builds the CPU profile, as Go's: sample types
 * samples/count and cpu/nanoseconds, period type cpu/nanoseconds, period
 * 1e9 / hz; one sample per (stack, thread), labelled "thread"
 * (tool_cpu_thread_name) and "group" (tool_cpu_group_name); name is the
 * trace's (the mapping's file name). Returns 0, or -1 when out of memory
 * (p freed). */
int tool_cpu_pprof(const struct tool_stat *s, const char *name, struct tool_pprof *p);

#endif
