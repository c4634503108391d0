/* flight.c — a long-running program for the flight recorder's tests,
 * chosen by argv[1]:
 *   run MS     three threads contend for MS ms while main sleeps through it
 *              in one sleep(); prints "slept whole" when that sleep lasted
 *              its full length (a snapshot signal must not cut it short)
 *   own MS     installs its own SIGUSR2 handler, raises SIGUSR2, then runs
 *              as `run`; prints "own handler ran"
 *   abort MS   contends for MS ms, then a worker calls abort()
 *   heavy MS   two threads allocate, free and contend as fast as they can
 *              for MS ms: a high event rate for the size cap
 * The output is the same traced or not. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop, heavy, crash;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *worker_main(void *arg)
{
	long i = 0;
	while (!stop) {
		pthread_mutex_lock(&mu);
		if (heavy) {
			char *p = malloc((size_t)(16 + (i++ % 64) * 8));
			p[0] = 1;
			free(p);
		} else {
			usleep(100);
		}
		pthread_mutex_unlock(&mu);
		if (!heavy)
			usleep(50);
		if (crash && arg)
			abort();
	}
	return NULL;
}

static void on_usr2(int sig)
{
	(void)sig;
	static const char msg[] = "own handler ran\n";
	(void)!write(1, msg, sizeof msg - 1);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "run";
	int ms = argc > 2 ? atoi(argv[2]) : 1000;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "own") == 0) {
		signal(SIGUSR2, on_usr2);
		raise(SIGUSR2);
	}
	heavy = strcmp(mode, "heavy") == 0;
	pthread_t t[3];
	int n = heavy ? 2 : 3;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker_main, (void *)(long)i);
	if (strcmp(mode, "abort") == 0) {
		usleep((useconds_t)ms * 1000);
		crash = 1;
		for (;;)
			pause();
	}
	double start = now_s();
	unsigned left = 0;
	if (ms >= 1000)
		left = sleep((unsigned)(ms / 1000));
	usleep((useconds_t)(ms % 1000) * 1000);
	double slept = now_s() - start;
	stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%s\n", left == 0 && slept >= ms / 1000.0 - 0.01 ? "slept whole" : "sleep cut short");
	printf("done\n");
	return 0;
}
