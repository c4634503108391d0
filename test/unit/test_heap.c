/* test_heap.c — `gotrace heap` accounting: the hash map, site interning, and
 * live/peak figures on synthetic traces written with encoder/writer.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_heap_fixture.h"
#include "tools/heap_acct.h"
#include "tools/heap_report.h"

/* ---- the hash map ---- */

Test(heap_map, random_operations_match_a_reference)
{
	enum { KEYS = 3000 };
	static uint64_t ref[KEYS];
	static bool in[KEYS];
	struct tool_hmap m;
	tool_hmap_init(&m);
	srand(7);
	/* Keys that collide a lot: multiples of a large power of two, plus the extremes. */
	uint64_t key[KEYS];
	for (int i = 0; i < KEYS; i++)
		key[i] = (uint64_t)i << 40;
	key[1] = UINT64_MAX;
	memset(in, 0, sizeof in);
	for (int step = 0; step < 200000; step++) {
		int i = rand() % KEYS;
		int op = rand() % 3;
		if (op == 0) {
			bool fresh;
			struct tool_hmap_entry *e = tool_hmap_put(&m, key[i], &fresh);
			cr_assert_not_null(e);
			cr_assert_eq(fresh, !in[i]);
			e->val = ref[i] = (uint64_t)step;
			in[i] = true;
		} else if (op == 1) {
			struct tool_hmap_entry out;
			cr_assert_eq(tool_hmap_del(&m, key[i], &out), in[i]);
			if (in[i])
				cr_assert_eq(out.val, ref[i]);
			in[i] = false;
		} else {
			struct tool_hmap_entry *e = tool_hmap_get(&m, key[i]);
			cr_assert_eq(e != NULL, in[i], "key %d", i);
			if (e)
				cr_assert_eq(e->val, ref[i]);
		}
	}
	size_t n = 0;
	for (int i = 0; i < KEYS; i++)
		n += in[i];
	cr_assert_eq(m.n, n);
	tool_hmap_clear(&m);
	cr_assert_eq(m.n, 0);
	cr_assert_null(tool_hmap_get(&m, key[0]));
	tool_hmap_free(&m);
}

/* ---- site interning ---- */

Test(heap_sites, equal_frames_are_one_site)
{
	struct tool_sites s;
	cr_assert_eq(tool_sites_init(&s), 0);
	cr_assert_eq(tool_sites_string(&s, "", 0), 0);
	uint32_t f1 = tool_sites_string(&s, "leak_fn", 7), f2 = tool_sites_string(&s, "main", 4);
	uint32_t file = tool_sites_string(&s, "a.c", 3);
	cr_assert_eq(tool_sites_string(&s, "leak_fn", 7), f1);
	cr_assert_neq(f1, f2);
	cr_assert_str_eq(tool_sites_str(&s, f2), "main");

	/* A frame is (function, file, line); the first PC is kept. */
	uint32_t a = tool_sites_frame(&s, f1, file, 20, 0x1000);
	cr_assert_eq(tool_sites_frame(&s, f1, file, 20, 0x2000), a);
	cr_assert_eq(s.frames[a].pc, 0x1000);
	uint32_t b = tool_sites_frame(&s, f2, file, 50, 0x3000);
	cr_assert_neq(tool_sites_frame(&s, f1, file, 21, 0x1000), a);
	/* Unnamed frames stay apart by PC. */
	uint32_t u1 = tool_sites_frame(&s, 0, 0, 0, 0x10), u2 = tool_sites_frame(&s, 0, 0, 0, 0x20);
	cr_assert_neq(u1, u2);
	cr_assert_eq(tool_sites_frame(&s, 0, 0, 0, 0x10), u1);

	uint32_t ab[] = { a, b }, ba[] = { b, a };
	uint32_t s1 = tool_sites_site(&s, ab, 2);
	cr_assert_eq(tool_sites_site(&s, ab, 2), s1);
	cr_assert_neq(tool_sites_site(&s, ba, 2), s1);
	cr_assert_neq(tool_sites_site(&s, ab, 1), s1);
	uint32_t none = tool_sites_site(&s, NULL, 0);
	cr_assert_eq(tool_sites_site(&s, NULL, 0), none);
	cr_assert_eq(s.sites[s1].nframes, 2);
	cr_assert_eq(tool_sites_site_frames(&s, s1)[1], b);

	/* Many strings: the index keeps working as it grows. */
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(buf, sizeof buf, "fn%d", i);
		uint32_t k = tool_sites_string(&s, buf, (size_t)n);
		cr_assert_eq(tool_sites_string(&s, buf, (size_t)n), k);
		cr_assert_str_eq(tool_sites_str(&s, k), buf);
	}
	cr_assert_eq(tool_sites_string(&s, "leak_fn", 7), f1);
	tool_sites_free(&s);
}

