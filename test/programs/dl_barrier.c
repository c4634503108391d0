/* dl_barrier.c — every thread asleep at a barrier that waits for one more
 * thread than the program has (issue 16, item 3): two workers and main
 * wait at a barrier of four. main prints "deadlocked" just before. */
#include <pthread.h>
#include <stdio.h>

#include "check.h"

static pthread_barrier_t four;

NOINLINE static void *arrive(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&four); /* WAIT arrive */
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	CHECK(pthread_barrier_init(&four, NULL, 4) == 0, "barrier");
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, arrive, NULL) == 0, "create");
	printf("deadlocked\n");
	fflush(stdout);
	pthread_barrier_wait(&four); /* WAIT main */
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("not deadlocked\n");
	return 0;
}
