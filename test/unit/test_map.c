/* test_map.c — the mapped memory of `gotrace heap` and `gotrace stat`
 * (tools/map_acct.h): span and thread stack events, the generations' Span
 * snapshots reconciled with what is known, the report, the profile and
 * stat's totals, on synthetic traces written with encoder/writer.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_heap_fixture.h"
#include "tools/heap_acct.h"
#include "tools/heap_report.h"
#include "tools/map_acct.h"
#include "tools/map_report.h"
#include "tools/stat_acct.h"
#include "tools/stat_report.h"

#define T(g) ((uint64_t)(g) * 1000000u)
#define PAGE 4096u
#define MiB (1024u * 1024u)

static uint8_t mem[1 << 20];
static struct tool_heap *heap;
static struct tool_map *map;

static void setup(void)
{
	heap = malloc(sizeof *heap);
	map = malloc(sizeof *map);
	cr_assert(heap && map);
	cr_assert_eq(tool_heap_init(heap), 0);
	cr_assert_eq(tool_map_init(map), 0);
	tool_map_attach(map, heap);
}

static void teardown(void)
{
	tool_map_release(map);
	tool_heap_release(heap);
	free(map);
	free(heap);
}

/* ---- the trace writer ---- */

/* Ids differ per generation, as they may: only the frames make a site. */
static uint64_t str_id(unsigned g, unsigned i) { return 10 * g + i; }
static uint64_t pool_stack(unsigned g) { return 100 * g + 1; }
static uint64_t thread_stack(unsigned g) { return 100 * g + 2; }

static void tables(struct hx *t, unsigned g)
{
	static const char *const names[] = { "mmap", "make_pool", "main", "pool.c", "libc.c", "pthread_create", "spawn" };
	hx_strings(t, g, str_id(g, 0), names, 7);
	struct gt_frame pool[3] = { { 0x1000, str_id(g, 0), str_id(g, 4), 10 },
				    { 0x2000, str_id(g, 1), str_id(g, 3), 12 },
				    { 0x3000, str_id(g, 2), str_id(g, 3), 40 } };
	struct gt_frame thr[3] = { { 0x1100, str_id(g, 5), str_id(g, 4), 20 },
				   { 0x2100, str_id(g, 6), str_id(g, 3), 30 },
				   { 0x3100, str_id(g, 2), str_id(g, 3), 41 } };
	hx_stack(t, g, pool_stack(g), pool, 3);
	hx_stack(t, g, thread_stack(g), thr, 3);
	hx_info(t, g, 0, 8);
}

static struct hx_ev salloc(uint64_t ts, uint64_t id, uint64_t npages, uint64_t site, unsigned cls)
{
	return (struct hx_ev){ GT_EV_SPAN_ALLOC, ts, id, npages, GT_SPAN_KINDCLASS(site, cls) };
}
static struct hx_ev sfree(uint64_t ts, uint64_t id)
{
	return (struct hx_ev){ GT_EV_SPAN_FREE, ts, id, 0, 0 };
}
static struct hx_ev span(uint64_t ts, uint64_t id, uint64_t npages, uint64_t site, unsigned cls)
{
	return (struct hx_ev){ GT_EV_SPAN, ts, id, npages, GT_SPAN_KINDCLASS(site, cls) };
}

static int read_mem(size_t len)
{
	return hx_read_heap(heap, mem, len);
}

/* row_of finds the row of a class whose first frame after the mapping call
 * is function fn ("" for the row without frames). */
static const struct tool_map_row *row_of(unsigned cls, const char *fn)
{
	const struct tool_sites *s = &heap->sites;
	for (size_t i = 0; i < map->nrows; i++) {
		const struct tool_map_row *r = &map->rows[i];
		const struct tool_hsite *t = &s->sites[r->site];
		unsigned skip = tool_map_call_frames(s, r->site);
		const char *f = t->nframes > skip ? tool_sites_str(s, s->frames[tool_sites_site_frames(s, r->site)[skip]].func) : "";
		if (r->cls == cls && strcmp(f, fn) == 0)
			return r;
	}
	return NULL;
}

static char *report_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	tool_heap_report(out, heap, "x.trace", 10);
	tool_map_report(out, map, heap, 10);
	fclose(out);
	return text;
}

/* ---- events alone ---- */

/* Generation 1: a 64 MiB pool mapped and unmapped, a 10-page arena;
 * generation 2: a thread's 1 MiB stack. No snapshot. */
