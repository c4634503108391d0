/* mutex_storm.c — a lock-heavy workload: what tracing costs a program whose
 * threads fight over a few mutexes with short critical sections.
 *
 *   mutex_storm [THREADS [ITERS [LOCKS [WORK]]]]
 *
 * THREADS threads (default 4, at most 16) each do ITERS rounds (default
 * 4,000,000: about 1 s untraced on 2 cores, so that the tracer's fixed
 * costs (start, symbolizing at exit) do not dominate). A round picks one of LOCKS mutexes (default 4) with a
 * per-thread xorshift generator, locks it, updates the counters it guards
 * (a few instructions), unlocks it, then computes WORK (default 20) xorshift
 * steps outside any lock. Most locks are uncontended (the interposed calls
 * record nothing); the rest wait (a GoBlock ... GoUnblock + GoStart each,
 * with a stack, when traced).
 *
 * It prints one line:
 *
 *   checksum HEX rounds N seconds S
 *
 * The checksum depends only on the arguments (sums of what each critical
 * section added), so traced and untraced runs must agree. S is the wall
 * time of the threads' work (CLOCK_MONOTONIC).
 *
 *   cc -O2 -g -pthread -o mutex_storm test/bench/mutex_storm.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 16
#define MAX_LOCKS 64

static struct {
	pthread_mutex_t m;
	uint64_t count, sum;
	char pad[64];
} locks[MAX_LOCKS];

static unsigned nlocks = 4, work_steps = 20;
static uint64_t iters = 4000000;

static uint64_t next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

__attribute__((noinline)) static void critical(unsigned k, uint64_t v)
{
	pthread_mutex_lock(&locks[k].m);
	locks[k].count++;
	locks[k].sum += v;
	pthread_mutex_unlock(&locks[k].m);
}

static void *worker(void *arg)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull * ((uintptr_t)arg + 1), acc = 0;
	for (uint64_t i = 0; i < iters; i++) {
		uint64_t r = next(&rng);
		critical((unsigned)(r >> 32) % nlocks, r & 0xffff);
		for (unsigned w = 0; w < work_steps; w++)
			acc += next(&rng) >> 60;
	}
	return (void *)(uintptr_t)acc;
}

static unsigned long long arg(int argc, char **argv, int i, unsigned long long dflt)
{
	if (argc <= i)
		return dflt;
	char *end;
	unsigned long long v = strtoull(argv[i], &end, 10);
	if (*end || (v == 0 && i != 4)) {
		fprintf(stderr, "usage: mutex_storm [THREADS [ITERS [LOCKS [WORK]]]]\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned threads = (unsigned)arg(argc, argv, 1, 4);
	iters = arg(argc, argv, 2, iters);
	nlocks = (unsigned)arg(argc, argv, 3, nlocks);
	work_steps = (unsigned)arg(argc, argv, 4, work_steps);
	if (threads > MAX_THREADS || nlocks > MAX_LOCKS) {
		fprintf(stderr, "mutex_storm: at most %d threads and %d locks\n", MAX_THREADS, MAX_LOCKS);
		return 2;
	}
	for (unsigned k = 0; k < nlocks; k++)
		pthread_mutex_init(&locks[k].m, NULL);
	pthread_t th[MAX_THREADS];
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned t = 0; t < threads; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t) != 0) {
			fprintf(stderr, "mutex_storm: pthread_create failed\n");
			return 1;
		}
	uint64_t acc = 0;
	for (unsigned t = 0; t < threads; t++) {
		void *r;
		pthread_join(th[t], &r);
		acc += (uintptr_t)r;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	uint64_t sum = acc, rounds = 0;
	for (unsigned k = 0; k < nlocks; k++) {
		sum = sum * 0x100000001b3ull + locks[k].sum;
		rounds += locks[k].count;
	}
	printf("checksum %016llx rounds %llu seconds %.3f\n", (unsigned long long)sum, (unsigned long long)rounds,
	       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	return rounds == (uint64_t)threads * iters ? 0 : 1;
}
