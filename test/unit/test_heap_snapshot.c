/* test_heap_snapshot.c — `gotrace heap` and the live-heap snapshot
 * (tools/heap_acct.h, docs/heap.md "The live-heap snapshot"): synthetic
 * traces whose generations start with HeapObject events in batches of
 * M = GT_SNAPSHOT_M, as the library writes them. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/wire.h"
#include "test/unit/test_heap_fixture.h"
#include "tools/heap_acct.h"

#define T(g) ((uint64_t)(g) * 1000000u)
#define KEEP_SIZE 96
#define CHURN_SIZE 64

static uint8_t mem[1 << 20];
static struct tool_heap *heap;

static void setup(void)
{
	heap = malloc(sizeof *heap);
	cr_assert_not_null(heap);
	cr_assert_eq(tool_heap_init(heap), 0);
}

static void teardown(void)
{
	tool_heap_release(heap);
	free(heap);
}

/* Generation g's ids differ from other generations' (only frames make a site). */
static uint64_t keep_type(unsigned g) { return 1000 * g + 1; }
static uint64_t churn_type(unsigned g) { return 1000 * g + 2; }

static void tables(struct hx *t, unsigned g)
{
	static const char *const names[] = { "malloc", "keep_fn", "churn_fn", "main", "keep.c", "malloc.c" };
	uint64_t s = 10 * g;
	hx_strings(t, g, s, names, 6);
	struct gt_frame keep[3] = { { 0x1000, s + 0, s + 5, 100 }, { 0x2000, s + 1, s + 4, 20 }, { 0x3000, s + 3, s + 4, 50 } };
	struct gt_frame churn[3] = { { 0x1000, s + 0, s + 5, 100 }, { 0x2100, s + 2, s + 4, 30 }, { 0x3100, s + 3, s + 4, 51 } };
	hx_stack(t, g, 100 * g + 1, keep, 3);
	hx_stack(t, g, 100 * g + 2, churn, 3);
	hx_info(t, g, 0, 8);
	struct hx_type ty[2] = { { keep_type(g), 100 * g + 1, KEEP_SIZE }, { churn_type(g), 100 * g + 2, CHURN_SIZE } };
	hx_types(t, g, ty, 2);
}

static struct hx_ev ev(uint8_t type, uint64_t ts, uint64_t a, uint64_t b)
{
	return (struct hx_ev){ type, ts, a, b };
}

static int read_mem(size_t len)
{
	return hx_read_heap(heap, mem, len);
}

/* site_of finds the site whose second frame is function fn. */
static const struct tool_hsite *site_of(const char *fn)
{
	return hx_site_of(heap, fn);
}

/* A window that starts at generation 5 (the ones before it dropped, as a
 * flight recorder does): its snapshot restates 30 kept objects (ids
 * 100..129) allocated before it; then churn, and one of them is freed. */
static size_t late_window(int format, unsigned gens)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, format);
	for (unsigned g = 5; g < 5 + gens; g++) {
		hx_sync(&t, g, T(g));
		tables(&t, g);
		struct hx_ev snap[30];
		for (unsigned i = 0; i < 30; i++)
			snap[i] = ev(GT_EV_HEAP_OBJECT, T(g) + 1, 100 + i, keep_type(g));
		/* Generation 6 on: object 100 was freed in generation 5. */
		hx_events(&t, g, GT_SNAPSHOT_M, g == 5 ? snap : snap + 1, g == 5 ? 30 : 29);
		struct hx_ev e[12];
		size_t n = 0;
		for (unsigned j = 0; j < 5; j++) {
			e[n++] = ev(GT_EV_HEAP_OBJECT_ALLOC, T(g) + 100 + 2 * j, 7, churn_type(g));
			e[n++] = ev(GT_EV_HEAP_OBJECT_FREE, T(g) + 101 + 2 * j, 7, 0);
		}
		if (g == 5)
			e[n++] = ev(GT_EV_HEAP_OBJECT_FREE, T(g) + 200, 100, 0);
		hx_events(&t, g, 1, e, n);
		hx_end_gen(&t);
	}
	cr_assert(!t.full);
	return t.len;
}

static void check_late_window(void)
{
	cr_assert_eq(heap->before_objects, 30);
	cr_assert_eq(heap->before_bytes, 30 * KEEP_SIZE);
	cr_assert_eq(heap->before_est_bytes, 30 * KEEP_SIZE);
	cr_assert_eq(heap->snap_added, 0);
	cr_assert_eq(heap->snap_gone, 0);
	cr_assert_eq(heap->unknown_frees, 0);
	cr_assert_eq(heap->replaced, 0);
	cr_assert_eq(heap->live_objects, 29);
	cr_assert_eq(heap->live_bytes, 29 * KEEP_SIZE);
	cr_assert_eq(heap->est.live_bytes, 29 * KEEP_SIZE);
	cr_assert_eq(heap->alloc_objects, 5 * heap->gens); /* the churn only */
	cr_assert_eq(heap->free_objects, 5 * heap->gens + 1);
	cr_assert_eq(heap->peak_bytes, 30 * KEEP_SIZE + CHURN_SIZE);
	const struct tool_hsite *k = site_of("keep_fn");
	cr_assert_not_null(k);
	cr_assert_eq(k->alloc_objects, 0);
	cr_assert_eq(k->snap_objects, 30);
	cr_assert_eq(k->snap_live_objects, 29);
	cr_assert_eq(k->snap_live_bytes, 29 * KEEP_SIZE);
	cr_assert_eq(k->live_objects, 29);
	cr_assert_eq(k->live_bytes, 29 * KEEP_SIZE);
	cr_assert_eq(k->est.live_bytes, 29 * KEEP_SIZE);
	cr_assert_eq(k->min_size, KEEP_SIZE);
	cr_assert_eq(k->max_size, KEEP_SIZE);
}