/* ---- synthetic traces ---- */

#define T(g) ((uint64_t)(g) * 1000000u)
#define LEAK_SIZE 48
#define CHURN_SIZE 32

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

/* The ids of generation g differ from those of other generations, as
 * they may in real traces: only the frames make a site. */
static uint64_t str_id(unsigned g, unsigned i) { return 10 * g + i; }
static uint64_t leak_stack(unsigned g) { return 100 * g + 1; }
static uint64_t churn_stack(unsigned g) { return 100 * g + 2; }
static uint64_t leak_type(unsigned g) { return 1000 * g + 1; }
static uint64_t churn_type(unsigned g) { return 1000 * g + 2; }

/* tables writes generation g's string and stack tables and AllocFree batches. */
static void tables(struct hx *t, unsigned g)
{
	static const char *const names[] = { "malloc", "leak_fn", "churn_fn", "main", "heap.c", "malloc.c" };
	hx_strings(t, g, str_id(g, 0), names, 6);
	/* string ids: malloc 0, leak_fn 1, churn_fn 2, main 3, heap.c 4, malloc.c 5 */
	struct gt_frame leak[3] = { { 0x1000, str_id(g, 0), str_id(g, 5), 100 },
				    { 0x2000, str_id(g, 1), str_id(g, 4), 20 },
				    { 0x3000, str_id(g, 3), str_id(g, 4), 50 } };
	struct gt_frame churn[3] = { { 0x1000, str_id(g, 0), str_id(g, 5), 100 },
				     { 0x2100, str_id(g, 2), str_id(g, 4), 30 },
				     { 0x3100, str_id(g, 3), str_id(g, 4), 51 } };
	hx_stack(t, g, leak_stack(g), leak, 3);
	hx_stack(t, g, churn_stack(g), churn, 3);
	hx_info(t, g, 0, 8);
	struct hx_type ty[2] = { { leak_type(g), leak_stack(g), LEAK_SIZE }, { churn_type(g), churn_stack(g), CHURN_SIZE } };
	hx_types(t, g, ty, 2);
}

static struct hx_ev alloc_ev(uint64_t ts, uint64_t id, uint64_t type)
{
	return (struct hx_ev){ GT_EV_HEAP_OBJECT_ALLOC, ts, id, type };
}
static struct hx_ev free_ev(uint64_t ts, uint64_t id)
{
	return (struct hx_ev){ GT_EV_HEAP_OBJECT_FREE, ts, id, 0 };
}

/* leak_and_churn writes `gens` generations; in each, 10 objects of 48 bytes
 * leak (ids unique), then 50 malloc/free pairs of 32 bytes reuse one id. */
static size_t leak_and_churn(int format, unsigned gens, bool tables_last)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, format);
	for (unsigned g = 1; g <= gens; g++) {
		hx_sync(&t, g, T(g));
		if (!tables_last)
			tables(&t, g);
		struct hx_ev ev[10 + 100];
		size_t n = 0;
		for (unsigned i = 0; i < 10; i++)
			ev[n++] = alloc_ev(T(g) + 10 + i, 100 * g + i, leak_type(g));
		for (unsigned j = 0; j < 50; j++) {
			ev[n++] = alloc_ev(T(g) + 100 + 2 * j, 7, churn_type(g));
			ev[n++] = free_ev(T(g) + 101 + 2 * j, 7);
		}
		hx_events(&t, g, 1, ev, n);
		if (tables_last)
			tables(&t, g);
		hx_end_gen(&t);
	}
	cr_assert(!t.full);
	return t.len;
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

