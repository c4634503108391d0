/* cpu_acct.h — the CPU profile samples of a trace (`gotrace cpu`, and the
 * "CPU samples" section of `gotrace stat`).
 *
 * A generation's CPUSamples batches (format §2.8: CPUSample(time, m, p, g,
 * stack), absolute time) are kept raw until the generation ends, since the
 * stacks they name are defined by the generation's Stack batches, which may
 * come later; then (tool_stat_cpu_gen, after the generation's events were
 * replayed) each sample is charged to its stack's site (tools/heap_sites.h)
 * and its goroutine (struct tool_sthread, looked up by g; a sample whose g
 * is 0 or unknown belongs to no thread). A generation that does not end is
 * not counted.
 *
 * The sampling rate. Go's traces do not carry it: Go samples at 100 Hz
 * unless the program changed it. libgotrace.so states its rate as a field
 * of its process identity (tools/ident.h), a string of every generation:
 *
 *     gotrace.process pid=<pid> ppid=<ppid> cpu_hz=<N> cmd=<...>
 *
 * (N decimal, 1 to 1000000; the field may stand anywhere before cmd=). The
 * first statement read is used; without one the rate is taken to be
 * 100 Hz, and the reports say so. Each sample stands for 1e9 / hz ns of
 * CPU time.
 *
 * Memory: one entry per (site, thread) sampled, plus one generation's raw
 * samples (24 bytes each). */
#ifndef TOOLS_CPU_ACCT_H
#define TOOLS_CPU_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "encoder/reader.h"
#include "tools/heap_map.h"

#define TOOL_CPU_NONE UINT32_MAX
#define TOOL_CPU_DEFAULT_HZ 100 /* Go's rate (runtime/pprof), assumed when the trace states none */
#define TOOL_CPU_MAX_HZ 1000000
#define TOOL_CPU_HZ_FIELD "cpu_hz="

/* The samples charged to one (site, thread). */
struct tool_csample {
	uint32_t site;   /* tool_sites site of the sampled stack */
	uint32_t thread; /* index in tool_stat.th, or TOOL_CPU_NONE */
	uint64_t count;
};

struct tool_cpu_raw {
	uint64_t g, m, stack;
};

struct tool_cpu {
	struct tool_csample *c;
	size_t n, cap;
	struct tool_hmap index;   /* site << 32 | thread -> index in c */
	uint64_t samples;         /* over the complete generations */
	uint64_t no_thread;       /* of them, with no known goroutine */
	uint64_t hz;              /* the rate the trace states, 0: none */
	/* The generation being read. */
	struct tool_cpu_raw *raw;
	size_t nraw, cap_raw;
};

void tool_cpu_init(struct tool_cpu *c);
void tool_cpu_free(struct tool_cpu *c);

/* tool_cpu_batch keeps a CPUSamples batch's samples for the end of the
 * generation. Returns 0, -1 with the reader's message in err, or -2 when
 * out of memory. tool_cpu_clear_gen forgets them (a generation dropped). */
int tool_cpu_batch(struct tool_cpu *c, const struct gt_rbatch *b, char *err, size_t errsz);
void tool_cpu_clear_gen(struct tool_cpu *c);

/* tool_cpu_add charges n samples to (site, thread). 0, or -1 when out of
 * memory. */
int tool_cpu_add(struct tool_cpu *c, uint32_t site, uint32_t thread, uint64_t n);

/* tool_cpu_parse_hz returns 1 when the len bytes at s (not NUL-terminated)
 * are a process identity with a valid cpu_hz field before its cmd=,
 * setting *hz; 0 otherwise. */
int tool_cpu_parse_hz(const void *s, size_t len, uint64_t *hz);

/* tool_cpu_rate is the rate used (the stated one, else 100); tool_cpu_period
 * the CPU time one sample stands for, in ns. */
static inline uint64_t tool_cpu_rate(const struct tool_cpu *c)
{
	return c->hz ? c->hz : TOOL_CPU_DEFAULT_HZ;
}
static inline uint64_t tool_cpu_period(const struct tool_cpu *c)
{
	return 1000000000u / tool_cpu_rate(c);
}

#endif
