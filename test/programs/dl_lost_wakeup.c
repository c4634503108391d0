/* dl_lost_wakeup.c — a lost wake-up (issue 16, item 3): main signals the
 * condition variable before anyone waits, then two consumers wait on it
 * without a predicate, and main joins them: every thread is asleep in a
 * wait only another thread could end. main prints "deadlocked" before its
 * joins. */
#include <pthread.h>
#include <stdio.h>

#include "check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t started;

NOINLINE static void *consume(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	pthread_barrier_wait(&started);
	pthread_cond_wait(&c, &m); /* WAIT consume */
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	pthread_cond_signal(&c); /* nobody waits yet: lost */
	CHECK(pthread_barrier_init(&started, NULL, 2) == 0, "barrier");
	for (int i = 0; i < 2; i++) {
		CHECK(pthread_create(&t[i], NULL, consume, NULL) == 0, "create");
		pthread_barrier_wait(&started); /* it holds m: it waits once we can take it */
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	printf("deadlocked\n");
	fflush(stdout);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL); /* WAIT main */
	printf("not deadlocked\n");
	return 0;
}
