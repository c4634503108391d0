/* thread_churn.c — short-lived threads for test/bench/run.py.
 *
 *   thread_churn [SPAWNERS [THREADS [BATCH]]]
 *
 * SPAWNERS threads (default 2) each create THREADS short-lived threads
 * (default 10,000), BATCH (default 4) at a time: create BATCH, join them
 * all, repeat. Each short-lived thread does a little arithmetic on its
 * argument and returns it, so creation, start, exit and join dominate.
 *
 * It prints one line, the same for every run with the same arguments:
 *
 *   thread_churn spawners S threads N sum HEX
 *
 *   cc -O2 -g -pthread -o thread_churn test/bench/thread_churn.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_SPAWNERS 8
#define MAX_BATCH 64

static uint64_t per_spawner, batch;

static void *leaf(void *arg)
{
	uint64_t v = (uint64_t)(uintptr_t)arg;
	for (int k = 0; k < 64; k++)
		v = v * 6364136223846793005ull + 1442695040888963407ull;
	return (void *)(uintptr_t)v;
}

static void *spawner(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg * per_spawner, sum = 0;
	pthread_t ts[MAX_BATCH];
	for (uint64_t i = 0; i < per_spawner; i += batch) {
		uint64_t n = per_spawner - i < batch ? per_spawner - i : batch;
		for (uint64_t k = 0; k < n; k++) {
			if (pthread_create(&ts[k], NULL, leaf, (void *)(uintptr_t)(base + i + k)) != 0) {
				fprintf(stderr, "thread_churn: pthread_create failed\n");
				exit(1);
			}
		}
		for (uint64_t k = 0; k < n; k++) {
			void *r;
			pthread_join(ts[k], &r);
			sum += (uint64_t)(uintptr_t)r;
		}
	}
	return (void *)(uintptr_t)sum;
}

int main(int argc, char **argv)
{
	unsigned spawners = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2;
	per_spawner = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000;
	batch = argc > 3 ? strtoull(argv[3], NULL, 10) : 4;
	if (spawners == 0 || spawners > MAX_SPAWNERS || per_spawner == 0 || batch == 0 || batch > MAX_BATCH) {
		fprintf(stderr, "usage: thread_churn [SPAWNERS (1-%d) [THREADS [BATCH (1-%d)]]]\n",
			MAX_SPAWNERS, MAX_BATCH);
		return 2;
	}
	pthread_t ts[MAX_SPAWNERS];
	for (unsigned s = 0; s < spawners; s++) {
		if (pthread_create(&ts[s], NULL, spawner, (void *)(uintptr_t)s) != 0) {
			fprintf(stderr, "thread_churn: pthread_create failed\n");
			return 1;
		}
	}
	uint64_t sum = 0;
	for (unsigned s = 0; s < spawners; s++) {
		void *r;
		pthread_join(ts[s], &r);
		sum += (uint64_t)(uintptr_t)r;
	}
	printf("thread_churn spawners %u threads %llu sum %016llx\n", spawners,
	       (unsigned long long)per_spawner, (unsigned long long)sum);
	return 0;
}
