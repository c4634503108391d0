/* cpu_burn: two threads burn CPU in functions of their own, one for twice
 * the work of the other (burn_long, burn_short), and one thread waits
 * (sleeps and blocks on a mutex) using next to no CPU. Each thread prints
 * its own CPU time (CLOCK_THREAD_CPUTIME_ID) and its thread id:
 *   cpu <name> <tid> <ns>
 * The tests compare the samples of each thread with its CPU time.
 * Usage: cpu_burn [units]  (default 30: 0.3 s of CPU for the short one) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static long units = 30;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void report(const char *name)
{
	pthread_mutex_lock(&out);
	printf("cpu %s %ld %llu\n", name, (long)syscall(SYS_gettid), (unsigned long long)thread_cpu_ns());
	fflush(stdout);
	pthread_mutex_unlock(&out);
}

/* burn_*: 10 ms of CPU per unit, the clock read every ~0.3 ms. */
static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t burn_short_inner(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static void burn_short(long n)
{
	uint64_t x = 1;
	uint64_t stop = thread_cpu_ns() + (uint64_t)n * 10000000ull;
	while (thread_cpu_ns() < stop)
		for (int i = 0; i < 256; i++)
			x = burn_short_inner(x);
	sink = x;
}

__attribute__((noinline)) static uint64_t burn_long_inner(uint64_t x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 2862933555777941757ull + 3037000493ull;
	return x;
}

__attribute__((noinline)) static void burn_long(long n)
{
	uint64_t x = 2;
	uint64_t stop = thread_cpu_ns() + (uint64_t)n * 10000000ull;
	while (thread_cpu_ns() < stop)
		for (int i = 0; i < 256; i++)
			x = burn_long_inner(x);
	sink = x;
}

static void *short_thread(void *arg)
{
	(void)arg;
	burn_short(units);
	report("short");
	return NULL;
}

static void *long_thread(void *arg)
{
	(void)arg;
	burn_long(2 * units);
	report("long");
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		usleep(20000);
		pthread_mutex_lock(&lock); /* held by main for a while */
		pthread_mutex_unlock(&lock);
	}
	report("waiter");
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		units = atol(argv[1]);
	pthread_t a, b, c;
	pthread_mutex_lock(&lock);
	pthread_create(&c, NULL, waiter, NULL);
	pthread_create(&a, NULL, short_thread, NULL);
	pthread_create(&b, NULL, long_thread, NULL);
	usleep(100000);
	pthread_mutex_unlock(&lock);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	report("main");
	return 0;
}
