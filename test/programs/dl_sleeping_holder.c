/* dl_sleeping_holder.c — not a deadlock (issue 16, item 3): holder locks
 * a mutex and sleeps 3 s with it; waiter waits those 3 s for it; main joins
 * both. With GOTRACE_DEADLOCK=1s nothing is reported: the holder sleeps,
 * it does not wait for the waiter. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held;

NOINLINE static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	pthread_barrier_wait(&held);
	sleep(3);
	pthread_mutex_unlock(&m);
	return NULL;
}

NOINLINE static void *waiter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&held);
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	CHECK(pthread_barrier_init(&held, NULL, 2) == 0, "barrier");
	CHECK(pthread_create(&t1, NULL, holder, NULL) == 0, "create");
	CHECK(pthread_create(&t2, NULL, waiter, NULL) == 0, "create");
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("done\n");
	return 0;
}
