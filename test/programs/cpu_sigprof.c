/* cpu_sigprof: a program with its own SIGPROF profiler (setitimer
 * ITIMER_PROF every 10 ms, a handler counting ticks) while two threads
 * burn ~0.3 s of CPU each. Prints "prof ok" when the ticks x 10 ms match
 * the process's CPU time within 25 % (else the figures), and "done". */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t ticks;
static volatile uint64_t sink;

static void on_prof(int sig)
{
	(void)sig;
	ticks++;
}

static uint64_t cpu_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void *burn(void *arg)
{
	(void)arg;
	uint64_t x = 3, stop = cpu_ns(CLOCK_THREAD_CPUTIME_ID) + 300000000ull;
	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) < stop)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ull + 1;
	sink = x;
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	setitimer(ITIMER_PROF, &it, NULL);
	pthread_t a, b;
	pthread_create(&a, NULL, burn, NULL);
	pthread_create(&b, NULL, burn, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	double cpu = (double)cpu_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9, prof = ticks * 0.010;
	if (prof > cpu * 0.75 && prof < cpu * 1.25)
		printf("prof ok\n");
	else
		printf("prof off: %d ticks (%.3f s) for %.3f s of CPU\n", (int)ticks, prof, cpu);
	fprintf(stderr, "ticks %d cpu %.3f\n", (int)ticks, cpu);
	printf("done\n");
	return 0;
}
