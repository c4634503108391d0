/* heap_sites.c — allocation sites of known sizes, for the accuracy of
 * `gotrace heap` on sampled traces (docs/heap.md, "Accuracy").
 *
 * Each site is a function of its own (never inlined or cloned) that
 * allocates objects of one size (or of mixed sizes) until it has allocated
 * its total, keeps a known fraction live until the program exits, and frees
 * the rest: at once on the allocating thread, or from main after the
 * threads have ended (frees on another thread). Sites run on four threads
 * and main; one site is shared by two threads. Nothing else is allocated
 * in a site: the pointers live in static arrays.
 *
 * The program prints the truth, one line per site:
 *
 *   site NAME size=S alloc_objects=N alloc_bytes=B inuse_objects=n inuse_bytes=b
 *
 * (size=mixed for the site of mixed sizes; inuse = live at exit), the same
 * traced or not. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noipa))
#endif

#define KiB 1024ull
#define MiB (1024ull * 1024)

struct site {
	const char *name;
	void (*fn)(struct site *, size_t first, size_t n);
	size_t size;              /* 0: mixed sizes, 16 B to 4 KiB */
	unsigned long long total; /* bytes to allocate in all */
	unsigned keep_num, keep_den; /* object i stays live when i % den < num */
	int freed_by_main;        /* the others are freed by main at the end */
	/* filled in */
	void **slot;
	size_t n;
	unsigned long long alloc_bytes, inuse_objects, inuse_bytes;
};

/* mixed_size: sizes 16 << (0..8), spread by a hash of i. */
static size_t mixed_size(size_t i)
{
	uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return (size_t)16 << (x % 9);
}

static size_t size_of(const struct site *s, size_t i)
{
	return s->size ? s->size : mixed_size(i);
}

static int kept(const struct site *s, size_t i)
{
	return i % s->keep_den < s->keep_num;
}

static void *sink; /* each object is written and published: no allocation can be elided */

/* make_objects allocates objects first .. first+n-1 of site s. */
SITE static void make_objects(struct site *s, size_t first, size_t n)
{
	for (size_t i = first; i < first + n; i++) {
		size_t size = size_of(s, i);
		unsigned char *p = malloc(size);
		if (!p)
			exit(2);
		p[0] = (unsigned char)i;
		p[size - 1] = (unsigned char)(i >> 8);
		__atomic_store_n(&sink, p, __ATOMIC_RELAXED);
		if (kept(s, i) || s->freed_by_main)
			s->slot[i] = p;
		else
			free(p);
	}
}

/* The barrier after the call keeps it from being a tail call: the site
 * function stays in the stack. */
#define SITE_FN(name)                                                   \
	SITE static void name(struct site *s, size_t first, size_t n)   \
	{                                                               \
		make_objects(s, first, n);                              \
		__asm__ volatile("" ::: "memory");                      \
	}
SITE_FN(s16_1m)
SITE_FN(s16_4m)
SITE_FN(s64_1m_tail)
SITE_FN(s128_32m)
SITE_FN(s256_1m)
SITE_FN(mixed_4m)
SITE_FN(s1k_32m)
SITE_FN(s4k_1m)
SITE_FN(s16k_4m)
SITE_FN(s64k_32m)
SITE_FN(s64k_1m)
SITE_FN(s48_96k)

