/* test_heaplive.c — the live tables of the live-heap snapshot:
 * core/heaplive.c (every allocation recorded: sharded by address),
 * core/heapsite.c (sites that outlive generations) and the sampled set's
 * copy (core/heapset.c). The unit tests run in one process: each test uses
 * addresses of its own. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/heaplive.h"
#include "core/heapset.h"
#include "core/heapsite.h"
#include "core/sample.h"

static struct gt_heaplive_entry out[1 << 16];

static uint32_t keep_ref(void *ctx, uint32_t ref)
{
	(void)ctx;
	return ref;
}

/* copy_all copies every shard; returns the entries found (key -> index). */
static uint64_t copy_all(struct gt_heaplive_entry *all, uint64_t max, gt_heapref_fix fix, void *ctx)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < GT_HEAPLIVE_SHARDS; i++) {
		uint64_t k = gt_heaplive_copy(i, out, sizeof out / sizeof *out, fix, ctx);
		cr_assert_leq(k, sizeof out / sizeof *out);
		for (uint64_t j = 0; j < k && n < max; j++)
			all[n++] = out[j];
	}
	return n;
}

static int by_key(const void *a, const void *b)
{
	uintptr_t x = ((const struct gt_heaplive_entry *)a)->key, y = ((const struct gt_heaplive_entry *)b)->key;
	return x < y ? -1 : x > y;
}

Test(heaplive, random_operations_match_a_reference)
{
	enum { N = 30000 };
	static uintptr_t addr[N];
	static int live[N];
	static struct gt_heaplive_entry all[N + 16];
	uint64_t r = 777;
	/* Addresses as two threads' arenas and the brk heap would give. */
	for (int i = 0; i < N; i++) {
		uintptr_t base = (i % 3 == 0 ? 0x5500000000ull : i % 3 == 1 ? 0x7f1000000000ull : 0x7f2000000000ull);
		/* unique: an odd multiplier is a bijection mod 2^28 */
		addr[i] = base + (((uint64_t)i * 2654435761u) % (1u << 28)) * 16;
	}
	uint64_t want = 0;
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < N; i++) {
			uint64_t x = gt_sample_next(&r);
			if (!live[i] && (x & 3) != 0) {
				cr_assert_eq(gt_heaplive_insert((void *)addr[i], (uint64_t)i + 1, (uint32_t)i + 7, 0), 0);
				live[i] = 1;
				want++;
			} else if (live[i] && (x & 3) == 0) {
				cr_assert_eq(gt_heaplive_remove((void *)addr[i], 0), 1);
				cr_assert_eq(gt_heaplive_remove((void *)addr[i], 0), 0);
				live[i] = 0;
				want--;
			}
		}
		cr_assert_eq(gt_heaplive_count(), want);
		uint64_t n = copy_all(all, N + 16, keep_ref, NULL);
		cr_assert_eq(n, want);
		qsort(all, n, sizeof *all, by_key);
		uint64_t k = 0;
		for (int i = 0; i < N; i++) {
			if (!live[i])
				continue;
			struct gt_heaplive_entry key = { .key = addr[i] };
			struct gt_heaplive_entry *e = bsearch(&key, all, n, sizeof *all, by_key);
			cr_assert_not_null(e, "live %d not copied", i);
			cr_assert_eq(e->size, (uint32_t)i + 1);
			cr_assert_eq(e->ref, (uint32_t)i + 7);
			k++;
		}
		cr_assert_eq(k, n);
	}
	for (int i = 0; i < N; i++)
		if (live[i])
			cr_assert_eq(gt_heaplive_remove((void *)addr[i], 0), 1);
	cr_assert_eq(gt_heaplive_count(), 0);
}

Test(heaplive, insert_over_a_live_address_replaces_it_and_sizes_saturate)
{
	void *p = (void *)0x6600001230ull;
	cr_assert_eq(gt_heaplive_insert(p, 10, 1, 0), 0);
	cr_assert_eq(gt_heaplive_insert(p, (uint64_t)1 << 40, 2, 0), 0); /* its free was missed */
	cr_assert_eq(gt_heaplive_count(), 1);
	static struct gt_heaplive_entry all[4];
	cr_assert_eq(copy_all(all, 4, keep_ref, NULL), 1);
	cr_assert_eq(all[0].size, UINT32_MAX);
	cr_assert_eq(all[0].ref, 2);
	cr_assert_eq(gt_heaplive_remove(p, 1), 1); /* nested: the lock is free, taken */
	cr_assert_eq(gt_heaplive_insert(NULL, 1, 1, 0), -1);
	cr_assert_eq(gt_heaplive_remove(NULL, 0), 0);
	cr_assert_eq(gt_heaplive_count(), 0);
}