static size_t events_only(int format)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, format);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	struct hx_ev g1[] = { salloc(T(1) + 10, 0x100, 16384, pool_stack(1), GT_SPAN_ANON),
			      salloc(T(1) + 20, 0x90000, 10, 0, GT_SPAN_MALLOC), sfree(T(1) + 30, 0x100) };
	hx_events(&t, 1, 1, g1, 3);
	hx_end_gen(&t);
	hx_sync(&t, 2, T(2));
	tables(&t, 2);
	struct hx_ev g2[] = { salloc(T(2) + 10, 0x300, 256, thread_stack(2), GT_SPAN_STACK),
			      { GT_EV_GOROUTINE_STACK_ALLOC, T(2) + 10, 0x300, 21, 0 } };
	hx_events(&t, 2, 2, g2, 2);
	hx_end_gen(&t);
	cr_assert(!t.full);
	return t.len;
}

static void check_events_only(void)
{
	cr_assert_eq(map->gens, 2);
	cr_assert_eq(map->span_events, 4);
	cr_assert_eq(map->stack_events, 1);
	cr_assert_eq(map->snapshots, 0);
	cr_assert(!map->have_start);
	cr_assert_eq(map->peak_bytes, 64 * MiB + 10 * PAGE);
	cr_assert_eq(map->peak_ts, T(1) + 20);
	cr_assert_eq(map->live_bytes, 10 * PAGE + 1 * MiB);
	cr_assert_eq(map->live_spans, 2);
	cr_assert_eq(map->mapped_bytes, 65 * MiB + 10 * PAGE);
	cr_assert_eq(map->unmapped_bytes, 64 * MiB);
	cr_assert_eq(map->cls[GT_SPAN_ANON].peak_bytes, 64 * MiB);
	cr_assert_eq(map->cls[GT_SPAN_ANON].live_bytes, 0);
	cr_assert_eq(map->cls[GT_SPAN_ANON].at_peak_bytes, 64 * MiB);
	cr_assert_eq(map->cls[GT_SPAN_MALLOC].live_bytes, 10 * PAGE);
	cr_assert_eq(map->cls[GT_SPAN_STACK].live_bytes, MiB);
	cr_assert_eq(map->cls[GT_SPAN_STACK].at_peak_bytes, 0);
	cr_assert_eq(map->live_stacks, 1);
	cr_assert_eq(map->unknown_frees + map->replaced, 0);
	/* Rows: the pool's site (its frames after mmap), the arena without a
	 * stack, the thread's stack at spawn. */
	const struct tool_map_row *pool = row_of(GT_SPAN_ANON, "make_pool");
	cr_assert_not_null(pool);
	cr_assert_eq(pool->mapped_bytes, 64 * MiB);
	cr_assert_eq(pool->mapped_spans, 1);
	cr_assert_eq(pool->live_bytes, 0);
	cr_assert_eq(pool->unmapped_bytes, 64 * MiB);
	const struct tool_map_row *arena = row_of(GT_SPAN_MALLOC, "");
	cr_assert_not_null(arena);
	cr_assert_eq(arena->live_bytes, 10 * PAGE);
	const struct tool_map_row *stack = row_of(GT_SPAN_STACK, "spawn");
	cr_assert_not_null(stack);
	cr_assert_eq(stack->live_bytes, MiB);
	cr_assert_eq(map->nrows, 3);
	/* The heap saw no heap event, and its sites are only the mapping sites. */
	cr_assert_eq(heap->events, 0);
}

Test(map_acct, span_events_format23, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(events_only(GT_FORMAT_23)), 0, "%s", heap->err);
	check_events_only();
}

Test(map_acct, span_events_format26, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(events_only(GT_FORMAT_26)), 0, "%s", heap->err);
	check_events_only();
}

Test(map_acct, batches_fed_one_by_one_are_kept_in_memory, .init = setup, .fini = teardown)
{
	size_t len = events_only(GT_FORMAT_26);
	struct hx t = { .buf = mem, .len = len, .cap = sizeof mem };
	FILE *f = hx_file(&t);
	struct gt_reader *rd = malloc(sizeof *rd);
	cr_assert_eq(gt_reader_init(rd, f), 0);
	struct gt_rbatch b;
	int got;
	while ((got = gt_reader_next(rd, &b)) > 0)
		cr_assert_eq(tool_heap_batch(heap, &b), 0, "%s", heap->err);
	cr_assert_eq(got, 0);
	cr_assert_eq(tool_heap_end(heap), 0);
	free(rd);
	fclose(f);
	check_events_only();
}

