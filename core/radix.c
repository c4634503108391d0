/* radix.c — a stable LSD radix sort of (key, index) pairs (radix.h). */
#include "radix.h"

#include <string.h>

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)

void gt_radix_sort(struct gt_sortkey *a, struct gt_sortkey *tmp, size_t n, unsigned bits)
{
	if (n < 2)
		return;
	struct gt_sortkey *src = a, *dst = tmp;
	uint32_t count[BUCKETS]; /* n < 2^32: the indexes are 32 bits */
	for (unsigned shift = 0; shift < bits; shift += DIGIT_BITS) {
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[(src[i].key >> shift) & (BUCKETS - 1)]++;
		if (count[(src[0].key >> shift) & (BUCKETS - 1)] == n)
			continue; /* every key has this digit: nothing moves */
		uint32_t sum = 0;
		for (size_t d = 0; d < BUCKETS; d++) {
			uint32_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & (BUCKETS - 1)]++] = src[i];
		struct gt_sortkey *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

void gt_radix_sort_keys(struct gt_sortkey *a, struct gt_sortkey *tmp, size_t n)
{
	if (n < 2)
		return;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (a[i].key < lo)
			lo = a[i].key;
		if (a[i].key > hi)
			hi = a[i].key;
	}
	unsigned bits = 1;
	while (bits < 64 && ((hi - lo) >> bits) != 0)
		bits++;
	for (size_t i = 0; i < n; i++)
		a[i].key -= lo;
	gt_radix_sort(a, tmp, n, bits);
}
