/* test_ownheap.c — the tracer's own heap (core/ownheap.h): every block
 * holds what was asked, aligned as asked, keeps its bytes across realloc,
 * is reused once freed, is told apart from the real allocator's by its
 * address alone, and threads allocating at once never share a block. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ownheap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

Test(ownheap, blocks_hold_what_was_asked_aligned)
{
	for (size_t n = 0; n < 5000; n += 1 + n / 8) {
		for (size_t align = 16; align <= 4096; align *= 4) {
			unsigned char *p = gt_own_alloc(n, align);
			cr_assert_not_null(p, "n %zu align %zu", n, align);
			cr_assert_eq((uintptr_t)p % align, 0, "n %zu align %zu: %p", n, align, (void *)p);
			cr_assert(gt_own_contains(p));
			cr_assert_eq(gt_own_size(p), n);
			memset(p, 0xa5, n);
			gt_own_free(p);
		}
	}
}

Test(ownheap, other_memory_is_not_own)
{
	void *m = malloc(64);
	int local;
	cr_assert(!gt_own_contains(m));
	cr_assert(!gt_own_contains(&local));
	cr_assert(!gt_own_contains(NULL));
	free(m);
}

Test(ownheap, freed_blocks_are_reused)
{
	void *a = gt_own_alloc(100, 16);
	gt_own_free(a);
	void *b = gt_own_alloc(100, 16);
	cr_assert_eq(a, b, "a freed block of the same class comes back");
	gt_own_free(b);
}

Test(ownheap, calloc_zeroes_a_reused_block)
{
	unsigned char *a = gt_own_alloc(256, 16);
	memset(a, 0xff, 256);
	gt_own_free(a);
	unsigned char *b = gt_own_calloc(16, 16);
	cr_assert_not_null(b);
	for (int i = 0; i < 256; i++)
		cr_assert_eq(b[i], 0, "byte %d", i);
	gt_own_free(b);
	cr_assert_null(gt_own_calloc(SIZE_MAX / 2, 4), "overflow refused");
}

Test(ownheap, realloc_keeps_the_bytes_random_sequence)
{
	enum { N = 500 };
	unsigned char *a[N] = { 0 };
	size_t sz[N] = { 0 };
	for (int it = 0; it < 50000; it++) {
		int i = (int)(next() % N);
		for (size_t k = 0; k < sz[i]; k++)
			cr_assert_eq(a[i][k], (unsigned char)i, "it %d block %d byte %zu of %zu", it, i, k, sz[i]);
		size_t n = next() % 4 == 0 ? next() % 100000 : next() % 300;
		switch (next() % 3) {
		case 0:
			if (a[i])
				gt_own_free(a[i]);
			a[i] = NULL, sz[i] = 0;
			break;
		case 1:
			if (a[i]) {
				unsigned char *q = gt_own_realloc(a[i], n);
				cr_assert_not_null(q);
				memset(q, (unsigned char)i, n);
				a[i] = q, sz[i] = n;
			}
			break;
		default:
			if (!a[i]) {
				a[i] = gt_own_alloc(n, (size_t)16 << (next() % 5));
				cr_assert_not_null(a[i]);
				memset(a[i], (unsigned char)i, n);
				sz[i] = n;
			}
		}
	}
	for (int i = 0; i < N; i++)
		if (a[i])
			gt_own_free(a[i]);
}

static void *churn(void *arg)
{
	uintptr_t tag = (uintptr_t)arg;
	void *mine[64] = { 0 };
	for (int it = 0; it < 20000; it++) {
		int i = it % 64;
		if (mine[i]) {
			for (int k = 0; k < 48; k++)
				if (((unsigned char *)mine[i])[k] != (unsigned char)tag)
					return (void *)1;
			gt_own_free(mine[i]);
		}
		mine[i] = gt_own_alloc(48 + (size_t)(it % 7) * 100, 16);
		if (!mine[i])
			return (void *)2;
		memset(mine[i], (unsigned char)tag, 48);
	}
	for (int i = 0; i < 64; i++)
		gt_own_free(mine[i]);
	return NULL;
}

Test(ownheap, threads_never_share_a_block)
{
	pthread_t th[4];
	for (uintptr_t i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, churn, (void *)(i + 1)), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(th[i], &r);
		cr_expect_null(r, "thread %d saw another's bytes (1) or ran out (2): %p", i, r);
	}
}

Test(ownheap, too_big_is_refused_not_crashed)
{
	cr_assert_null(gt_own_alloc(GT_OWN_SIZE, 16));
	cr_assert_null(gt_own_alloc(SIZE_MAX - 8, 16));
}
