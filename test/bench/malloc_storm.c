/* malloc_storm.c — a malloc-heavy workload for test/bench/heap_bench.py:
 * what recording every allocation costs (docs/heap.md).
 *
 *   malloc_storm [THREADS [OPS [RING]]]
 *
 * THREADS threads (default 2, at most 4) each do OPS operations (default
 * 14,000,000: about 1 s untraced with 2 threads on 2 cores). One
 * operation allocates one object of 16 B - 4 KiB, writes a header and its
 * last byte, and frees an older object:
 *
 *   - sizes come from a per-thread xorshift64* generator seeded with the
 *     thread's index, so every run does the same work: 5/8 of the objects
 *     are 16-128 B, 2/8 are 129-1024 B, 1/8 are 1025-4096 B (any byte
 *     count in the range, as for strings);
 *   - 1 object in 8 is long-lived: it goes into a ring of RING (default
 *     4096) slots per thread and is freed when the ring comes round to its
 *     slot again, RING long-lived allocations later (~8 * RING operations);
 *   - the others are short-lived: they go into a window of WINDOW (4)
 *     slots and are freed WINDOW short-lived allocations later;
 *   - 1 allocation in 8 is a calloc, the rest malloc; they come from three
 *     call sites at different depths below the thread's loop (make_leaf;
 *     make_mid -> make_mid2; make_deep recursing 3 times -> make_leaf), so
 *     that an unwinder has a few different stacks of 3-8 frames to walk.
 *
 * At the end every thread frees what it still holds, so mallocs == frees
 * (no realloc; each operation is exactly one allocation and one free, apart
 * from the first ones, which find empty slots, and the final drain).
 * It prints one line:
 *
 *   checksum HEX mallocs N frees N seconds S
 *
 * The checksum folds each freed object's header and last byte, never an
 * address: it is the same for every run with the same arguments, traced or
 * not. S is the wall time of the threads' work (CLOCK_MONOTONIC).
 *
 *   cc -O2 -g -pthread -fno-builtin -o malloc_storm test/bench/malloc_storm.c
 *
 * -fno-builtin stops the compiler from treating malloc/free as known
 * functions (GCC may otherwise drop an allocation it can see is freed
 * unused). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 4
#define DEFAULT_OPS 14000000ull
#define DEFAULT_RING 4096u
#define WINDOW 4u

struct obj {
	uint64_t seq;   /* operation number within the thread */
	uint32_t size;  /* bytes allocated, header included */
	uint32_t tag;   /* low bits of the generator at allocation time */
};

struct worker {
	unsigned index;
	uint64_t ops;
	unsigned ring_len;
	uint64_t rng;
	uint64_t sum;
	uint64_t mallocs, frees;
	struct obj **ring;
	struct obj *window[WINDOW];
	pthread_t thread;
};

static uint64_t next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static uint32_t pick_size(uint64_t r)
{
	unsigned cls = r & 7;
	uint64_t v = r >> 8;
	if (cls < 5)
		return 16 + (uint32_t)(v % 113);          /* 16 .. 128 */
	if (cls < 7)
		return 129 + (uint32_t)(v % 896);         /* 129 .. 1024 */
	return 1025 + (uint32_t)(v % 3072);               /* 1025 .. 4096 */
}

/* The three allocation sites. noinline keeps them as real frames. */

__attribute__((noinline)) static struct obj *make_leaf(uint32_t size, int zeroed)
{
	struct obj *o = zeroed ? calloc(1, size) : malloc(size);
	if (!o) {
		perror("malloc_storm: malloc");
		exit(1);
	}
	return o;
}

__attribute__((noinline)) static struct obj *make_mid2(uint32_t size, int zeroed)
{
	struct obj *o = zeroed ? calloc(1, size) : malloc(size);
	if (!o) {
		perror("malloc_storm: malloc");
		exit(1);
	}
	__asm__ volatile("" ::: "memory"); /* not a tail call */
	return o;
}

__attribute__((noinline)) static struct obj *make_mid(uint32_t size, int zeroed)
{
	struct obj *o = make_mid2(size, zeroed);
	__asm__ volatile("" ::: "memory");
	return o;
}