Test(heap_snapshot, first_generation_objects_are_live_from_before_the_window, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(late_window(GT_FORMAT_23, 1)), 0, "%s", heap->err);
	cr_assert_eq(heap->snap_gens, 1);
	check_late_window();
}

Test(heap_snapshot, later_snapshots_restating_known_objects_change_nothing, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(late_window(GT_FORMAT_26, 3)), 0, "%s", heap->err);
	cr_assert_eq(heap->gens, 3);
	cr_assert_eq(heap->snap_gens, 3);
	cr_assert_eq(heap->snap_events, 30 + 29 + 29);
	check_late_window();
}

/* A trace from the start: generation 1 allocates 3 objects; generation 2's
 * snapshot restates 1 and 2 only (3's free was lost) and one object (50)
 * no event allocated (a lost allocation); object 9 is allocated in
 * generation 2 between the switch and the copy (in the snapshot and
 * allocated after it); generation 3 has no snapshot. */
Test(heap_snapshot, later_snapshots_reconcile, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	struct hx_ev g1[3] = { ev(GT_EV_HEAP_OBJECT_ALLOC, T(1) + 10, 1, keep_type(1)),
			       ev(GT_EV_HEAP_OBJECT_ALLOC, T(1) + 11, 2, keep_type(1)),
			       ev(GT_EV_HEAP_OBJECT_ALLOC, T(1) + 12, 3, keep_type(1)) };
	hx_events(&t, 1, 1, g1, 3);
	hx_sync(&t, 2, T(2));
	tables(&t, 2);
	struct hx_ev snap[4] = { ev(GT_EV_HEAP_OBJECT, T(2) + 1, 1, keep_type(2)),
				 ev(GT_EV_HEAP_OBJECT, T(2) + 1, 2, keep_type(2)),
				 ev(GT_EV_HEAP_OBJECT, T(2) + 1, 50, churn_type(2)),
				 ev(GT_EV_HEAP_OBJECT, T(2) + 1, 9, churn_type(2)) };
	hx_events(&t, 2, GT_SNAPSHOT_M, snap, 4);
	struct hx_ev g2[1] = { ev(GT_EV_HEAP_OBJECT_ALLOC, T(2) + 5, 9, churn_type(2)) };
	hx_events(&t, 2, 1, g2, 1);
	hx_sync(&t, 3, T(3));
	tables(&t, 3);
	struct hx_ev g3[1] = { ev(GT_EV_HEAP_OBJECT_FREE, T(3) + 5, 50, 0) };
	hx_events(&t, 3, 1, g3, 1);
	cr_assert(!t.full);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);

	cr_assert_eq(heap->gens, 3);
	cr_assert_eq(heap->snap_gens, 1);
	cr_assert_eq(heap->before_objects, 0); /* the trace starts at generation 1 */
	cr_assert_eq(heap->snap_added, 1);     /* 50 */
	cr_assert_eq(heap->snap_gone, 1);      /* 3 */
	cr_assert_eq(heap->replaced, 0);       /* 9 is one object */
	cr_assert_eq(heap->unknown_frees, 0);
	cr_assert_eq(heap->alloc_objects, 4);
	cr_assert_eq(heap->free_objects, 2); /* 3 (unseen) and 50 */
	cr_assert_eq(heap->live_objects, 3); /* 1, 2, 9 */
	cr_assert_eq(heap->live_bytes, 2 * KEEP_SIZE + CHURN_SIZE);
	const struct tool_hsite *c = site_of("churn_fn");
	cr_assert_eq(c->alloc_objects, 1);
	cr_assert_eq(c->snap_objects, 1);
	cr_assert_eq(c->snap_live_objects, 0);
	cr_assert_eq(c->live_objects, 1);
}

/* A sampled window: snapshot objects weigh as the generation's mean says. */
Test(heap_snapshot, sampled_snapshot_objects_are_weighted, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 5, T(5));
	static const char *const stmt[] = { "gotrace.heap sample_bytes=2048" };
	hx_strings(&t, 5, 500, stmt, 1);
	tables(&t, 5);
	struct hx_ev snap[2] = { ev(GT_EV_HEAP_OBJECT, T(5) + 1, 100, keep_type(5)),
				 ev(GT_EV_HEAP_OBJECT, T(5) + 1, 101, keep_type(5)) };
	hx_events(&t, 5, GT_SNAPSHOT_M, snap, 2);
	cr_assert(!t.full);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	double w = tool_heap_sample_weight(KEEP_SIZE, 2048);
	cr_assert_eq(heap->before_objects, 2);
	cr_assert_float_eq(heap->before_est_objects, 2 * w, 1e-9);
	cr_assert_float_eq(heap->est.live_bytes, 2 * w * KEEP_SIZE, 1e-6);
	cr_assert_float_eq(site_of("keep_fn")->snap_est_live_bytes, 2 * w * KEEP_SIZE, 1e-6);
}
