/* dl_inversion.c — a two-lock inversion (issue 16, item 3): lock_ab takes
 * a then b, lock_ba takes b then a; a barrier makes both hold their first
 * lock before they take the second, so they deadlock every time. main
 * prints "deadlocked" just before and joins them (forever). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "check.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

NOINLINE static void *take_ab(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "lock_ab");
	pthread_mutex_lock(&a);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&b); /* WAIT take_ab */
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	return NULL;
}

NOINLINE static void *take_ba(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "lock_ba");
	pthread_mutex_lock(&b);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&a); /* WAIT take_ba */
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	CHECK(pthread_barrier_init(&both, NULL, 3) == 0, "barrier");
	CHECK(pthread_create(&t1, NULL, take_ab, NULL) == 0, "create");
	CHECK(pthread_create(&t2, NULL, take_ba, NULL) == 0, "create");
	pthread_barrier_wait(&both);
	printf("deadlocked\n");
	fflush(stdout);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	printf("not deadlocked\n");
	return 0;
}
