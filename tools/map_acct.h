/* map_acct.h — the mapped memory of `gotrace heap` and `gotrace stat`:
 * replays the AllocFree span and stack events of a trace (encoder/wire.h,
 * above GT_SPAN_PAGE; docs/heap.md, "Mapped memory in gotrace heap") into
 * the live mappings, their bytes by class, and per mapping site.
 *
 * It rides on the heap accounting (tools/heap_acct.h): tool_map_attach
 * sets the heap's feed hook, which hands it every batch before the heap
 * acts on it. So it reads the generation's stack table from the heap's
 * (h->tables, still that generation's when it ends here), interns its
 * sites into the heap's site table (h->sites; a mapping site has no heap
 * counters) and reads payloads again from the heap's file (h->replay.fd).
 * The heap's replay checks every event batch; it shows the span and stack
 * events to this accounting as it goes (its observer, tools/replay.h), so
 * no batch is parsed twice: the batches that hold them are kept in this
 * accounting's own replay, read again when the generation ends.
 *
 * Events: SpanAlloc(id, npages, kindclass) maps id·page .. +npages·page,
 * class and site from kindclass (GT_SPAN_KC_CLASS/SITE; an even kindclass,
 * a Go heap span, is class "other" without a site); SpanFree(id) unmaps
 * it; GoroutineStackAlloc/Free(id, order) a thread's stack (counted as
 * thread stacks; their bytes are their spans', class thread stack). The
 * page is the info batch's page size (GT_SPAN_PAGE until one is seen).
 *
 * The snapshot: a generation with Span events restates the live mappings
 * at its start (GoroutineStack events the live stacks, each kind on its
 * own). When the generation ends, its Span events are collected first and
 * reconciled with the mappings known before any of its other events: a
 * span not known is added, a known one missing is gone, a changed npages
 * is a resize (grown bytes count as mapped, shrunk as unmapped), a changed
 * class or site moves it. Then its SpanAlloc/SpanFree/GoroutineStackAlloc/
 * Free events are replayed merged by time. A change made in the generation
 * before the snapshot was read is then in both: a SpanAlloc of a span the
 * snapshot just added with the same npages restates it (not counted twice),
 * a SpanFree of a span the reconcile just removed is expected. A
 * generation without Span events changes nothing by itself. The first
 * snapshot's additions were mapped before the trace (at start); later
 * additions are mappings made by calls the library does not see (counted
 * as mapped). Changes are at generation granularity there.
 *
 * Accounting rules otherwise as the heap's: a SpanAlloc over a live span
 * replaces it (its free was missed), a SpanFree of an id not live is
 * ignored (counted), events of a generation that did not end are not
 * counted. Memory: the live spans and stacks, the rows (site × class),
 * one generation's snapshot. */
#ifndef TOOLS_MAP_ACCT_H
#define TOOLS_MAP_ACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "encoder/reader.h"
#include "encoder/wire.h"
#include "tools/heap_acct.h"
#include "tools/heap_map.h"
#include "tools/replay.h"

/* The classes the report shows: GT_SPAN_* (0..4), then "other" (a class
 * number the tool does not know, or a Go heap span). */
#define TOOL_MAP_OTHER GT_SPAN_CLASSES
#define TOOL_MAP_CLASSES (GT_SPAN_CLASSES + 1)
#define TOOL_MAP_ERR 256

/* tool_map_class_name is a class's name in reports ("anonymous", "malloc
 * arena", "brk heap", "thread stack", "unattributed", "other"). */
const char *tool_map_class_name(unsigned cls);

/* A row: the mappings of one site and class. */
struct tool_map_row {
	uint32_t site;        /* tool_sites site of the heap's table */
	uint8_t cls;
	uint64_t live_bytes, live_spans;     /* at the end */
	uint64_t mapped_bytes, mapped_spans; /* during the trace (allocations, growth, appearances) */
	uint64_t start_bytes, start_spans;   /* live at the first snapshot (before the trace) */
	uint64_t unmapped_bytes;
};

struct tool_map_class {
	uint64_t live_bytes, live_spans;
	uint64_t peak_bytes, peak_ts, peak_freq; /* its own largest figure, and when */
	uint64_t at_peak_bytes;                 /* its bytes at the total's peak */
	uint64_t start_bytes;
	uint64_t mapped_bytes, unmapped_bytes;
};

/* A span of the generation's snapshot. */
struct tool_map_snap {
	uint64_t id, npages, kindclass;
};

struct tool_map {
	struct tool_heap *h;         /* whose tables, sites and file it uses */
	struct tool_hmap live;       /* span id -> val = npages, aux = row */
	struct tool_hmap stacks;     /* stack id -> val = order */
	struct tool_map_row *rows;
	size_t nrows, cap_rows;
	struct tool_hmap row_index;  /* site << 3 | cls -> row */

	/* The generation being read. */
	uint64_t gen;
	bool gen_open;
	uint64_t g_page;             /* its info batch's page size, 0 until seen */
	struct tool_replay replay;   /* its batches with span or stack events (kept, not checked) */
	bool g_kept;                 /* a batch was kept, the one at g_kept_at */
	uint64_t g_kept_at;
	struct tool_map_snap *snap;  /* its Span events */
	size_t nsnap, cap_snap;
	struct tool_hmap g_snap;     /* id -> index in snap */
	struct tool_hmap g_stk;      /* GoroutineStack id -> order */
	bool g_span_snap, g_stack_snap;
	uint64_t g_snap_ts;          /* its first snapshot event */
	struct tool_hmap g_added, g_gone; /* ids its reconcile added / removed */

	/* Carried. */
	uint64_t page;               /* bytes per page (GT_SPAN_PAGE until an info batch) */

	/* Results over the complete generations. */
	uint64_t gens;
	uint64_t span_events;        /* SpanAlloc + SpanFree */
	uint64_t snapshot_spans;     /* Span events */
	uint64_t stack_events;       /* GoroutineStack, -Alloc, -Free */
	uint64_t snapshots;          /* generations with a Span snapshot */
	bool have_start;             /* the first generation had a snapshot */
	uint64_t start_bytes;        /* mapped after it */
	struct tool_map_class cls[TOOL_MAP_CLASSES];
	uint64_t live_bytes, live_spans;
	uint64_t peak_bytes, peak_ts, peak_freq;
	uint64_t mapped_bytes, unmapped_bytes;
	uint64_t live_stacks, peak_stacks;
	uint64_t appeared;           /* spans later snapshots added (made unseen) */
	uint64_t vanished, resized;  /* known spans snapshots removed / resized */
	uint64_t replaced, unknown_frees;

	bool failed;                 /* results cover the generations before err */
	char err[TOOL_MAP_ERR];
};

/* tool_map_init prepares an empty accounting; tool_map_attach makes the
 * heap accounting h feed it (h->batch_hook). 0, or -1 out of memory.
 * tool_map_release releases it (not h). */
int tool_map_init(struct tool_map *m);
void tool_map_attach(struct tool_map *m, struct tool_heap *h);
void tool_map_release(struct tool_map *m);

/* tool_map_batch is the hook: one batch (b NULL: the clean end of the
 * input). An error sets m->failed and m->err; later batches are ignored. */
void tool_map_batch(void *m, const struct gt_rbatch *b);

/* tool_map_any says whether the trace had span or stack events at all
 * (the reports say nothing of mapped memory otherwise). */
bool tool_map_any(const struct tool_map *m);

#endif
