/* hash.h — the one hash the tables use (64-bit, word and byte inputs). */
#ifndef GT_HASH_H
#define GT_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t gt_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

static inline uint64_t gt_hash_words(const uintptr_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (size_t i = 0; i < n; i++)
		h = gt_mix(h ^ w[i]) + i;
	return h ? h : 1;
}

static inline uint64_t gt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	h = gt_mix(h ^ n);
	return h ? h : 1;
}

#endif