/* The snapshot's conversion: stack refs become site refs, written back. */
static uint32_t to_site(void *ctx, uint32_t ref)
{
	int *calls = ctx;
	++*calls;
	return GT_HEAPREF_SITE | (ref & GT_HEAPREF_ID_MASK);
}

Test(heaplive, copy_fixes_stack_refs_once)
{
	void *a = (void *)0x6700000100ull, *b = (void *)0x6700000200ull, *c = (void *)0x6700000300ull;
	cr_assert_eq(gt_heaplive_insert(a, 1, gt_heapref_stack(5, 42), 0), 0);
	cr_assert_eq(gt_heaplive_insert(b, 2, GT_HEAPREF_SITE | 9, 0), 0);
	cr_assert_eq(gt_heaplive_insert(c, 3, 0, 0), 0); /* unknown */
	int calls = 0;
	static struct gt_heaplive_entry all[8];
	cr_assert_eq(copy_all(all, 8, to_site, &calls), 3);
	cr_assert_eq(calls, 1);
	calls = 0;
	cr_assert_eq(copy_all(all, 8, to_site, &calls), 3);
	cr_assert_eq(calls, 0, "the converted ref was not written back");
	qsort(all, 3, sizeof *all, by_key);
	cr_assert_eq(all[0].ref, GT_HEAPREF_SITE | 42);
	cr_assert_eq(all[1].ref, GT_HEAPREF_SITE | 9);
	cr_assert_eq(all[2].ref, 0);
	gt_heaplive_remove(a, 0);
	gt_heaplive_remove(b, 0);
	gt_heaplive_remove(c, 0);
}

Test(heaplive, stack_refs_carry_the_generation)
{
	uint32_t r = gt_heapref_stack(6, 1234);
	cr_assert_eq(r >> GT_HEAPREF_GEN_SHIFT, 6 & 3);
	cr_assert_eq(r & GT_HEAPREF_ID_MASK, 1234);
	cr_assert_eq(r & GT_HEAPREF_SITE, 0);
	cr_assert_eq(gt_heapref_stack(6, 0), 0);
	cr_assert_eq(gt_heapref_stack(6, (uint64_t)GT_HEAPREF_ID_MASK + 1), 0); /* too large: unknown */
}

Test(heapsite, same_frames_one_number_kept_for_the_process)
{
	uintptr_t a[3] = { 0x1000, 0x2000, 0x3000 }, b[3] = { 0x1000, 0x2000, 0x3001 };
	uint32_t na = gt_heapsite_get(a, 3, gt_hash_words(a, 3));
	uint32_t nb = gt_heapsite_get(b, 3, gt_hash_words(b, 3));
	cr_assert_neq(na, 0);
	cr_assert_neq(nb, 0);
	cr_assert_neq(na, nb);
	cr_assert_eq(gt_heapsite_get(a, 3, gt_hash_words(a, 3)), na);
	cr_assert_eq(gt_heapsite_get(a, 2, gt_hash_words(a, 2)) != na, 1); /* a prefix is another site */
	struct gt_heapsite *s = gt_heapsite_at(nb);
	cr_assert_not_null(s);
	cr_assert_eq(s->n, 3);
	cr_assert_eq(memcmp(s->pcs, b, sizeof b), 0);
	cr_assert_null(gt_heapsite_at(0));
	cr_assert_null(gt_heapsite_at(gt_heapsite_count() + 1));
	cr_assert_eq(gt_heapsite_get(a, 0, 0), 0);
}

Test(heapset, copy_keeps_sites_and_fixes_refs)
{
	void *p = (void *)0x6800000040ull, *q = (void *)0x6800000080ull;
	cr_assert_eq(gt_heapset_insert_site(p, 100, gt_heapref_stack(3, 17), 0), 0);
	cr_assert_eq(gt_heapset_insert_site(q, 200, GT_HEAPREF_SITE | 5, 0), 0);
	uint64_t before = gt_heapset_count();
	static struct gt_heaplive_entry all[1 << 12];
	int calls = 0;
	uint64_t n = gt_heapset_copy(all, 1 << 12, to_site, &calls);
	cr_assert_eq(n, before);
	cr_assert_eq(calls, 1);
	int seen = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (all[i].key == (uintptr_t)p) {
			cr_assert_eq(all[i].size, 100);
			cr_assert_eq(all[i].ref, GT_HEAPREF_SITE | 17);
			seen++;
		} else if (all[i].key == (uintptr_t)q) {
			cr_assert_eq(all[i].ref, GT_HEAPREF_SITE | 5);
			seen++;
		}
	}
	cr_assert_eq(seen, 2);
	cr_assert_eq(gt_heapset_copy(all, 0, to_site, &calls), n, "too little room: the count, nothing copied");
	uint64_t size;
	cr_assert_eq(gt_heapset_remove(p, &size, 0), 1);
	cr_assert_eq(gt_heapset_remove(q, &size, 0), 1);
}
