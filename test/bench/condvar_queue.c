/* condvar_queue.c — a producer/consumer queue for test/bench/run.py.
 *
 *   condvar_queue [PAIRS [ITEMS [CAPACITY]]]
 *
 * PAIRS producers and PAIRS consumers (default 2 + 2) share one bounded
 * ring of CAPACITY slots (default 16) guarded by one mutex and two
 * condition variables (not empty, not full). Each producer puts ITEMS
 * (default 1,000,000) numbered items; consumers take items until every
 * producer is done and the ring is empty, and fold what they take into a
 * sum. A full ring makes producers wait, an empty one consumers, so most
 * calls to pthread_cond_wait really wait and most signals wake someone.
 *
 * It prints one line, the same for every run with the same arguments:
 *
 *   condvar_queue pairs P items N sum HEX
 *
 *   cc -O2 -g -pthread -o condvar_queue test/bench/condvar_queue.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PAIRS 8
#define MAX_CAPACITY 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static uint64_t ring[MAX_CAPACITY];
static unsigned capacity, head, count, producing;
static uint64_t items;

struct consumer {
	pthread_t thread;
	uint64_t sum, taken;
};

static uint64_t mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

static void *produce(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg * items;
	for (uint64_t i = 0; i < items; i++) {
		uint64_t v = mix(base + i);
		pthread_mutex_lock(&lock);
		while (count == capacity)
			pthread_cond_wait(&not_full, &lock);
		ring[(head + count) % capacity] = v;
		count++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	producing--;
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *consume(void *arg)
{
	struct consumer *c = arg;
	for (;;) {
		pthread_mutex_lock(&lock);
		while (count == 0 && producing > 0)
			pthread_cond_wait(&not_empty, &lock);
		if (count == 0) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		uint64_t v = ring[head];
		head = (head + 1) % capacity;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
		/* order-independent fold: the sum of the items' hashes */
		c->sum += mix(v);
		c->taken++;
	}
}

int main(int argc, char **argv)
{
	unsigned pairs = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2;
	items = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
	capacity = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 16;
	if (pairs == 0 || pairs > MAX_PAIRS || items == 0 || capacity == 0 || capacity > MAX_CAPACITY) {
		fprintf(stderr, "usage: condvar_queue [PAIRS (1-%d) [ITEMS [CAPACITY (1-%d)]]]\n",
			MAX_PAIRS, MAX_CAPACITY);
		return 2;
	}
	producing = pairs;
	pthread_t producers[MAX_PAIRS];
	static struct consumer consumers[MAX_PAIRS];
	for (unsigned p = 0; p < pairs; p++) {
		if (pthread_create(&consumers[p].thread, NULL, consume, &consumers[p]) != 0 ||
		    pthread_create(&producers[p], NULL, produce, (void *)(uintptr_t)p) != 0) {
			fprintf(stderr, "condvar_queue: pthread_create failed\n");
			return 1;
		}
	}
	uint64_t sum = 0, taken = 0;
	for (unsigned p = 0; p < pairs; p++)
		pthread_join(producers[p], NULL);
	for (unsigned p = 0; p < pairs; p++) {
		pthread_join(consumers[p].thread, NULL);
		sum += consumers[p].sum;
		taken += consumers[p].taken;
	}
	if (taken != pairs * items) {
		fprintf(stderr, "condvar_queue: %llu items taken, %llu put\n",
			(unsigned long long)taken, (unsigned long long)(pairs * items));
		return 1;
	}
	printf("condvar_queue pairs %u items %llu sum %016llx\n", pairs,
	       (unsigned long long)items, (unsigned long long)sum);
	return 0;
}