/* ---- snapshots ---- */

#define A 0x10
#define B 0x20
#define C 0x30
#define D 0x40
#define E 0x50

/* Generation 1 restates A (brk, 10 pages), B (unseen, 4), C (main's stack,
 * 256, and its GoroutineStack); a thread maps D (100 pages at the pool).
 * Generation 2's snapshot: A grown to 20, B gone, D, and E (8 pages,
 * unseen) new; its thread had freed B and mapped E before the snapshot
 * was read (events earlier than the snapshot's). Generation 3 has no
 * snapshot: D is freed, and an id never mapped. */
static size_t snapshots(void)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	struct hx_ev s1[] = { span(T(1) + 1, A, 10, 0, GT_SPAN_BRK), span(T(1) + 1, B, 4, 0, GT_SPAN_UNSEEN),
			      span(T(1) + 1, C, 256, 0, GT_SPAN_STACK), { GT_EV_GOROUTINE_STACK, T(1) + 1, C, 21, 0 } };
	hx_events(&t, 1, GT_SNAPSHOT_M, s1, 4);
	struct hx_ev e1[] = { salloc(T(1) + 50, D, 100, pool_stack(1), GT_SPAN_ANON) };
	hx_events(&t, 1, 1, e1, 1);
	hx_end_gen(&t);

	hx_sync(&t, 2, T(2));
	struct hx_ev e2[] = { sfree(T(2) + 1, B), salloc(T(2) + 2, E, 8, pool_stack(2), GT_SPAN_ANON) };
	hx_events(&t, 2, 1, e2, 2);
	struct hx_ev s2[] = { span(T(2) + 5, A, 20, 0, GT_SPAN_BRK), span(T(2) + 5, C, 256, 0, GT_SPAN_STACK),
			      span(T(2) + 5, D, 100, pool_stack(2), GT_SPAN_ANON),
			      span(T(2) + 5, E, 8, 0, GT_SPAN_UNSEEN), { GT_EV_GOROUTINE_STACK, T(2) + 5, C, 21, 0 } };
	hx_events(&t, 2, GT_SNAPSHOT_M, s2, 5);
	tables(&t, 2); /* tables after the events */
	hx_end_gen(&t);

	hx_sync(&t, 3, T(3));
	tables(&t, 3);
	struct hx_ev e3[] = { sfree(T(3) + 10, D), sfree(T(3) + 11, 0x999) };
	hx_events(&t, 3, 1, e3, 2);
	hx_end_gen(&t);
	cr_assert(!t.full);
	return t.len;
}

Test(map_acct, snapshots_restate_the_mappings, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(snapshots()), 0, "%s", heap->err);
	cr_assert_eq(map->gens, 3);
	cr_assert_eq(map->snapshots, 2);
	cr_assert_eq(map->snapshot_spans, 7);
	/* At the start: what the first snapshot restated. */
	cr_assert(map->have_start);
	cr_assert_eq(map->start_bytes, (10 + 4 + 256) * PAGE);
	cr_assert_eq(map->cls[GT_SPAN_BRK].start_bytes, 10 * PAGE);
	cr_assert_eq(map->cls[GT_SPAN_STACK].start_bytes, 256 * PAGE);
	/* Peak: at generation 2's snapshot, 270 + 100 (D) - 4 (B) + 10 (A grew) + 8 (E). */
	cr_assert_eq(map->peak_bytes, 384 * PAGE);
	cr_assert_eq(map->peak_ts, T(2) + 5);
	/* End: A 20, C 256, E 8. */
	cr_assert_eq(map->live_bytes, 284 * PAGE);
	cr_assert_eq(map->live_spans, 3);
	cr_assert_eq(map->cls[GT_SPAN_BRK].live_bytes, 20 * PAGE);
	cr_assert_eq(map->cls[GT_SPAN_STACK].live_bytes, 256 * PAGE);
	/* E: the snapshot says unseen, the SpanAlloc before it knows the site. */
	cr_assert_eq(map->cls[GT_SPAN_ANON].live_bytes, 8 * PAGE);
	cr_assert_eq(map->cls[GT_SPAN_UNSEEN].live_bytes, 0);
	cr_assert_eq(map->cls[GT_SPAN_UNSEEN].peak_bytes, 8 * PAGE);
	/* Counted once each: D and E mapped, A's growth; B and D unmapped. */
	cr_assert_eq(map->mapped_bytes, (100 + 8 + 10) * PAGE);
	cr_assert_eq(map->unmapped_bytes, (4 + 100) * PAGE);
	cr_assert_eq(map->appeared, 1);
	cr_assert_eq(map->vanished, 1);
	cr_assert_eq(map->resized, 1);
	/* B's SpanFree was expected (the snapshot had it gone); 0x999 was not. */
	cr_assert_eq(map->unknown_frees, 1);
	cr_assert_eq(map->replaced, 0);
	cr_assert_eq(map->live_stacks, 1);
	cr_assert_eq(map->peak_stacks, 1);
	const struct tool_map_row *pool = row_of(GT_SPAN_ANON, "make_pool");
	cr_assert_not_null(pool);
	cr_assert_eq(pool->live_bytes, 8 * PAGE);
	cr_assert_eq(pool->mapped_bytes, 100 * PAGE);
	const struct tool_map_row *brk = row_of(GT_SPAN_BRK, "");
	cr_assert_not_null(brk);
	cr_assert_eq(brk->start_bytes, 10 * PAGE);
	cr_assert_eq(brk->live_bytes, 20 * PAGE);
	cr_assert_eq(brk->mapped_bytes, 10 * PAGE);
}

