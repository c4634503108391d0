/* heap_acct.h — heap accounting of `gotrace heap`: replays the AllocFree
 * events of a trace (docs/heap.md) into live objects and per-site counters.
 *
 * Input is fed batch by batch from encoder/reader (tool_heap_batch), or a
 * whole file at once (tool_heap_read). Per generation the string and stack
 * tables (tools/gen_tables.h) and AllocFree batches (info, types) are kept,
 * and each event batch is checked and remembered by its place in the file
 * (tools/replay.h). When the generation ends, its heap events are replayed
 * in time order, merging the threads' batches as Go's reader does (each
 * thread's events in file order, the earliest head first): objects
 * allocated by one thread and freed by another pair up whatever the order
 * of the batches in the file, the peak is exact, and tables may come before
 * or after the events. Then the generation's tables are dropped.
 *
 * Memory: the live objects, the sites, one generation's tables, and per
 * thread one batch (payloads are read again with pread when the trace is a
 * regular file; otherwise — a pipe, or batches fed by tool_heap_batch — the
 * payloads of the generation's event batches that hold heap events are kept
 * until it ends).
 *
 * Sampled traces (tools/heap_sample.h): a generation whose string table
 * holds `gotrace.heap sample_bytes=M` was recorded with mean M; one without
 * it keeps the mean of the generation before (the first: every allocation
 * recorded, M = 0). Each recorded allocation of s bytes counts w = 1/p(s)
 * objects and s·w bytes in the estimates (`est`, the peak), with the mean
 * in force when it was allocated (the live object keeps it as a tag), so a
 * free takes back exactly what its allocation added. The recorded counts
 * (alloc_objects, ...) stay the counts of events.
 *
 * The live-heap snapshot (docs/heap.md, "The live-heap snapshot"): a
 * HeapObject restates an object live at its generation's start.
 *  - In the first generation read (a flight-recorder snapshot, a trace
 *    whose first generations are missing), an object not known is live
 *    from before the window: it counts as live (at its site, with its
 *    size), not as allocated (before_*; per site snap_*).
 *  - In a later generation, an object not known was allocated where no
 *    event was read (a lost generation): added the same way (snap_added).
 *    A known object that the generation's snapshot does not restate, and
 *    that was not allocated in that generation, was freed unseen: it
 *    counts as freed at the generation's end (snap_gone). A generation
 *    without HeapObject events reconciles nothing.
 *  - An allocation of an object that this generation's snapshot just added
 *    (allocated between the switch and the snapshot's copy) is that object:
 *    the snapshot's addition is taken back, the allocation counts.
 *
 * Accounting rules: an object is keyed by its address (min_addr + id *
 * align, from the generation's info batch; 0 and 8 until one is seen); its
 * size and site come from its type in the generation's type table (type 0
 * or an unknown type: size 0, the site without frames). A free of an
 * address not live is ignored; an allocation at an address still live
 * replaces the old object (counted as freed: its free was missed). Events
 * of a generation that did not end (a truncated or malformed trace) are
 * not counted. */
#ifndef TOOLS_HEAP_ACCT_H
#define TOOLS_HEAP_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "encoder/reader.h"
#include "tools/gen_tables.h"
#include "tools/heap_map.h"
#include "tools/heap_sample.h"
#include "tools/heap_sites.h"
#include "tools/replay.h"

#define TOOL_HEAP_ERR 256

/* A type of the generation's AllocFree type table. */
struct tool_hgen_type {
	uint64_t stack;
	uint64_t size;
};

struct tool_heap {
	struct tool_sites sites;
	struct tool_hmap live;  /* address -> val = size, aux = site, used = 1 + its mean's index in means,
	                         * | TOOL_HEAP_SNAP_* flags (heap_acct.c) */

	/* The generation being read. */
	uint64_t gen;
	bool gen_open;
	uint64_t g_freq;        /* 0 until its sync batch */
	uint64_t g_min_ts;      /* smallest base time of its event/sync batches */
	bool g_info;            /* an info batch was seen in it */
	uint64_t g_min_addr, g_align;
	bool g_sample_set;      /* its string table states the sampling mean */
	uint64_t g_sample_bytes;
	uint32_t g_mean;        /* index in means of the mean in force (replay) */
	uint64_t g_snap_events; /* its HeapObject events (replay) */
	struct tool_gen_tables tables; /* its strings and stacks */
	struct tool_hmap g_types;      /* type id -> index in g_typ */
	struct tool_hgen_type *g_typ;
	size_t g_ntyp, g_cap_typ;
	struct tool_replay replay;     /* its batches with heap events; also where they are read again */

