/* micro.c — microbenchmarks for test/bench/run.py: the cost of one
 * interposed call, run once untraced and once under LD_PRELOAD.
 *
 *   micro MODE ITERATIONS
 *
 * Each mode times ITERATIONS rounds of one operation with CLOCK_MONOTONIC
 * around a tight loop and prints one line, "MODE ns_per_op N", where an op
 * is one round:
 *
 *   mutex    pthread_mutex_lock + pthread_mutex_unlock on an uncontended
 *            mutex (two interposed calls that record nothing)
 *   mutex_mt the same with a second, idle thread started first: glibc then
 *            takes its multi-threaded paths (atomic instructions) untraced
 *            too, as it does traced, where the tracer's flusher thread is
 *            always there; the difference is the wrappers' own cost
 *   yield    sched_yield, called DEPTH (8) frames of noinline recursion deep
 *            so that an unwinder has real frames to walk (two events)
 *   malloc   malloc of 16-271 bytes + free, DEPTH frames deep (traced with
 *            the defaults: two heap events with the allocation's stack)
 *   mmap     an anonymous 64 KiB mmap + munmap, DEPTH frames deep (traced
 *            with the defaults: SpanAlloc with the mapping's stack and
 *            SpanFree, docs/heap.md "Mapped memory")
 *
 * The bench_* functions stay out of line so that a profiler can count just
 * the timed loop (valgrind --tool=callgrind --toggle-collect=bench_yield).
 *
 *   cc -O2 -g -pthread -fno-builtin -o micro test/bench/micro.c
 *
 * (-fno-builtin: GCC may drop a malloc whose block is freed unused.) */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEPTH 8

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void report(const char *mode, uint64_t n, uint64_t t0, uint64_t t1)
{
	printf("%s %.3f %llu\n", mode, (double)(t1 - t0) / (double)n, (unsigned long long)n);
}

/* ---- mutex: uncontended lock + unlock ---- */

static pthread_mutex_t lone = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static int bench_mutex(uint64_t n)
{
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		if (pthread_mutex_lock(&lone) != 0 || pthread_mutex_unlock(&lone) != 0)
			return 1;
	}
	uint64_t t1 = now_ns();
	report("mutex", n, t0, t1);
	return 0;
}

/* ---- mutex_mt: the same, in a process with a second (idle) thread ---- */

static void *idle_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

__attribute__((noinline)) static int bench_mutex_mt(uint64_t n)
{
	pthread_t th;
	if (pthread_create(&th, NULL, idle_thread, NULL) != 0)
		return 1;
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		if (pthread_mutex_lock(&lone) != 0 || pthread_mutex_unlock(&lone) != 0)
			return 1;
	}
	uint64_t t1 = now_ns();
	report("mutex_mt", n, t0, t1);
	return 0;
}

/* ---- yield: sched_yield a few frames deep ---- */

/* descend recurses `depth` frames and yields at the bottom. The empty asm
 * after the call keeps it from becoming a tail call (which would leave no
 * frame behind), noinline/noclone keep each level a real frame. */
__attribute__((noinline, noclone)) static int descend(int depth)
{
	int r;
	if (depth == 0)
		r = sched_yield();
	else
		r = descend(depth - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r;
}

__attribute__((noinline)) static int bench_yield(uint64_t n)
{
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		if (descend(DEPTH - 1) != 0)
			return 1;
	uint64_t t1 = now_ns();
	report("yield", n, t0, t1);
	return 0;
}

/* ---- malloc: one malloc + free pair a few frames deep ---- */

__attribute__((noinline, noclone)) static int alloc_free(int depth, size_t size)
{
	int r;
	if (depth == 0) {
		char *volatile p = malloc(size);
		if (!p)
			return 1;
		p[0] = 1;
		free(p);
		r = 0;
	} else {
		r = alloc_free(depth - 1, size);
	}
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r;
}

__attribute__((noinline)) static int bench_malloc(uint64_t n)
{
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		if (alloc_free(DEPTH - 1, 16 + (size_t)(i & 255)) != 0)
			return 1;
	uint64_t t1 = now_ns();
	report("malloc", n, t0, t1);
	return 0;
}

/* ---- mmap: one anonymous mapping made and unmapped a few frames deep ---- */

#include <sys/mman.h>

__attribute__((noinline, noclone)) static int map_unmap(int depth)
{
	int r;
	if (depth == 0) {
		char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		r = p == MAP_FAILED || munmap(p, 65536) != 0;
	} else {
		r = map_unmap(depth - 1);
	}
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r;
}

__attribute__((noinline)) static int bench_mmap(uint64_t n)
{
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		if (map_unmap(DEPTH - 1) != 0)
			return 1;
	uint64_t t1 = now_ns();
	report("mmap", n, t0, t1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: micro mutex|mutex_mt|yield|malloc|mmap ITERATIONS\n");
		return 2;
	}
	uint64_t n = strtoull(argv[2], NULL, 10);
	if (n == 0) {
		fprintf(stderr, "micro: ITERATIONS must be a positive number\n");
		return 2;
	}
	if (strcmp(argv[1], "mutex") == 0)
		return bench_mutex(n);
	if (strcmp(argv[1], "mutex_mt") == 0)
		return bench_mutex_mt(n);
	if (strcmp(argv[1], "yield") == 0)
		return bench_yield(n);
	if (strcmp(argv[1], "malloc") == 0)
		return bench_malloc(n);
	if (strcmp(argv[1], "mmap") == 0)
		return bench_mmap(n);
	fprintf(stderr, "micro: unknown mode %s\n", argv[1]);
	return 2;
}