Test(map_acct, a_generation_without_snapshot_keeps_what_is_known, .init = setup, .fini = teardown)
{
	/* Only generation 1 has a snapshot; generation 2 has an event only. */
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	struct hx_ev s1[] = { span(T(1) + 1, A, 10, 0, GT_SPAN_BRK) };
	hx_events(&t, 1, GT_SNAPSHOT_M, s1, 1);
	hx_sync(&t, 2, T(2));
	tables(&t, 2);
	struct hx_ev e2[] = { salloc(T(2) + 3, D, 1, pool_stack(2), GT_SPAN_ANON) };
	hx_events(&t, 2, 1, e2, 1);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(map->gens, 2);
	cr_assert_eq(map->live_bytes, 11 * PAGE);
	cr_assert_eq(map->vanished, 0);
}

Test(map_acct, go_heap_spans_and_unknown_classes_are_other, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	struct hx_ev e[] = { { GT_EV_SPAN_ALLOC, T(1) + 1, 0x7, 2, 5 << 1 }, salloc(T(1) + 2, 0x8, 3, 0, 6),
			     salloc(T(1) + 3, 0x8, 4, 0, GT_SPAN_ANON) };
	hx_events(&t, 1, 1, e, 3);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(map->cls[TOOL_MAP_OTHER].live_bytes, 2 * PAGE);
	cr_assert_eq(map->cls[TOOL_MAP_OTHER].peak_bytes, 5 * PAGE);
	/* A SpanAlloc over a live span replaces it. */
	cr_assert_eq(map->replaced, 1);
	cr_assert_eq(map->cls[GT_SPAN_ANON].live_bytes, 4 * PAGE);
	cr_assert_str_eq(tool_map_class_name(TOOL_MAP_OTHER), "other");
	cr_assert_str_eq(tool_map_class_name(GT_SPAN_UNSEEN), "unattributed");
}

Test(map_acct, the_page_is_the_info_batchs, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	hx_info_sized(&t, 1, 0, 16384, 8, 16384);
	struct hx_ev e[] = { salloc(T(1) + 1, 0x1, 3, 0, GT_SPAN_ANON) };
	hx_events(&t, 1, 1, e, 1);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(map->live_bytes, 3 * 16384);
	cr_assert_eq(map->page, 16384);
}

Test(map_acct, a_generation_that_did_not_end_is_not_counted, .init = setup, .fini = teardown)
{
	size_t len = events_only(GT_FORMAT_26);
	/* Cut inside generation 2's last batch. */
	cr_assert_neq(read_mem(len - 3), 0);
	cr_assert_eq(map->gens, 1);
	cr_assert_eq(map->live_bytes, 10 * PAGE);
	cr_assert_eq(map->span_events, 3);
}

Test(map_acct, no_span_events_no_mapped_memory, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	struct hx_ev ev[] = { { GT_EV_PROC_STATUS, T(1) + 5, 0, GT_P_RUNNING } };
	hx_events(&t, 1, 1, ev, 1);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert(!tool_map_any(map));
	cr_assert_eq(map->gens, 1);
	char *text = report_text();
	cr_assert_null(strstr(text, "apped"), "%s", text);
	free(text);
}