static void check_leak_and_churn(int format, double t0_off)
{
	cr_assert_eq(heap->gens, 3);
	cr_assert_eq(heap->first_gen, 1);
	cr_assert_eq(heap->last_gen, 3);
	cr_assert_eq(heap->events, 3 * (10 + 100));
	cr_assert_eq(heap->alloc_objects, 3 * (10 + 50));
	cr_assert_eq(heap->alloc_bytes, 3 * (10 * LEAK_SIZE + 50 * CHURN_SIZE));
	cr_assert_eq(heap->free_objects, 3 * 50);
	cr_assert_eq(heap->live_objects, 30);
	cr_assert_eq(heap->live_bytes, 30 * LEAK_SIZE);
	cr_assert_eq(heap->unknown_frees, 0);
	cr_assert_eq(heap->replaced, 0);
	/* Every allocation recorded: the estimates are the exact counts. */
	cr_assert_eq(heap->sampled_gens, 0);
	cr_assert_eq(heap->est.alloc_objects, heap->alloc_objects);
	cr_assert_eq(heap->est.alloc_bytes, heap->alloc_bytes);
	cr_assert_eq(heap->est.live_objects, heap->live_objects);
	cr_assert_eq(heap->est.live_bytes, heap->live_bytes);
	cr_assert_eq(heap->est.var_alloc_bytes + heap->est.var_live_bytes + heap->est.var_alloc_objects, 0);
	/* Peak: every leak of the three generations plus one churn object,
	 * first reached at the first churn allocation of generation 3. */
	cr_assert_eq(heap->peak_bytes, 30 * LEAK_SIZE + CHURN_SIZE);
	cr_assert_eq(heap->peak_objects, 31);
	double want = (double)(T(3) + 100 - T(1)) / 1e9 + t0_off;
	cr_assert(fabs(heap->peak_time - want) < 1e-12, "format %d: peak at %.9f, want %.9f", format,
		  heap->peak_time, want);

	/* Two sites across three generations of different ids. */
	cr_assert_eq(heap->sites.nsites, 2);
	const struct tool_hsite *leak = site_of("leak_fn"), *churn = site_of("churn_fn");
	cr_assert_not_null(leak);
	cr_assert_not_null(churn);
	cr_assert_eq(leak->live_bytes, 30 * LEAK_SIZE);
	cr_assert_eq(leak->live_objects, 30);
	cr_assert_eq(leak->alloc_objects, 30);
	cr_assert_eq(leak->min_size, LEAK_SIZE);
	cr_assert_eq(leak->max_size, LEAK_SIZE);
	cr_assert_eq(churn->alloc_objects, 150);
	cr_assert_eq(churn->free_objects, 150);
	cr_assert_eq(churn->live_bytes, 0);
}

Test(heap_acct, leaks_and_churn_across_generations_format23, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(leak_and_churn(GT_FORMAT_23, 3, false)), 0, "%s", heap->err);
	cr_assert_eq(heap->version, GT_FORMAT_23);
	/* t0 = the sync batch's base time T(1) */
	check_leak_and_churn(GT_FORMAT_23, 0);
}

Test(heap_acct, leaks_and_churn_across_generations_format26, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(leak_and_churn(GT_FORMAT_26, 3, false)), 0, "%s", heap->err);
	/* the 1.26 sync batch's base is one tick before its snapshot */
	check_leak_and_churn(GT_FORMAT_26, 1e-9);
	cr_assert_neq(heap->wall_ns, 0);
}

Test(heap_acct, batches_fed_one_by_one_are_kept_in_memory, .init = setup, .fini = teardown)
{
	/* Without a file to read again, tool_heap_batch copies the payloads. */
	struct hx t = { .buf = mem, .len = leak_and_churn(GT_FORMAT_26, 3, false) };
	FILE *f = hx_file(&t);
	struct gt_reader *r = malloc(sizeof *r);
	struct gt_rbatch b;
	int rc;
	cr_assert_eq(gt_reader_init(r, f), 0);
	while ((rc = gt_reader_next(r, &b)) > 0) {
		cr_assert_eq(tool_heap_batch(heap, &b), 0, "%s", heap->err);
		/* the reader's buffer is reused: scribble over it */
		memset(r->buf, 0xee, b.len);
	}
	cr_assert_eq(rc, 0, "%s", r->err);
	cr_assert_eq(tool_heap_end(heap), 0, "%s", heap->err);
	fclose(f);
	free(r);
	check_leak_and_churn(GT_FORMAT_26, 1e-9);
}

