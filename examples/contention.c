/* contention.c — demo program: four workers fight over one hot mutex; trace it with `gotrace run`.
 *
 * The main thread fills a small condvar-protected queue with jobs. Four
 * threads (worker_main, named "worker-0".."worker-3") take jobs, crunch each
 * one outside any lock, then fold the result into a shared stats table under
 * one hot mutex with a deliberately long critical section. worker-3 also naps
 * (nanosleep) every few jobs. What a trace shows: sync blocking on stats_lock
 * in record_result, queue waits in queue_pop/queue_push, and sleep blocks.
 *
 * The summary depends only on the jobs, never on the schedule: every update
 * is an addition, so the same lines print on every run.
 *
 *   cc -g -O2 -pthread -o contention examples/contention.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NWORKERS 4
#define NJOBS 4000
#define QUEUE_CAP 16
#define NBUCKETS 64
#define CRUNCH_ROUNDS 40000   /* work per job outside the lock */
#define RECORD_ROUNDS 60000   /* work per job inside the hot lock */
#define NAP_EVERY 25          /* worker-3 sleeps after this many jobs */
#define NAP_NS 2000000        /* for 2ms */

struct job {
	uint32_t id;
	uint32_t seed;
};

/* The job queue: a ring guarded by queue_lock, with two condition variables. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t queue_not_full = PTHREAD_COND_INITIALIZER;
static struct job queue[QUEUE_CAP];
static unsigned queue_head, queue_len;
static bool queue_closed;

/* The shared stats table: the hot lock. */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t stats_bucket[NBUCKETS];
static uint64_t stats_jobs;

/* mix is a 32-bit integer hash (xorshift-multiply), the unit of "work". */
static inline uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static void queue_push(struct job j)
{
	pthread_mutex_lock(&queue_lock);
	while (queue_len == QUEUE_CAP)
		pthread_cond_wait(&queue_not_full, &queue_lock);
	queue[(queue_head + queue_len) % QUEUE_CAP] = j;
	queue_len++;
	pthread_cond_signal(&queue_not_empty);
	pthread_mutex_unlock(&queue_lock);
}

/* queue_pop takes the next job; false once the queue is closed and empty. */
static bool queue_pop(struct job *j)
{
	pthread_mutex_lock(&queue_lock);
	while (queue_len == 0 && !queue_closed)
		pthread_cond_wait(&queue_not_empty, &queue_lock);
	bool got = queue_len > 0;
	if (got) {
		*j = queue[queue_head];
		queue_head = (queue_head + 1) % QUEUE_CAP;
		queue_len--;
		pthread_cond_signal(&queue_not_full);
	}
	pthread_mutex_unlock(&queue_lock);
	return got;
}

static void queue_close(void)
{
	pthread_mutex_lock(&queue_lock);
	queue_closed = true;
	pthread_cond_broadcast(&queue_not_empty);
	pthread_mutex_unlock(&queue_lock);
}

/* crunch is the part of a job that needs no lock. */
static uint32_t crunch(const struct job *j)
{
	uint32_t x = j->seed;
	for (int i = 0; i < CRUNCH_ROUNDS; i++)
		x = mix(x + (uint32_t)i);
	return x;
}

/* record_result folds one result into the stats table. The whole loop runs
 * under stats_lock on purpose: this is the contention the demo shows. */
static void record_result(uint32_t result)
{
	pthread_mutex_lock(&stats_lock);
	uint32_t x = result;
	for (int i = 0; i < RECORD_ROUNDS; i++) {
		x = mix(x);
		stats_bucket[x % NBUCKETS] += x & 0xff;
	}
	stats_jobs++;
	pthread_mutex_unlock(&stats_lock);
}

static void nap(void)
{
	struct timespec ts = { 0, NAP_NS };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void *worker_main(void *arg)
{
	int id = (int)(intptr_t)arg;
	char name[16];
	struct job j;
	unsigned done = 0;

	snprintf(name, sizeof name, "worker-%d", id);
	pthread_setname_np(pthread_self(), name);
	while (queue_pop(&j)) {
		record_result(crunch(&j));
		if (id == NWORKERS - 1 && ++done % NAP_EVERY == 0)
			nap();
	}
	return NULL;
}

int main(void)
{
	pthread_t workers[NWORKERS];

	for (int i = 0; i < NWORKERS; i++) {
		int err = pthread_create(&workers[i], NULL, worker_main, (void *)(intptr_t)i);
		if (err != 0) {
			fprintf(stderr, "contention: pthread_create failed (error %d)\n", err);
			return 1;
		}
	}
	for (uint32_t i = 0; i < NJOBS; i++)
		queue_push((struct job){ .id = i, .seed = mix(i + 1) });
	queue_close();
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(workers[i], NULL);

	uint64_t total = 0, checksum = 0;
	int busiest = 0;
	for (int i = 0; i < NBUCKETS; i++) {
		total += stats_bucket[i];
		checksum = checksum * 31 + stats_bucket[i];
		if (stats_bucket[i] > stats_bucket[busiest])
			busiest = i;
	}
	printf("contention: %d workers processed %llu jobs\n", NWORKERS,
	       (unsigned long long)stats_jobs);
	printf("contention: stats total %llu, checksum %016llx, busiest bucket %d\n",
	       (unsigned long long)total, (unsigned long long)checksum, busiest);
	return stats_jobs == NJOBS ? 0 : 1;
}
