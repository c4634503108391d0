/* dl_cycle3.c — a three-thread cycle (issue 16, item 3): ring_N holds lock
 * N and then takes lock N+1 (mod 3), after a barrier that makes every
 * thread hold its first lock. main prints "deadlocked" and joins them. */
#include <pthread.h>
#include <stdio.h>

#include "check.h"

static pthread_mutex_t locks[3] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
				    PTHREAD_MUTEX_INITIALIZER };
static pthread_barrier_t all;

NOINLINE static void take(int i)
{
	pthread_mutex_lock(&locks[i]);
	pthread_barrier_wait(&all);
	pthread_mutex_lock(&locks[(i + 1) % 3]); /* WAIT take */
	pthread_mutex_unlock(&locks[(i + 1) % 3]);
	pthread_mutex_unlock(&locks[i]);
}

NOINLINE static void *ring_0(void *arg) { (void)arg; take(0); return NULL; }
NOINLINE static void *ring_1(void *arg) { (void)arg; take(1); return NULL; }
NOINLINE static void *ring_2(void *arg) { (void)arg; take(2); return NULL; }

int main(void)
{
	void *(*fn[3])(void *) = { ring_0, ring_1, ring_2 };
	pthread_t t[3];
	CHECK(pthread_barrier_init(&all, NULL, 4) == 0, "barrier");
	for (int i = 0; i < 3; i++)
		CHECK(pthread_create(&t[i], NULL, fn[i], NULL) == 0, "create");
	pthread_barrier_wait(&all);
	printf("deadlocked\n");
	fflush(stdout);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("not deadlocked\n");
	return 0;
}
