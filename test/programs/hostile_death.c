/* hostile_death.c — deaths by signals whose default action ends the process
 * (issue 12, problem 9).
 *
 *   hostile_death pipe live|joined    traced work, then write to stdout
 *                                     forever: dies by SIGPIPE once the
 *                                     reader goes (`prog | head -c1`)
 *   hostile_death alarm live|joined   traced work, then alarm(1) and pause():
 *                                     dies by SIGALRM
 *
 * The traced work: two threads (before_death_main) contend for a mutex and
 * are joined. live: a third thread (still_blocked_main) is left waiting on a
 * condition variable, so the process dies multi-threaded; joined: it dies
 * single-threaded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile long sink;

static void *before_death_main(void *arg)
{
	for (int i = 0; i < 100; i++) {
		pthread_mutex_lock(&mu);
		char *p = malloc(40);
		p[0] = 1;
		sink += p[0];
		usleep(100);
		free(p);
		pthread_mutex_unlock(&mu);
	}
	return arg;
}

static void *still_blocked_main(void *arg)
{
	pthread_mutex_lock(&cmu);
	for (;;)
		pthread_cond_wait(&cv, &cmu);
	return arg;
}

static void traced_work(int live)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, before_death_main, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (live) {
		pthread_t b;
		pthread_create(&b, NULL, still_blocked_main, NULL);
		usleep(10000);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int live = argc > 2 && strcmp(argv[2], "live") == 0;
	if (strcmp(mode, "pipe") == 0) {
		traced_work(live);
		char buf[4096];
		memset(buf, 'x', sizeof buf);
		for (;;)
			if (write(1, buf, sizeof buf) < 0)
				break;
		fprintf(stderr, "hostile_death: write failed without SIGPIPE\n");
		return 3;
	}
	if (strcmp(mode, "alarm") == 0) {
		traced_work(live);
		alarm(1);
		pause();
		fprintf(stderr, "hostile_death: pause returned\n");
		return 3;
	}
	fprintf(stderr, "usage: hostile_death pipe|alarm live|joined\n");
	return 2;
}
