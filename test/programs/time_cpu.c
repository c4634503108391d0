/* time_cpu: threads whose CPU time the trace must cover (issue 15 item
 * 8b): a thread's running time in the trace is at least its CPU time.
 *
 * main, then NTHREADS threads named "cpu-<i>", each do ROUNDS rounds of
 * CPU work (~300 us) and a short wait (a contended mutex, a 100 us sleep, a
 * condition variable signalled by the next thread, a pipe read). Each
 * thread prints its CLOCK_THREAD_CPUTIME_ID as the last thing it does:
 *   cpu <name> <ns>
 * (main: "cpu main <ns>", after joining). Exits 0 ("all checks passed"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define NTHREADS 8
#define ROUNDS 40

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static int pipes[NTHREADS][2];
static volatile unsigned long sink;

static unsigned long long clk(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

NOINLINE static void work_us(unsigned us)
{
	unsigned long long end = clk(CLOCK_THREAD_CPUTIME_ID) + us * 1000ull;
	unsigned long x = sink;
	while (clk(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 500; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static void report(const char *name)
{
	unsigned long long cpu = clk(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&out_mu);
	printf("cpu %s %llu\n", name, cpu);
	pthread_mutex_unlock(&out_mu);
}

NOINLINE static void *cpu_main(void *arg)
{
	int id = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof name, "cpu-%d", id);
	CHECK(pthread_setname_np(pthread_self(), name) == 0, "setname");
	for (int r = 0; r < ROUNDS; r++) {
		work_us(300);
		switch (r % 3) {
		case 0: /* contended: every thread takes it to work under it */
			CHECK(pthread_mutex_lock(&mu) == 0, "lock");
			work_us(50);
			CHECK(pthread_mutex_unlock(&mu) == 0, "unlock");
			break;
		case 1: {
			struct timespec ts = { 0, 100000 };
			nanosleep(&ts, NULL);
			break;
		}
		default: { /* a byte to the next thread's pipe, then our own */
			char c = 'x';
			CHECK(write(pipes[(id + 1) % NTHREADS][1], &c, 1) == 1, "write");
			CHECK(read(pipes[id][0], &c, 1) == 1, "read");
			break;
		}
		}
	}
	report(name);
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	work_us(3000);
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pipe(pipes[i]) == 0, "pipe");
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&t[i], NULL, cpu_main, (void *)(long)i) == 0, "create");
	work_us(3000);
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "join");
	report("main");
	printf("all checks passed\n");
	return 0;
}
