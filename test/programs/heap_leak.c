/* heap_leak.c — a heap with known figures, for `gotrace heap`:
 *
 *   leak_fn      leaks N = 100 objects of S = 48 bytes (4800 bytes live at exit)
 *   churn_fn     M = 5000 malloc/free pairs of 32 bytes, each block freed 16
 *                allocations later (so frees cross generation boundaries), with
 *                a 15 ms pause half-way
 *   realloc_fn   malloc 16, realloc to 64 and 4096, free
 *   calloc_fn    calloc 10 x 24, free
 *   memalign_fn  posix_memalign 64-aligned 200 bytes, free
 *
 * Each function allocates nothing else, and is never inlined or cloned, so
 * its name is the allocation site. Prints a checksum (same traced or not). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 100
#define S 48
#define M 5000
#define RING 16

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noipa))
#endif

static void *volatile sink;
static unsigned long sum;

SITE void leak_fn(void)
{
	for (int i = 0; i < N; i++) {
		unsigned char *p = malloc(S);
		if (!p)
			exit(2);
		memset(p, i, S);
		sum += p[S - 1];
		sink = p; /* never freed */
	}
}

SITE void churn_fn(void)
{
	unsigned char *ring[RING] = { 0 };
	for (int i = 0; i < M; i++) {
		if (i == M / 2)
			usleep(15000);
		unsigned char *p = malloc(32);
		if (!p)
			exit(2);
		p[0] = (unsigned char)i;
		sum += p[0];
		free(ring[i % RING]);
		ring[i % RING] = p;
	}
	for (int i = 0; i < RING; i++)
		free(ring[i]);
}

SITE void realloc_fn(void)
{
	char *p = malloc(16);
	if (!p)
		exit(2);
	memset(p, 1, 16);
	char *q = realloc(p, 64);
	if (!q)
		exit(2);
	p = realloc(q, 4096);
	if (!p)
		exit(2);
	sum += (unsigned char)p[15];
	free(p);
}

SITE void calloc_fn(void)
{
	int *p = calloc(10, 24);
	if (!p)
		exit(2);
	sum += (unsigned long)p[9];
	sink = p;
	free(p);
}

SITE void memalign_fn(void)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, 200) != 0 || ((uintptr_t)p & 63) != 0)
		exit(2);
	sink = p;
	free(p);
}

int main(void)
{
	leak_fn();
	churn_fn();
	realloc_fn();
	calloc_fn();
	memalign_fn();
	printf("heap_leak: checksum %lu\n", sum);
	return 0;
}