#define S(nm, sz, tot, kn, kd, by_main) \
	{ .name = #nm, .fn = nm, .size = sz, .total = tot, .keep_num = kn, .keep_den = kd, .freed_by_main = by_main }
static struct site sites[] = {
	S(s16_1m, 16, 1 * MiB, 0, 1, 1),
	S(s16_4m, 16, 4 * MiB, 1, 4, 0),
	S(s64_1m_tail, 64, 1 * MiB, 1, 16, 0),
	S(s128_32m, 128, 32 * MiB, 1, 32, 0),
	S(s256_1m, 256, 1 * MiB, 1, 1, 0),
	S(mixed_4m, 0, 4 * MiB, 1, 2, 1),
	S(s1k_32m, 1024, 32 * MiB, 1, 8, 0),
	S(s4k_1m, 4096, 1 * MiB, 1, 1, 0),
	S(s16k_4m, 16384, 4 * MiB, 0, 1, 0),
	S(s64k_32m, 65536, 32 * MiB, 1, 8, 1),
	S(s64k_1m, 65536, 1 * MiB, 1, 1, 0),
	S(s48_96k, 48, 96 * KiB, 1, 1, 0),
};
#define NSITES (sizeof sites / sizeof sites[0])

enum { S16_1M, S16_4M, S64_TAIL, S128_32M, S256_1M, MIXED_4M, S1K_32M, S4K_1M, S16K_4M, S64K_32M, S64K_1M, S48_96K };

/* Who runs what: a site's objects [from, to) as fractions of its count. */
struct part {
	int site;
	unsigned from, to; /* in eighths */
};
static const struct part work[5][4] = {
	/* main */ { { S64K_1M, 0, 8 }, { S48_96K, 0, 8 }, { -1, 0, 0 } },
	/* 1 */ { { S16_1M, 0, 8 }, { S1K_32M, 0, 4 }, { S16K_4M, 0, 8 }, { -1, 0, 0 } },
	/* 2 */ { { S16_4M, 0, 8 }, { S64_TAIL, 0, 8 }, { S64K_32M, 0, 8 }, { -1, 0, 0 } },
	/* 3 */ { { S128_32M, 0, 8 }, { S256_1M, 0, 8 }, { MIXED_4M, 0, 8 }, { -1, 0, 0 } },
	/* 4 */ { { S1K_32M, 4, 8 }, { S4K_1M, 0, 8 }, { -1, 0, 0 } },
};

static void run(const struct part *p)
{
	for (; p->site >= 0; p++) {
		struct site *s = &sites[p->site];
		size_t first = s->n * p->from / 8, last = s->n * p->to / 8;
		s->fn(s, first, last - first);
	}
}

static void *worker(void *arg)
{
	run(work[(uintptr_t)arg]);
	return NULL;
}

/* The slot arrays: static, so that no site allocates anything but objects. */
#define MAX_OBJECTS 700000
static void *slots[MAX_OBJECTS];

int main(void)
{
	size_t used = 0;
	for (size_t k = 0; k < NSITES; k++) {
		struct site *s = &sites[k];
		unsigned long long bytes = 0;
		size_t n = 0;
		while (bytes < s->total)
			bytes += size_of(s, n++);
		if (used + n > MAX_OBJECTS)
			return 3;
		s->slot = slots + used;
		s->n = n;
		s->alloc_bytes = bytes;
		used += n;
		for (size_t i = 0; i < n; i++)
			if (kept(s, i)) {
				s->inuse_objects++;
				s->inuse_bytes += size_of(s, i);
			}
	}

	pthread_t t[4];
	for (uintptr_t i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)) != 0)
			return 4;
	run(work[0]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);

	/* Frees on another thread than the allocation's. */
	for (size_t k = 0; k < NSITES; k++) {
		struct site *s = &sites[k];
		if (s->freed_by_main)
			for (size_t i = 0; i < s->n; i++)
				if (!kept(s, i)) {
					free(s->slot[i]);
					s->slot[i] = NULL;
				}
	}

	for (size_t k = 0; k < NSITES; k++) {
		const struct site *s = &sites[k];
		char size[24];
		if (s->size)
			snprintf(size, sizeof size, "%zu", s->size);
		else
			strcpy(size, "mixed");
		printf("site %s size=%s alloc_objects=%zu alloc_bytes=%llu inuse_objects=%llu inuse_bytes=%llu\n",
		       s->name, size, s->n, s->alloc_bytes, s->inuse_objects, s->inuse_bytes);
	}
	return 0;
}
