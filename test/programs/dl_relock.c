/* dl_relock.c — a thread re-locks a normal mutex it holds (issue 16,
 * item 3). `dl_relock alone`: main does it, the program's only thread
 * (no thread is ever created). `dl_relock`: a thread "relocker" does it
 * while main joins it. Both print "deadlocked" just before. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

NOINLINE static void relock(void)
{
	pthread_mutex_lock(&m);
	printf("deadlocked\n");
	fflush(stdout);
	pthread_mutex_lock(&m); /* WAIT relock */
	pthread_mutex_unlock(&m);
}

NOINLINE static void *relocker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "relocker");
	relock();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "alone") == 0) {
		relock();
	} else {
		pthread_t t;
		CHECK(pthread_create(&t, NULL, relocker, NULL) == 0, "create");
		pthread_join(t, NULL);
	}
	printf("not deadlocked\n");
	return 0;
}
