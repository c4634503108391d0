/* test_radix.c — the symbolizer's radix sort: sorted by key, stable, every
 * item kept, whatever the key width. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/radix.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check(size_t n, unsigned bits, uint64_t distinct)
{
	struct gt_sortkey *a = malloc(2 * n * sizeof *a);
	cr_assert_not_null(a);
	uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	for (size_t i = 0; i < n; i++)
		a[i] = (struct gt_sortkey){ (next() % distinct) & mask, (uint32_t)i };
	gt_radix_sort(a, a + n, n, bits);
	char *seen = calloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		cr_assert_lt(a[i].index, n);
		cr_assert_eq(seen[a[i].index], 0, "index %u twice", a[i].index);
		seen[a[i].index] = 1;
		if (i > 0) {
			cr_assert_leq(a[i - 1].key, a[i].key, "not sorted at %zu", i);
			if (a[i - 1].key == a[i].key)
				cr_assert_lt(a[i - 1].index, a[i].index, "not stable at %zu", i);
		}
	}
	free(seen);
	free(a);
}

Test(radix, sorts_and_keeps_ties_in_order)
{
	check(0, 8, 1);
	check(1, 8, 1);
	check(1000, 11, 50);          /* one pass, many ties */
	check(100000, 40, 1u << 20);  /* node-sized table, four passes */
	check(5000, 63, UINT64_MAX);  /* full-width keys */
	check(3000, 22, 1);           /* every key equal: nothing moves */
}

/* Keys of any range (addresses high in the address space): sorted in the
 * order of the keys given, equal ones in table order. */
Test(radix, sort_keys_of_any_range)
{
	enum { N = 5000 };
	struct gt_sortkey *a = malloc(2 * N * sizeof *a);
	uint64_t *given = malloc(N * sizeof *given);
	cr_assert(a && given);
	for (size_t i = 0; i < N; i++) {
		given[i] = UINT64_C(0x7f0000000000) + (next() % 3000) * 16;
		a[i] = (struct gt_sortkey){ given[i], (uint32_t)i };
	}
	gt_radix_sort_keys(a, a + N, N);
	for (size_t i = 1; i < N; i++) {
		uint64_t p = given[a[i - 1].index], q = given[a[i].index];
		cr_assert_leq(p, q, "not sorted at %zu", i);
		if (p == q)
			cr_assert_lt(a[i - 1].index, a[i].index, "not stable at %zu", i);
		cr_assert_eq(a[i].key == a[i - 1].key, p == q, "keys no longer tell equal from unequal at %zu", i);
	}
	free(given);
	free(a);
}