Test(heap_acct, tables_after_events, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(leak_and_churn(GT_FORMAT_23, 3, true)), 0, "%s", heap->err);
	check_leak_and_churn(GT_FORMAT_23, 0);
}

/* one_gen writes a one-generation trace: tables, then the batches of ev
 * split at `split` into thread 2's batch (first in the file) and thread 1's. */
static size_t one_gen(const struct hx_ev *ev2, size_t n2, const struct hx_ev *ev1, size_t n1)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	if (n2)
		hx_events(&t, 1, 2, ev2, n2);
	if (n1)
		hx_events(&t, 1, 1, ev1, n1);
	cr_assert(!t.full);
	return t.len;
}

Test(heap_acct, frees_on_another_thread_pair_by_time_not_file_order, .init = setup, .fini = teardown)
{
	/* Thread 2 frees what thread 1 allocated; its batch comes first. */
	struct hx_ev frees[20], allocs[20];
	for (unsigned i = 0; i < 20; i++) {
		allocs[i] = alloc_ev(T(1) + 100 + 10 * i, 500 + i, leak_type(1));
		frees[i] = free_ev(T(1) + 105 + 10 * i, 500 + i);
	}
	cr_assert_eq(read_mem(one_gen(frees, 20, allocs, 20)), 0, "%s", heap->err);
	cr_assert_eq(heap->unknown_frees, 0);
	cr_assert_eq(heap->live_objects, 0);
	cr_assert_eq(heap->live_bytes, 0);
	cr_assert_eq(heap->free_objects, 20);
	cr_assert_eq(heap->peak_bytes, LEAK_SIZE); /* never two live at once */
	cr_assert(fabs(heap->peak_time - 100e-9) < 1e-12, "%.9f", heap->peak_time);
}

Test(heap_acct, unknown_frees_are_ignored, .init = setup, .fini = teardown)
{
	struct hx_ev ev[] = {
		free_ev(T(1) + 10, 1),    /* allocated before tracing */
		alloc_ev(T(1) + 20, 2, leak_type(1)),
		free_ev(T(1) + 30, 3),    /* never allocated */
		free_ev(T(1) + 40, 2),
		free_ev(T(1) + 50, 2),    /* double free: the object is gone */
	};
	cr_assert_eq(read_mem(one_gen(NULL, 0, ev, 5)), 0, "%s", heap->err);
	cr_assert_eq(heap->unknown_frees, 3);
	cr_assert_eq(heap->alloc_objects, 1);
	cr_assert_eq(heap->free_objects, 1);
	cr_assert_eq(heap->free_bytes, LEAK_SIZE);
	cr_assert_eq(heap->live_bytes, 0);
	cr_assert_eq(heap->peak_bytes, LEAK_SIZE);
}

Test(heap_acct, realloc_is_a_free_and_an_alloc, .init = setup, .fini = teardown)
{
	/* types of generation 1 for three sizes at the leak site */
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	struct hx_type ty[] = { { 51, leak_stack(1), 96 }, { 52, leak_stack(1), 128 } };
	hx_types(&t, 1, ty, 2);
	struct hx_ev ev[] = {
		alloc_ev(T(1) + 10, 1, leak_type(1)), /* p = malloc(48) */
		free_ev(T(1) + 20, 1),                /* p = realloc(p, 96): moves */
		alloc_ev(T(1) + 21, 2, 51),
		free_ev(T(1) + 30, 2),                /* p = realloc(p, 128): in place */
		alloc_ev(T(1) + 31, 2, 52),
	};
	hx_events(&t, 1, 1, ev, 5);
	hx_end_gen(&t);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(heap->alloc_objects, 3);
	cr_assert_eq(heap->alloc_bytes, 48 + 96 + 128);
	cr_assert_eq(heap->free_bytes, 48 + 96);
	cr_assert_eq(heap->live_objects, 1);
	cr_assert_eq(heap->live_bytes, 128);
	cr_assert_eq(heap->peak_bytes, 128);
	cr_assert(fabs(heap->peak_time - 32e-9) < 1e-12, "%.9f", heap->peak_time); /* base T(1) - 1 */
	const struct tool_hsite *leak = site_of("leak_fn");
	cr_assert_eq(leak->min_size, 48);
	cr_assert_eq(leak->max_size, 128);
	cr_assert_eq(heap->sites.nsites, 1);
}

