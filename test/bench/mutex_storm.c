/* mutex_storm.c — a lock-heavy workload for test/bench/run.py.
 *
 *   mutex_storm [THREADS [ROUNDS]]
 *
 * THREADS threads (default 4) each do ROUNDS rounds (default 5,000,000).
 * A round picks one of NLOCKS (4) shared mutexes from a per-thread
 * xorshift generator, locks it, updates the counter it guards (a short
 * critical section: about fifty instructions), unlocks it, then does a
 * little work outside any lock. With 4 threads and 4 locks a fair share of
 * the lock calls find the mutex taken and wait, the rest do not.
 *
 * It prints one line, the same for every run with the same arguments:
 *
 *   mutex_storm threads T rounds R checksum HEX
 *
 *   cc -O2 -g -pthread -o mutex_storm test/bench/mutex_storm.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NLOCKS 4
#define MAX_THREADS 16

static struct slot {
	pthread_mutex_t lock;
	uint64_t count;
	uint64_t mix;
	char pad[64];
} slots[NLOCKS];

struct worker {
	pthread_t thread;
	unsigned index;
	uint64_t rounds;
	uint64_t local;
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

__attribute__((noinline)) static void critical(struct slot *s, uint64_t v)
{
	pthread_mutex_lock(&s->lock);
	s->count++;
	for (int k = 0; k < 16; k++)
		s->mix = (s->mix ^ (v + (uint64_t)k)) * 0x100000001b3ull;
	pthread_mutex_unlock(&s->lock);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t rng = 0x9e3779b97f4a7c15ull * (w->index + 1);
	for (uint64_t i = 0; i < w->rounds; i++) {
		uint64_t r = next(&rng);
		critical(&slots[r % NLOCKS], r >> 8);
		/* outside the lock: a little private work */
		for (int k = 0; k < 16; k++)
			w->local = w->local * 31 + (r >> k);
		__asm__ volatile("" : "+r"(w->local));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 4;
	uint64_t rounds = argc > 2 ? strtoull(argv[2], NULL, 10) : 5000000;
	if (threads == 0 || threads > MAX_THREADS || rounds == 0) {
		fprintf(stderr, "usage: mutex_storm [THREADS (1-%d) [ROUNDS]]\n", MAX_THREADS);
		return 2;
	}
	static struct worker ws[MAX_THREADS];
	for (int k = 0; k < NLOCKS; k++)
		pthread_mutex_init(&slots[k].lock, NULL);
	for (unsigned t = 0; t < threads; t++) {
		ws[t].index = t;
		ws[t].rounds = rounds;
		if (pthread_create(&ws[t].thread, NULL, work, &ws[t]) != 0) {
			fprintf(stderr, "mutex_storm: pthread_create failed\n");
			return 1;
		}
	}
	uint64_t sum = 0;
	for (unsigned t = 0; t < threads; t++) {
		pthread_join(ws[t].thread, NULL);
		sum = sum * 0x9e3779b97f4a7c15ull + ws[t].local;
	}
	/* The per-lock counts are deterministic (each thread's choices are);
	 * the mix depends on the interleaving, so it is left out. */
	uint64_t total = 0;
	for (int k = 0; k < NLOCKS; k++) {
		sum = sum * 0x100000001b3ull + slots[k].count;
		total += slots[k].count;
	}
	if (total != threads * rounds) {
		fprintf(stderr, "mutex_storm: %llu rounds counted, %llu expected\n",
			(unsigned long long)total, (unsigned long long)(threads * rounds));
		return 1;
	}
	printf("mutex_storm threads %u rounds %llu checksum %016llx\n", threads,
	       (unsigned long long)rounds, (unsigned long long)sum);
	return 0;
}