__attribute__((noinline)) static struct obj *make_deep(unsigned depth, uint32_t size, int zeroed)
{
	struct obj *o = depth ? make_deep(depth - 1, size, zeroed) : make_leaf(size, zeroed);
	__asm__ volatile("" ::: "memory");
	return o;
}

static struct obj *make(struct worker *w, uint64_t seq, uint64_t r)
{
	uint32_t size = pick_size(r);
	int zeroed = ((r >> 3) & 7) == 0;
	struct obj *o;
	switch ((r >> 6) & 3) {
	case 0:
	case 1:
		o = make_leaf(size, zeroed);
		break;
	case 2:
		o = make_mid(size, zeroed);
		break;
	default:
		o = make_deep(3, size, zeroed);
		break;
	}
	o->seq = seq;
	o->size = size;
	o->tag = (uint32_t)(r >> 32);
	((unsigned char *)o)[size - 1] = (unsigned char)(seq ^ size);
	w->mallocs++;
	return o;
}

__attribute__((noinline)) static void drop(struct worker *w, struct obj *o)
{
	if (!o)
		return;
	uint64_t v = o->seq * 31 + o->size;
	v ^= (uint64_t)o->tag << 17;
	v += ((unsigned char *)o)[o->size - 1];
	w->sum = w->sum * 0x100000001b3ull + v;
	free(o);
	w->frees++;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned ring_at = 0, win_at = 0;
	for (uint64_t i = 0; i < w->ops; i++) {
		uint64_t r = next(&w->rng);
		struct obj *o = make(w, i, r);
		if (((r >> 11) & 7) == 0) {
			drop(w, w->ring[ring_at]);
			w->ring[ring_at] = o;
			if (++ring_at == w->ring_len)
				ring_at = 0;
		} else {
			drop(w, w->window[win_at]);
			w->window[win_at] = o;
			win_at = (win_at + 1) % WINDOW;
		}
	}
	for (unsigned k = 0; k < w->ring_len; k++)
		drop(w, w->ring[k]);
	for (unsigned k = 0; k < WINDOW; k++)
		drop(w, w->window[k]);
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned long long arg(int argc, char **argv, int i, unsigned long long dflt)
{
	if (argc <= i)
		return dflt;
	char *end;
	unsigned long long v = strtoull(argv[i], &end, 10);
	if (*end || v == 0) {
		fprintf(stderr, "usage: malloc_storm [THREADS [OPS [RING]]]\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned threads = (unsigned)arg(argc, argv, 1, 2);
	uint64_t ops = arg(argc, argv, 2, DEFAULT_OPS);
	unsigned ring = (unsigned)arg(argc, argv, 3, DEFAULT_RING);
	if (threads > MAX_THREADS) {
		fprintf(stderr, "malloc_storm: at most %d threads\n", MAX_THREADS);
		return 2;
	}
	static struct worker ws[MAX_THREADS];
	for (unsigned t = 0; t < threads; t++) {
		ws[t].index = t;
		ws[t].ops = ops;
		ws[t].ring_len = ring;
		ws[t].rng = 0x9e3779b97f4a7c15ull * (t + 1);
		/* The ring itself is not part of the storm: allocated before the
		 * clock starts and freed after it stops: one calloc and one
		 * free per thread outside the count. */
		ws[t].ring = calloc(ring, sizeof *ws[t].ring);
		if (!ws[t].ring) {
			perror("malloc_storm: calloc");
			return 1;
		}
	}
	uint64_t t0 = now_ns();
	for (unsigned t = 0; t < threads; t++) {
		if (pthread_create(&ws[t].thread, NULL, work, &ws[t]) != 0) {
			fprintf(stderr, "malloc_storm: pthread_create failed\n");
			return 1;
		}
	}
	uint64_t sum = 0, mallocs = 0, frees = 0;
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(ws[t].thread, NULL);
		sum = sum * 0x9e3779b97f4a7c15ull + ws[t].sum;
		mallocs += ws[t].mallocs;
		frees += ws[t].frees;
	}
	uint64_t t1 = now_ns();
	for (unsigned t = 0; t < threads; t++)
		free(ws[t].ring);
	printf("checksum %016llx mallocs %llu frees %llu seconds %.3f\n", (unsigned long long)sum,
	       (unsigned long long)mallocs, (unsigned long long)frees, (double)(t1 - t0) / 1e9);
	return 0;
}