Test(heap_acct, an_alloc_over_a_live_object_replaces_it, .init = setup, .fini = teardown)
{
	struct hx_ev ev[] = {
		alloc_ev(T(1) + 10, 5, leak_type(1)),
		alloc_ev(T(1) + 20, 5, churn_type(1)), /* the free was missed */
	};
	cr_assert_eq(read_mem(one_gen(NULL, 0, ev, 2)), 0, "%s", heap->err);
	cr_assert_eq(heap->replaced, 1);
	cr_assert_eq(heap->live_objects, 1);
	cr_assert_eq(heap->live_bytes, CHURN_SIZE);
	cr_assert_eq(heap->free_objects, 1);
	cr_assert_eq(site_of("leak_fn")->live_objects, 0);
	cr_assert_eq(site_of("churn_fn")->live_objects, 1);
	cr_assert_eq(heap->peak_bytes, LEAK_SIZE);
}

Test(heap_acct, untyped_allocations_count_with_size_zero, .init = setup, .fini = teardown)
{
	struct hx_ev ev[] = { alloc_ev(T(1) + 10, 5, 0), alloc_ev(T(1) + 11, 6, 999) };
	cr_assert_eq(read_mem(one_gen(NULL, 0, ev, 2)), 0, "%s", heap->err);
	cr_assert_eq(heap->untyped, 2);
	cr_assert_eq(heap->live_objects, 2);
	cr_assert_eq(heap->live_bytes, 0);
	cr_assert_eq(heap->sites.nsites, 1);
	cr_assert_eq(heap->sites.sites[0].nframes, 0);
}

Test(heap_acct, object_ids_are_addresses_from_each_generations_info, .init = setup, .fini = teardown)
{
	struct hx t;
	struct hx_ev a[] = { alloc_ev(T(1) + 10, 6, leak_type(1)) }; /* 0 + 6 * 8 = 48 */
	struct hx_ev f6[] = { free_ev(T(2) + 10, 6) };
	struct hx_ev f3[] = { free_ev(T(2) + 10, 3) };

	/* The first info batch of a generation counts. */
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	hx_info(&t, 1, 0x10000, 16);
	hx_events(&t, 1, 1, a, 1);
	hx_sync(&t, 2, T(2));
	tables(&t, 2);
	hx_events(&t, 2, 1, f6, 1);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(heap->live_objects, 0);
	cr_assert_eq(heap->unknown_frees, 0);

	/* With another alignment in generation 2, id 3 is the address 48. */
	tool_heap_release(heap);
	cr_assert_eq(tool_heap_init(heap), 0);
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	tables(&t, 1);
	hx_events(&t, 1, 1, a, 1);
	hx_sync(&t, 2, T(2));
	hx_info(&t, 2, 0, 16);
	tables(&t, 2);
	hx_events(&t, 2, 1, f3, 1);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(heap->live_objects, 0, "id 3 * 16 is the object of id 6 * 8");
	cr_assert_eq(heap->unknown_frees, 0);
	cr_assert_eq(heap->align, 16);

	/* Without an info batch a generation inherits the previous one. */
	tool_heap_release(heap);
	cr_assert_eq(tool_heap_init(heap), 0);
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	hx_info(&t, 1, 0, 16);
	tables(&t, 1);
	struct hx_ev a3[] = { alloc_ev(T(1) + 10, 3, leak_type(1)) };
	hx_events(&t, 1, 1, a3, 1);
	hx_sync(&t, 2, T(2));
	static const char *const none[] = { "x" };
	hx_strings(&t, 2, 1, none, 1);
	hx_events(&t, 2, 1, f3, 1);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(heap->live_objects, 0);
	cr_assert_eq(heap->unknown_frees, 0);
}

