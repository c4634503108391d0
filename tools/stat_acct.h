/* stat_acct.h — the accounting of `gotrace stat`: where each thread's time
 * went (running, runnable, in syscalls, blocked by reason), the wait and
 * syscall sites, and the trace's totals.
 *
 * Input is fed batch by batch from encoder/reader (tool_stat_batch), or a
 * whole file at once (tool_stat_read); stat_read.c keeps each generation's
 * string and stack tables (tools/gen_tables.h) and event batches
 * (tools/replay.h). When the generation ends, the events of all threads are
 * replayed merged by time (each M's events in file order, the earliest head
 * first, ties to the M seen first) through the per-goroutine state machine
 * below (stat_acct.c); then the generation's tables are dropped. A
 * generation that does not end (a truncated or malformed trace) is not
 * counted.
 *
 * State machine (one goroutine = one traced thread; the G an event applies
 * to is the one running on the event's M unless the event names it):
 *
 *   GoCreate                → Runnable        GoCreateSyscall → Syscall
 *   GoCreateBlocked         → Waiting ("")    GoStart(g)      → Running
 *   GoBlock(reason, stack)  → Waiting(reason, site = stack)
 *   GoUnblock(g)            → Runnable        GoStop          → Runnable
 *   GoSyscallBegin(stack)   → Syscall(site = stack)
 *   GoSyscallEnd            → Running         GoSyscallEndBlocked → Runnable
 *   GoDestroy(Syscall)      → dead            GoSwitch(g): current → Waiting,
 *   GoStatus(Stack)(g, s)   → s, only if it differs from the known state
 *                             (a re-statement at a generation start costs
 *                             and counts nothing)
 *
 * Each state's time is added to the goroutine when it leaves the state, so
 * a goroutine's figures always sum to its lifetime in the trace (from its
 * first event to GoDestroy, or to the trace's last event). A wait or syscall
 * is counted at its site when it ends (or at the end of the trace).
 * Timestamps are converted to nanoseconds with the generation's frequency.
 *
 * Memory: goroutines, Ms, reasons and sites (bounded by the program's
 * threads and call sites, not by the trace's length), one generation's
 * tables and batch list, and per M one batch payload during the replay. */
#ifndef TOOLS_STAT_ACCT_H
#define TOOLS_STAT_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "encoder/reader.h"
#include "tools/cpu_acct.h"
#include "tools/gen_tables.h"
#include "tools/heap_acct.h"
#include "tools/heap_map.h"
#include "tools/heap_sites.h"
#include "tools/ident.h"
#include "tools/map_acct.h"
#include "tools/mutex_acct.h"
#include "tools/replay.h"

#define TOOL_STAT_ERR 256
/* Distinct block reasons kept apart; later ones share the last slot. */
#define TOOL_STAT_REASONS 32
#define TOOL_STAT_NONE UINT32_MAX

enum tool_sstate {
	TOOL_S_RUNNABLE = 1,
	TOOL_S_RUNNING,
	TOOL_S_SYSCALL,
	TOOL_S_WAITING,
	TOOL_S_DEAD,
};

/* A goroutine (thread). Durations in nanoseconds. */
struct tool_sthread {
	uint64_t g;
	uint64_t m;          /* the M (thread id) it last ran on, GT_NO_THREAD if never */
	uint32_t func;       /* frame (tool_sites) of its start function, or TOOL_STAT_NONE */
	uint32_t label;      /* string (tool_sites) of its latest GoLabel, or 0 */
	uint8_t state;       /* enum tool_sstate */
	uint8_t reason;      /* reason slot while Waiting */
	bool from_create;    /* func came from its GoCreate's new stack */
	uint32_t site;       /* site of the wait or syscall in progress, or TOOL_STAT_NONE */
	uint64_t since;      /* when it entered its state (never decreases) */
	uint64_t first, end; /* first event; GoDestroy (or the trace's end after tool_stat_finish) */
	uint64_t running, runnable, syscall;
	uint64_t blocked[TOOL_STAT_REASONS];
	uint64_t nblocks, nsyscalls; /* waits and syscalls entered */
	/* Lock holders (tools/mutex_acct.h): the goroutine the last
	 * gotrace.holder log on this goroutine named (0: none), taken by its
	 * next GoBlock; the one named for the lock wait in progress. */
	uint64_t log_holder, wait_holder;
	uint64_t log_holder_stack; /* the log's stack: only the GoBlock at that stack takes it */
	bool lock_wait;      /* Waiting on sync.mutex or sync.rwlock */
};

/* A wait site (reason + stack of the GoBlock) or a syscall site (stack of
 * the GoSyscallBegin; reason TOOL_STAT_NONE). */
struct tool_ssite {
	uint32_t site;       /* tool_sites site */
	uint32_t reason;     /* reason slot, or TOOL_STAT_NONE for syscalls */
	uint64_t count, total, max; /* ns */
};

struct tool_stat {
	struct tool_sites sites;      /* strings, frames and stacks, interned by content */