/* ---- the report ---- */

Test(map_report, classes_and_sites, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(events_only(GT_FORMAT_23)), 0, "%s", heap->err);
	char *text = report_text();
	const char *sec = strstr(text, "\nMapped memory (mmap, mremap, brk, thread stacks; pages of 4096 B)\n");
	cr_assert_not_null(sec, "%s", text);
	cr_assert(strstr(sec, "4 span events, 0 generations restating the mappings (0 Span events), 1 thread stack events"),
		  "%s", text);
	cr_assert(strstr(sec, "No generation restated the mappings"), "%s", text);
	/* Peak 64 MiB + 40 KiB at 10 us from the trace start (20 ns after T(1)), end 1 MiB + 40 KiB. */
	cr_assert(strstr(sec, "  class                peak  peak at (s)     at end  spans\n"), "%s", text);
	cr_assert(strstr(sec, "  anonymous        64.0 MiB     0.000000        0 B      0\n"), "%s", text);
	cr_assert(strstr(sec, "  malloc arena     40.0 KiB     0.000000   40.0 KiB      1\n"), "%s", text);
	cr_assert(strstr(sec, "  thread stack      1.0 MiB     0.001000    1.0 MiB      1\n"), "%s", text);
	cr_assert(strstr(sec, "  total            64.0 MiB     0.000000    1.0 MiB      2\n"), "%s", text);
	cr_assert(strstr(sec, "  at the total's peak (67149824 B), by class: anonymous 64.0 MiB, malloc arena 40.0 KiB\n"),
		  "%s", text);
	cr_assert(strstr(sec, "mapped during the trace 65.0 MiB, unmapped 64.0 MiB\n"), "%s", text);
	cr_assert_null(strstr(sec, "brk heap"), "%s", text);
	cr_assert(strstr(sec, "thread stacks: 1 at the end, at most 1 at once"), "%s", text);
	const char *live = strstr(sec, "Mapped at the end by mapping site (top 2 of 2)");
	const char *mapped = strstr(sec, "Top mapping sites by bytes mapped during the trace (top 3 of 3)");
	cr_assert(live && mapped && live < mapped, "%s", text);
	cr_assert(strstr(live, "         1048576      1  thread stack  pthread_create: spawn \xe2\x86\x90 main  (pool.c:30)\n"
			       "           40960      1  malloc arena  (no stack)\n"),
		  "%s", text);
	cr_assert(strstr(mapped, "        67108864      1  anonymous     mmap: make_pool \xe2\x86\x90 main  (pool.c:12)\n"),
		  "%s", text);
	free(text);
}

Test(map_report, snapshot_notes, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(snapshots()), 0, "%s", heap->err);
	char *text = report_text();
	cr_assert(strstr(text, "  class            at start       peak  peak at (s)     at end  spans\n"), "%s", text);
	cr_assert(strstr(text, "  brk heap         40.0 KiB   80.0 KiB     0.001000   80.0 KiB      1\n"), "%s", text);
	cr_assert(strstr(text, "  unattributed     16.0 KiB   32.0 KiB     0.001000        0 B      0\n"), "%s", text);
	cr_assert(strstr(text, "  total             1.1 MiB    1.5 MiB     0.001000    1.1 MiB      3\n"), "%s", text);
	cr_assert(strstr(text, "1 spans appeared in a generation's snapshot"), "%s", text);
	cr_assert(strstr(text, "1 spans were missing from a snapshot without a SpanFree"), "%s", text);
	cr_assert(strstr(text, "1 spans had another size in a snapshot"), "%s", text);
	cr_assert(strstr(text, "1 SpanFree of spans not mapped in the trace were ignored"), "%s", text);
	cr_assert(strstr(text, "           32768      1  anonymous     mmap: make_pool"), "%s", text);
	/* Bytes mapped: the brk heap's growth (no new span), the span that appeared. */
	cr_assert(strstr(text, "           40960      0  brk heap      (no stack: the brk heap)\n"
			       "           32768      1  unattributed  (no stack: seen only in the process's map)\n"),
		  "%s", text);
	cr_assert(strstr(text, "         1048576      1  thread stack  (no stack: a thread's own)\n"),
		  "%s", text);
	free(text);
}