	/* Carried from generation to generation. */
	int version;            /* trace format (22, 23, 25, 26) */
	char note[400];         /* why no heap event was recorded (heap_sample.h), or "" */
	uint64_t freq;          /* latest trace clock frequency (ticks/s) */
	uint64_t min_addr, align;
	bool have_t0;
	uint64_t t0;            /* trace start (ticks) */
	uint64_t wall_ns;       /* wall clock at the first clock snapshot, 0 if none */
	uint64_t wall_ts;       /* trace time of that snapshot */
	uint64_t sample_bytes;  /* sampling mean in force (0: every allocation) */
	uint64_t *means;        /* the distinct means of the generations, means[0] = 0 */
	size_t nmeans, cap_means;

	/* Results over the complete generations. */
	uint64_t gens;          /* complete generations */
	uint64_t first_gen, last_gen;
	uint64_t events;        /* heap object events accounted (alloc + free) */
	double duration;        /* seconds from t0 to the latest event */
	/* Recorded: counts of the events. */
	uint64_t alloc_objects, alloc_bytes;
	uint64_t free_objects, free_bytes;
	uint64_t live_objects, live_bytes;
	/* Estimated (= recorded when every allocation was recorded). */
	struct tool_hest est;
	/* The live figure the peak is of: est.live_bytes with each object's
	 * s·w rounded to an integer as the library's HeapAlloc metric adds it
	 * (tools/heap_sample.h, tool_heap_sample_bytes); = live_bytes when
	 * every allocation is recorded. */
	uint64_t live_peak_figure;
	double peak_bytes, peak_objects; /* of live_peak_figure, and est.live_objects then */
	double peak_time;       /* seconds from the trace start */
	uint64_t peak_ts;       /* the trace time of the peak's event */
	uint64_t sampled_gens;  /* generations replayed with a mean > 0 */
	uint64_t sample_min, sample_max; /* their means (valid if sampled_gens) */
	uint64_t replaced;      /* allocations over a live object */
	uint64_t unknown_frees; /* frees of addresses not live */
	uint64_t untyped;       /* allocations without a known type */
	/* The live-heap snapshots (see above). */
	uint64_t snap_gens;     /* generations with HeapObject events */
	uint64_t snap_events;
	uint64_t before_objects, before_bytes; /* live at the window's start, recorded */
	double before_est_objects, before_est_bytes; /* and estimated */
	uint64_t snap_added;    /* added by a later generation's snapshot */
	uint64_t snap_gone;     /* known objects a later snapshot did not restate */
	bool have_metric;       /* HeapAlloc seen */
	uint64_t metric_max;
	double metric_time;

	/* The feed hook (tools/map_acct.h, mapped memory): sees every batch
	 * first thing in tool_heap_batch, and NULL first thing in
	 * tool_heap_end, before this accounting acts on it, so while it runs
	 * the tables above still are those of the generation that ends. */
	void (*batch_hook)(void *ctx, const struct gt_rbatch *b);
	void *hook_ctx;

	char err[TOOL_HEAP_ERR];
};

/* tool_heap_init prepares an empty accounting (fed without a file).
 * Returns 0, or -1 when out of memory. tool_heap_release releases it. */
int tool_heap_init(struct tool_heap *h);
void tool_heap_release(struct tool_heap *h);

/* tool_heap_batch feeds one batch from gt_reader_next (version: the reader's
 * format). A batch of a new generation, or EndOfGeneration, ends the open
 * one first. Returns 0, or -1 with h->err (a malformed batch, out of
 * memory); after an error the results cover the complete generations. */
int tool_heap_batch(struct tool_heap *h, const struct gt_rbatch *b);

/* tool_heap_end ends the open generation at a clean end of the file.
 * Returns 0 or -1 with h->err. */
int tool_heap_end(struct tool_heap *h);

/* tool_heap_read reads a whole trace from f (a regular file's payloads are
 * read again with pread, others are kept per generation). Returns 0, or -1
 * with h->err (the reader's message with the offset). */
int tool_heap_read(struct tool_heap *h, FILE *f);

/* tool_heap_seconds converts a trace time to seconds since the trace start. */
double tool_heap_seconds(const struct tool_heap *h, uint64_t ts, uint64_t freq);

#endif
