/* spans.c — mapped memory for the span events (docs/heap.md, "Mapped
 * memory"):
 *
 *   spans map     a 64 MiB anonymous mapping made in map_region, touched,
 *                 held 30 ms (so a short generation period restates it in
 *                 a snapshot), then unmapped; then a 16-page mapping made in
 *                 map_trim whose first and last pages are unmapped (the 14
 *                 pages in the middle stay, then go); a 4-page mapping moved
 *                 and grown to 8 pages by mremap in remap_grow; a PROT_NONE
 *                 reservation of 1 MiB (no span) with 2 pages in it made
 *                 accessible by a MAP_FIXED mapping (a span) and 4 more by
 *                 mprotect in protect_pages (a span), 2 of which are made
 *                 PROT_NONE again, then all unmapped; a 2-page file
 *                 mapping (no span)
 *   spans hold    a 64 MiB anonymous mapping made in map_region, held
 *                 while 60 short naps and sched_yield calls go by (a
 *                 generation switch at each with a short period), then
 *                 unmapped
 *   spans stack   a thread created with a 1 MiB stack, which sleeps 5 ms
 *   spans brk     the break moved by sbrk in grow_brk: up 64 KiB, up 64 KiB
 *                 more, back down 64 KiB (the brk heap's span each time)
 *   spans malloc  64 blocks of 1..64 MiB from malloc, freed (with jemalloc
 *                 as the allocator, its arenas are mappings made inside it)
 *
 * Prints what it did (no addresses). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define PG 4096

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

NOINLINE static char *map_region(size_t n)
{
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap");
	return p;
}

NOINLINE static char *map_trim(void)
{
	char *p = mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap");
	return p;
}

NOINLINE static char *remap_grow(char *p)
{
	char *q = mremap(p, 4 * PG, 8 * PG, MREMAP_MAYMOVE);
	CHECK(q != MAP_FAILED, "mremap");
	return q;
}

NOINLINE static void protect_pages(char *at, size_t n, int prot)
{
	CHECK(mprotect(at, n, prot) == 0, "mprotect");
}

NOINLINE static char *commit_pages(char *at)
{
	char *p = mmap(at, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(p == at, "mmap MAP_FIXED");
	return p;
}

static int do_map(void)
{
	size_t n = (size_t)64 << 20;
	char *p = map_region(n);
	for (size_t i = 0; i < n; i += 1 << 20)
		p[i] = 1;
	protect_pages(p, PG, PROT_READ); /* outside reservations: still a span */
	protect_pages(p, PG, PROT_READ | PROT_WRITE);
	nap(30);
	CHECK(munmap(p, n) == 0, "munmap");

	char *t = map_trim();
	memset(t, 2, 16 * PG);
	CHECK(munmap(t, PG) == 0, "munmap head");
	CHECK(munmap(t + 15 * PG, PG) == 0, "munmap tail");
	CHECK(munmap(t + PG, 14 * PG) == 0, "munmap middle");

	char *r = map_region(4 * PG);
	r[0] = 3;
	r = remap_grow(r);
	CHECK(r[0] == 3, "mremap kept the data");
	CHECK(munmap(r, 8 * PG) == 0, "munmap remapped");

	char *res = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(res != MAP_FAILED, "mmap reservation");
	char *c = commit_pages(res + 16 * PG);
	c[0] = 4;
	protect_pages(res + 64 * PG, 4 * PG, PROT_READ | PROT_WRITE);
	res[64 * PG] = 5;
	protect_pages(res + 64 * PG, 2 * PG, PROT_NONE);
	CHECK(munmap(res, 1 << 20) == 0, "munmap reservation");

	FILE *f = tmpfile();
	CHECK(f != NULL, "tmpfile");
	CHECK(ftruncate(fileno(f), 2 * PG) == 0, "ftruncate");
	char *m = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
	CHECK(m != MAP_FAILED, "mmap file");
	CHECK(munmap(m, 2 * PG) == 0, "munmap file");
	fclose(f);
	puts("mapped 64 MiB, trimmed 16 pages, remapped 4 -> 8 pages, committed 2 + 4 reserved pages, mapped a file");
	return 0;
}

static int do_hold(void)
{
	size_t n = (size_t)64 << 20;
	char *p = map_region(n);
	p[0] = 1;
	for (int i = 0; i < 60; i++) {
		nap(2);
		sched_yield();
	}
	CHECK(munmap(p, n) == 0, "munmap");
	puts("held 64 MiB through 60 naps");
	return 0;
}

NOINLINE static void *stack_worker(void *arg)
{
	(void)arg;
	nap(5);
	return NULL;
}

static int do_stack(void)
{
	pthread_attr_t a;
	pthread_t th;
	CHECK(pthread_attr_init(&a) == 0, "attr");
	CHECK(pthread_attr_setstacksize(&a, 1 << 20) == 0, "stacksize");
	CHECK(pthread_create(&th, &a, stack_worker, NULL) == 0, "pthread_create");
	CHECK(pthread_join(th, NULL) == 0, "pthread_join");
	puts("thread with a 1 MiB stack joined");
	return 0;
}

NOINLINE static void grow_brk(intptr_t n)
{
	CHECK(sbrk(n) != (void *)-1, "sbrk");
}

static int do_brk(void)
{
	grow_brk(64 << 10);
	grow_brk(64 << 10);
	grow_brk(-(64 << 10));
	puts("break moved up 128 KiB and back 64 KiB");
	return 0;
}

static int do_malloc(void)
{
	void *v[64];
	for (int i = 0; i < 64; i++) {
		v[i] = malloc((size_t)(i + 1) << 20);
		CHECK(v[i] != NULL, "malloc");
		memset(v[i], 1, PG);
	}
	for (int i = 0; i < 64; i++)
		free(v[i]);
	puts("64 blocks of 1..64 MiB allocated and freed");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "map";
	if (strcmp(mode, "map") == 0)
		return do_map();
	if (strcmp(mode, "stack") == 0)
		return do_stack();
	if (strcmp(mode, "hold") == 0)
		return do_hold();
	if (strcmp(mode, "malloc") == 0)
		return do_malloc();
	if (strcmp(mode, "brk") == 0)
		return do_brk();
	fprintf(stderr, "usage: spans map|hold|stack|malloc|brk\n");
	return 2;
}