Test(map_report, mapping_calls_are_recognised)
{
	struct tool_sites s;
	cr_assert_eq(tool_sites_init(&s), 0);
	const char *names[] = { "mmap64", "__mmap", "arena_map", "mremap", "main", "pthread_create" };
	uint32_t fr[6];
	for (int i = 0; i < 6; i++)
		fr[i] = tool_sites_frame(&s, tool_sites_string(&s, names[i], strlen(names[i])), 0, 1, 0x10 * (uint64_t)i);
	cr_assert_eq(tool_map_call_frames(&s, tool_sites_site(&s, fr, 3)), 2);
	cr_assert_eq(tool_map_call_frames(&s, tool_sites_site(&s, fr + 3, 2)), 1);
	cr_assert_eq(tool_map_call_frames(&s, tool_sites_site(&s, fr + 2, 2)), 0);
	/* A site keeps a frame. */
	cr_assert_eq(tool_map_call_frames(&s, tool_sites_site(&s, fr + 5, 1)), 0);
	cr_assert_eq(tool_map_call_frames(&s, tool_sites_site(&s, fr, 2)), 1);
	tool_sites_free(&s);
}

Test(map_pprof, one_sample_per_row, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(events_only(GT_FORMAT_23)), 0, "%s", heap->err);
	struct tool_pprof p;
	cr_assert_eq(tool_map_pprof(map, heap, "x.trace", &p), 0);
	cr_assert_gt(p.out.len, 100);
	/* The sample types and labels are in the string table. */
	static const char *const want[] = { "mapped_spans", "mapped_space", "inuse_spans", "inuse_space", "class",
					    "mapper", "thread stack", "(malloc arena)", "make_pool", "pthread_create" };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert(memmem(p.out.buf, p.out.len, want[i], strlen(want[i])), "%s", want[i]);
	tool_pprof_free(&p);
}

/* ---- gotrace stat ---- */

static char *stat_output(size_t len, bool json)
{
	struct tool_stat *s = malloc(sizeof *s);
	cr_assert_eq(tool_stat_init(s), 0);
	cr_assert_not_null(s->map);
	struct hx t = { .buf = mem, .len = len, .cap = sizeof mem };
	FILE *f = hx_file(&t);
	cr_assert_eq(tool_stat_read(s, f), 0, "%s", s->err);
	fclose(f);
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);
	if (json)
		cr_assert_eq(tool_stat_json(out, s, "x.trace", 5, NULL), 0);
	else
		cr_assert_eq(tool_stat_report(out, s, "x.trace", 5), 0);
	fclose(out);
	tool_stat_free(s);
	free(s);
	return text;
}

Test(map_stat, totals_in_text_and_json)
{
	size_t len = snapshots();
	char *text = stat_output(len, false);
	cr_assert(strstr(text, "  mapped memory peak 1.5 MiB at 1.0ms, 1.1 MiB at the end; 5 span events, 1 thread "
			       "stacks at the end\n    at the end by class (see `gotrace heap`): anonymous 32.0 KiB, brk heap 80.0 KiB,\n"
			       "    thread stack 1.0 MiB\n"),
		  "%s", text);
	free(text);
	char *json = stat_output(len, true);
	cr_assert(strstr(json, ",\n  \"mapped\": {\"span_events\": 5, \"snapshots\": 2, \"page_bytes\": 4096, "
			       "\"peak_bytes\": 1572864, \"peak_at\": 0.001000004, \"end_bytes\": 1163264, "
			       "\"end_spans\": 3, \"mapped_bytes\": 483328, \"unmapped_bytes\": 425984, "
			       "\"start_bytes\": 1105920, \"classes\": {"),
		  "%s", json);
	cr_assert(strstr(json, "\"brk heap\": {\"peak_bytes\": 81920, \"end_bytes\": 81920, \"end_spans\": 1}"), "%s",
		  json);
	cr_assert(strstr(json, "\"thread_stacks\": {\"end\": 1, \"peak\": 1}, \"complete\": true}"), "%s", json);
	free(json);
}

Test(map_stat, nothing_without_span_events)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	struct hx_ev ev[] = { { GT_EV_PROC_STATUS, T(1) + 5, 0, GT_P_RUNNING } };
	hx_events(&t, 1, 1, ev, 1);
	char *text = stat_output(t.len, false);
	cr_assert_null(strstr(text, "mapped"), "%s", text);
	free(text);
	char *json = stat_output(t.len, true);
	cr_assert_null(strstr(json, "mapped"), "%s", json);
	free(json);
}