	/* Goroutines, Ms, reasons, sites. */
	struct tool_sthread *th;
	size_t nth, cap_th;
	struct tool_hmap th_index;    /* g -> index in th */
	struct tool_hmap m_cur;       /* m -> 1 + index of the G running on it (0: none) */
	uint32_t reason[TOOL_STAT_REASONS]; /* slot -> string; the last slot also takes the overflow */
	size_t nreasons;
	struct tool_ssite *waits, *syscalls;
	size_t nwaits, cap_waits, nsyscalls, cap_syscalls;
	struct tool_hmap wait_index;  /* reason << 32 | site -> index in waits */
	struct tool_hmap syscall_index; /* site -> index in syscalls */

	/* The generation being read. */
	uint64_t gen;
	bool gen_open;
	uint64_t g_freq;              /* 0 until its sync batch */
	struct tool_gen_tables tables; /* its strings and stacks */
	struct tool_replay replay;    /* its event batches; also where they are read again */

	/* Carried from generation to generation. */
	int version;                  /* trace format (22, 23, 25, 26), 0 unknown */
	uint64_t freq;                /* latest frequency (ticks per second) */
	bool finished;

	/* Results over the complete generations; times in ns of the trace clock. */
	uint64_t gens, first_gen, last_gen;
	uint64_t events;
	bool have_time;
	uint64_t t_first, t_last;     /* first and last event */
	uint64_t heap_events;         /* HeapObjectAlloc/Free */
	bool have_heap_metric;        /* HeapAlloc seen */
	uint64_t metric_peak, metric_peak_at; /* its largest value, and when */
	/* The heap peak: from the heap object events, replayed by `gotrace
	 * heap`'s own accounting (heap, fed every batch), so the two commands
	 * print the same peak; from the HeapAlloc metric when the trace has
	 * no object events (or their replay failed). */
	struct tool_heap *heap;       /* NULL: out of memory */
	struct tool_map *map;         /* mapped memory, fed by heap (tools/map_acct.h); NULL: none */
	bool heap_failed;
	bool have_heap_peak;
	bool heap_peak_from_events;
	uint64_t heap_peak, heap_peak_at;
	uint64_t heap_sample_bytes;   /* heap events sampled with this mean (tools/heap_sample.h); 0: all recorded */
	char heap_note[400];          /* why no heap event was recorded (tools/heap_sample.h), or "" */
	uint64_t anomalies;           /* events that fit no goroutine's state (ignored) */
	bool have_ident;              /* a gotrace.process string was read (tools/ident.h) */
	struct tool_ident ident;      /* the first one: the process that wrote the trace */

	/* The mutex profile (tools/mutex_acct.h), and the strings it looks
	 * for (tool_sites indices, interned at init). */
	struct tool_mutex mutex;
	uint32_t str_mutex, str_rwlock, str_holder, str_wakeup;

	/* The CPU profile samples (tools/cpu_acct.h). */
	struct tool_cpu cpu;

	char err[TOOL_STAT_ERR];
};

/* The input (stat_read.c). */

/* tool_stat_init prepares an empty accounting (fed without a file).
 * Returns 0, or -1 when out of memory. tool_stat_free releases it. */
int tool_stat_init(struct tool_stat *s);
void tool_stat_free(struct tool_stat *s);

/* tool_stat_batch feeds one batch from gt_reader_next. A batch of a new
 * generation, or EndOfGeneration, ends the open one first. Returns 0, or
 * -1 with s->err; the results then cover the complete generations. */
int tool_stat_batch(struct tool_stat *s, const struct gt_rbatch *b);

/* tool_stat_end ends the open generation at a clean end of the input and
 * finishes. Returns 0 or -1 with s->err. */
int tool_stat_end(struct tool_stat *s);

/* tool_stat_read reads a whole trace from f and finishes, also after an
 * error. Returns 0, or -1 with s->err (the reader's message, with the
 * offset). */
int tool_stat_read(struct tool_stat *s, FILE *f);

/* tool_stat_cpu_gen charges the ending generation's CPU samples to their
 * sites and goroutines (cpu_acct.c), after its events were replayed and
 * before its tables are dropped. Returns 0, or -1 with s->err. */
int tool_stat_cpu_gen(struct tool_stat *s);

/* The state machine (stat_acct.c). */

/* tool_stat_event applies one event of thread m (replay order) to the
 * goroutines. Returns 0, or -1 with s->err (out of memory). */
int tool_stat_event(struct tool_stat *s, uint64_t m, const struct gt_event *ev);

/* tool_stat_finish closes the states still open at the trace's last event
 * (once; later calls do nothing). Feeding more batches after it is an
 * error. */
void tool_stat_finish(struct tool_stat *s);

/* tool_stat_ns converts a trace time of the current generation to ns. */
uint64_t tool_stat_ns(const struct tool_stat *s, uint64_t ts);

/* tool_stat_oom sets s->err to an out-of-memory message and returns -1. */
int tool_stat_oom(struct tool_stat *s);

/* tool_stat_blocked returns a thread's time blocked for every reason except
 * the one called "sleep" (sleep: its time in that reason). */
uint64_t tool_stat_blocked(const struct tool_stat *s, const struct tool_sthread *t, uint64_t *sleep);

/* tool_stat_reason_name returns the name of a reason slot ("" for waits of
 * unknown reason; the last slot, once shared, is "(other)"). */
const char *tool_stat_reason_name(const struct tool_stat *s, uint32_t slot);

#endif