Test(heap_acct, truncated_trace_counts_complete_generations, .init = setup, .fini = teardown)
{
	size_t full = leak_and_churn(GT_FORMAT_23, 3, false);
	/* Cut in the middle of generation 3's event batch. */
	size_t cut = full - 40;
	cr_assert_eq(read_mem(cut), -1);
	cr_assert(strstr(heap->err, "truncated batch at offset"), "%s", heap->err);
	cr_assert_eq(heap->gens, 2);
	cr_assert_eq(heap->last_gen, 2);
	cr_assert_eq(heap->live_bytes, 20 * LEAK_SIZE);
	cr_assert_eq(heap->alloc_objects, 2 * 60);
}

Test(heap_acct, truncated_format26_at_a_batch_boundary, .init = setup, .fini = teardown)
{
	size_t one = leak_and_churn(GT_FORMAT_26, 1, false);
	size_t full = leak_and_churn(GT_FORMAT_26, 2, false);
	cr_assert_gt(full, one);
	/* Keep generation 1 and the sync batch of generation 2 (which starts it). */
	uint8_t sync[GT_SYNC_MAX];
	struct gt_clock_snapshot snap = { T(2), T(2), 1700000000u, 5 };
	size_t sync_len = gt_write_sync(sync, GT_FORMAT_26, 2, HX_FREQ, &snap);
	cr_assert_eq(memcmp(mem + one, sync, sync_len), 0);
	cr_assert_eq(read_mem(one + sync_len), -1);
	cr_assert(strstr(heap->err, "incomplete generation 2"), "%s", heap->err);
	cr_assert_eq(heap->gens, 1);
	cr_assert_eq(heap->live_bytes, 10 * LEAK_SIZE);
}

Test(heap_acct, malformed_allocfree_payload_is_an_error, .init = setup, .fini = teardown)
{
	struct hx t;
	struct gt_batch b;
	static uint8_t tmp[256];
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	gt_batch_begin_exp(&b, tmp, sizeof tmp, GT_EXP_ALLOCFREE, 1, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_ALLOCFREE_TYPES);
	gt_batch_bytes(&b, "\x01\x02\x30\x00\x7f" "abc", 8); /* a 127-byte name, 3 bytes there */
	size_t n = gt_batch_finish(&b);
	memcpy(mem + t.len, tmp, n);
	cr_assert_eq(read_mem(t.len + n), -1);
	cr_assert(strstr(heap->err, "truncated AllocFree type at offset"), "%s", heap->err);
	cr_assert_eq(heap->gens, 0);

	/* An info batch cut short, or with alignment 0. */
	static const struct {
		const char *payload;
		size_t len;
		const char *err;
	} bad[] = {
		{ "\x01\x00\x80", 3, "truncated AllocFree info (page size)" },
		{ "\x01\x00\x01\x00\x00", 5, "object alignment 0" },
		{ "\x00\x01\x02\x03\x04\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 16, "invalid uvarint" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tool_heap_release(heap);
		cr_assert_eq(tool_heap_init(heap), 0);
		gt_batch_begin_exp(&b, tmp, sizeof tmp, GT_EXP_ALLOCFREE, 1, GT_NO_THREAD, 1);
		gt_batch_bytes(&b, bad[i].payload, bad[i].len);
		n = gt_batch_finish(&b);
		memcpy(mem + t.len, tmp, n);
		cr_assert_eq(read_mem(t.len + n), -1);
		cr_assert(strstr(heap->err, bad[i].err), "%zu: %s", i, heap->err);
	}
}

Test(heap_acct, no_heap_events, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	hx_sync(&t, 1, T(1));
	struct hx_ev ev[] = { { GT_EV_PROC_STATUS, T(1) + 5, 0, GT_P_RUNNING } };
	hx_events(&t, 1, 1, ev, 1);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(heap->gens, 1);
	cr_assert_eq(heap->events, 0);
	cr_assert_eq(heap->sites.nsites, 0);

	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	tool_heap_report(out, heap, "x.trace", 10);
	fclose(out);
	cr_assert(strstr(text, "No heap events"), "%s", text);
	free(text);
}

/* ---- the text report ---- */

Test(heap_report, leaks_first_with_their_frames, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(leak_and_churn(GT_FORMAT_23, 3, false)), 0, "%s", heap->err);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	tool_heap_report(out, heap, "x.trace", 1);
	fclose(out);

	const char *leaks = strstr(text, "Live at the end (leaks) by allocation site (top 1 of 1 sites)");
	cr_assert_not_null(leaks, "%s", text);
	const char *by_bytes = strstr(leaks, "Top allocation sites by bytes allocated (top 1 of 2 sites)");
	const char *by_count = strstr(leaks, "Top allocation sites by allocation count (top 1 of 2 sites)");
	cr_assert_not_null(by_bytes, "%s", text);
	cr_assert_not_null(by_count, "%s", text);

	/* The leak: 1440 bytes in 30 objects, malloc, then leak_fn at heap.c:20. */
	char want[200];
	snprintf(want, sizeof want, "%12d %10d  malloc, 48 B each\n", 30 * LEAK_SIZE, 30);
	const char *row = strstr(leaks, want);
	cr_assert(row && row < by_bytes, "%s", text);
	const char *fn = strstr(row, "leak_fn  heap.c:20\n");
	cr_assert(fn && fn < by_bytes, "%s", text);
	cr_assert(strstr(row, "main     heap.c:50\n"), "%s", text);
	/* The allocation function is not printed as a frame. */
	cr_assert_null(strstr(text, "malloc.c:100"), "%s", text);

	/* Churn allocated the most bytes (4800 in 150 objects) and most often. */
	snprintf(want, sizeof want, "%12d %10d  malloc, 32 B each\n", 150 * CHURN_SIZE, 150);
	cr_assert(strstr(by_bytes, want) && strstr(by_bytes, want) < by_count, "%s", text);
	snprintf(want, sizeof want, "%12d %10d  malloc, 32 B each\n", 150, 150 * CHURN_SIZE);
	cr_assert(strstr(by_count, want), "%s", text);

	/* Totals. */
	snprintf(want, sizeof want, "live at end  %10d %14d", 30, 30 * LEAK_SIZE);
	cr_assert(strstr(text, want), "%s", text);
	snprintf(want, sizeof want, "peak live    %10d %14d", 31, 30 * LEAK_SIZE + CHURN_SIZE);
	cr_assert(strstr(text, want), "%s", text);
	free(text);
}

