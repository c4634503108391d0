/* release_barrier: the last arrival at a barrier releases the others
 * (issue 16 item 1).
 *
 * A barrier of 3: early_main (two threads) arrive at once and wait;
 * late_main sleeps ROUND_MS then arrives last from arrive_last, a function
 * of its own. ROUNDS rounds, so a later round's arrivals meet the previous
 * round's waiters still leaving. Only main prints; exits 0 ("all checks
 * passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

#define ROUNDS 3
#define ROUND_MS 100

static pthread_barrier_t bar;
static int serial; /* PTHREAD_BARRIER_SERIAL_THREAD returns, over all rounds */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		CHECK(errno == EINTR, "nanosleep");
}

static void arrived(int r)
{
	CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD, "pthread_barrier_wait");
	if (r == PTHREAD_BARRIER_SERIAL_THREAD) {
		pthread_mutex_lock(&mu);
		serial++;
		pthread_mutex_unlock(&mu);
	}
}

static NOINLINE void arrive_last(void)
{
	arrived(pthread_barrier_wait(&bar));
}

static NOINLINE void *late_main(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		sleep_ms(ROUND_MS);
		arrive_last();
	}
	return arg;
}

static NOINLINE void *early_main(void *arg)
{
	for (int i = 0; i < ROUNDS; i++)
		arrived(pthread_barrier_wait(&bar));
	return arg;
}

int main(void)
{
	pthread_t t[3];
	CHECK(pthread_barrier_init(&bar, NULL, 3) == 0, "pthread_barrier_init");
	CHECK(pthread_create(&t[0], NULL, early_main, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&t[1], NULL, early_main, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&t[2], NULL, late_main, NULL) == 0, "pthread_create");
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	CHECK(serial == ROUNDS, "one serial thread per round");
	CHECK(pthread_barrier_destroy(&bar) == 0, "pthread_barrier_destroy");
	printf("release_barrier: %d rounds, all checks passed\n", ROUNDS);
	return 0;
}
