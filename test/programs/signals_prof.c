/* signals_prof.c — a program with its own SIGPROF profiler: setitimer
 * (ITIMER_PROF, 5 ms) and a handler that counts samples while main
 * computes for about a second of CPU time, with two threads contending
 * for a lock now and then. Prints the result of the computation (the same
 * every run) and, on stderr, "samples N" and the CPU seconds used: the
 * tracer must neither steal nor lose the program's samples. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

static volatile sig_atomic_t samples;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;

static void on_prof(int sig)
{
	(void)sig;
	samples++;
}

static void *locker(void *arg)
{
	(void)arg;
	while (!stop) {
		pthread_mutex_lock(&mu);
		for (volatile int i = 0; i < 1000; i++)
			;
		pthread_mutex_unlock(&mu);
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, locker, NULL);
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
	setitimer(ITIMER_PROF, &it, NULL);
	double t0 = cpu_seconds();
	unsigned long long h = 1469598103934665603ull;
	for (long round = 0; round < 400; round++) {
		for (long i = 0; i < 1000000; i++)
			h = (h ^ (unsigned long long)i) * 1099511628211ull;
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
	}
	double used = cpu_seconds() - t0;
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("hash %016llx\n", h);
	fprintf(stderr, "samples %d cpu %.3f\n", (int)samples, used);
	return 0;
}