Test(heap_report, allocation_functions_are_recognised)
{
	struct tool_sites s;
	cr_assert_eq(tool_sites_init(&s), 0);
	const char *names[] = { "malloc", "operator new(unsigned long)", "in_arena", "realloc", "_Znam",
				"strdup", "user_fn", "main" };
	uint32_t str[8], fr[8];
	uint32_t libc = tool_sites_string(&s, "malloc.c", 8), user = tool_sites_string(&s, "u.c", 3);
	for (int i = 0; i < 8; i++)
		str[i] = tool_sites_string(&s, names[i], strlen(names[i]));
	/* [malloc, operator new, user_fn, main] -> 2 */
	uint32_t a[] = { tool_sites_frame(&s, str[0], libc, 1, 1), tool_sites_frame(&s, str[1], libc, 2, 2),
			 tool_sites_frame(&s, str[6], user, 3, 3), tool_sites_frame(&s, str[7], user, 4, 4) };
	cr_assert_eq(tool_heap_alloc_frames(&s, tool_sites_site(&s, a, 4)), 2);
	/* [in_arena (inlined, same file as realloc), realloc, main] -> 2 */
	uint32_t b[] = { tool_sites_frame(&s, str[2], libc, 5, 5), tool_sites_frame(&s, str[3], libc, 6, 6),
			 tool_sites_frame(&s, str[7], user, 4, 4) };
	cr_assert_eq(tool_heap_alloc_frames(&s, tool_sites_site(&s, b, 3)), 2);
	/* [user_fn, main] -> 0; [malloc] alone keeps its frame -> 0 */
	cr_assert_eq(tool_heap_alloc_frames(&s, tool_sites_site(&s, a + 2, 2)), 0);
	cr_assert_eq(tool_heap_alloc_frames(&s, tool_sites_site(&s, a, 1)), 0);
	/* [_Znam, strdup, user_fn] -> 2 */
	fr[0] = tool_sites_frame(&s, str[4], libc, 7, 7);
	fr[1] = tool_sites_frame(&s, str[5], libc, 8, 8);
	fr[2] = a[2];
	cr_assert_eq(tool_heap_alloc_frames(&s, tool_sites_site(&s, fr, 3)), 2);
	tool_sites_free(&s);
}
