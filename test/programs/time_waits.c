/* time_waits: waits whose start the program observes itself, for two rules
 * of the trace's time (issue 15 items 7 and 8a).
 *
 * NTHREADS waiter threads, named "waiter-<i>", each make ROUNDS (argv[1],
 * default 45) blocking
 * calls in turn: a sleep (nanosleep 300 us, waiter_sleep), a mutex that the
 * holder thread keeps ~300 us before it unlocks it (waiter_lock; the
 * holder's unlock is the wake-up), and a read of a pipe that a forked feeder
 * process fills ~300 us after it is asked to (waiter_read). Just before
 * each call the waiter reads CLOCK_MONOTONIC, just after it reads it again,
 * and between calls it spins ~200 us of CPU. Every pair is printed:
 *   call <thread> <round> <kind> <before_ns> <after_ns>
 * (kind: sleep, lock, read). So every call waits in the kernel, and a
 * trace event of the call may be compared with the program's own readings:
 * the wait's beginning must not precede the reading taken before the call.
 * Exits 0 ("all checks passed"), 1 on a failure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define NTHREADS 4
#define MAXROUNDS 3000
static int rounds = 45; /* argv[1]: a multiple of 3 (sleep, lock, read) */

static pthread_mutex_t mu[NTHREADS];
static _Atomic int want[NTHREADS]; /* 1: waiter about to lock; 2: done */
static _Atomic int stop_holder, holder_ready;
static int req_w, data_r[NTHREADS];

struct rec { int round; const char *kind; unsigned long long before, after; };
static struct rec recs[NTHREADS][MAXROUNDS];

static unsigned long long mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void spin_us(unsigned us)
{
	unsigned long long end = mono() + us * 1000ull;
	volatile unsigned long x = 0;
	while (mono() < end)
		for (int i = 0; i < 200; i++)
			x += (unsigned long)i * 2654435761u;
}

static void sleep_us(long us)
{
	struct timespec ts = { 0, us * 1000L };
	nanosleep(&ts, NULL);
}

NOINLINE static void waiter_sleep(void)
{
	sleep_us(300);
}

NOINLINE static void waiter_lock(int id)
{
	CHECK(pthread_mutex_lock(&mu[id]) == 0, "lock");
	CHECK(pthread_mutex_unlock(&mu[id]) == 0, "unlock");
}

NOINLINE static void waiter_read(int id)
{
	char c = (char)id;
	CHECK(write(req_w, &c, 1) == 1, "request");
	CHECK(read(data_r[id], &c, 1) == 1, "read");
}

NOINLINE static void *waiter_main(void *arg)
{
	int id = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof name, "waiter-%d", id);
	CHECK(pthread_setname_np(pthread_self(), name) == 0, "setname");
	for (int r = 0; r < rounds; r++) {
		struct rec *e = &recs[id][r];
		e->round = r;
		spin_us(200);
		switch (r % 3) {
		case 0:
			e->kind = "sleep";
			e->before = mono();
			waiter_sleep();
			e->after = mono();
			break;
		case 1:
			e->kind = "lock";
			while (atomic_load(&want[id]) != 0)
				sched_yield(); /* the holder has its mutex back */
			atomic_store(&want[id], 1);
			e->before = mono();
			waiter_lock(id);
			e->after = mono();
			atomic_store(&want[id], 2);
			break;
		default:
			e->kind = "read";
			e->before = mono();
			waiter_read(id);
			e->after = mono();
			break;
		}
	}
	return NULL;
}

/* holder_main keeps every waiter's mutex locked; when a waiter is about to
 * lock its own, the holder lets it wait ~300 us, then unlocks it (the
 * wake-up a thread of the program causes) and takes it back once the
 * waiter is done with it. */
NOINLINE static void *holder_main(void *arg)
{
	(void)arg;
	CHECK(pthread_setname_np(pthread_self(), "holder") == 0, "setname");
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_mutex_lock(&mu[i]) == 0, "holder lock");
	atomic_store(&holder_ready, 1);
	while (!atomic_load(&stop_holder)) {
		int busy = 0;
		for (int i = 0; i < NTHREADS; i++) {
			if (atomic_load(&want[i]) != 1)
				continue;
			busy = 1;
			spin_us(300);
			CHECK(pthread_mutex_unlock(&mu[i]) == 0, "holder unlock");
			while (atomic_load(&want[i]) != 2)
				sched_yield();
			CHECK(pthread_mutex_lock(&mu[i]) == 0, "holder relock");
			atomic_store(&want[i], 0);
		}
		if (!busy)
			sleep_us(50);
	}
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_mutex_unlock(&mu[i]) == 0, "holder final unlock");
	return NULL;
}

/* feeder: a separate process; each request byte names a waiter, whose pipe
 * gets one byte ~300 us later. Ends at end of file. */
static void feeder(int req_r, int *data_w)
{
	char c;
	while (read(req_r, &c, 1) == 1) {
		sleep_us(300);
		if (write(data_w[(int)c], &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = atoi(argv[1]);
	CHECK(rounds > 0 && rounds <= MAXROUNDS, "rounds");
	int req[2], data_w[NTHREADS];
	CHECK(pipe(req) == 0, "pipe");
	for (int i = 0; i < NTHREADS; i++) {
		int p[2];
		CHECK(pipe(p) == 0, "pipe");
		data_r[i] = p[0];
		data_w[i] = p[1];
		CHECK(pthread_mutex_init(&mu[i], NULL) == 0, "mutex init");
	}
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(req[1]);
		feeder(req[0], data_w);
	}
	close(req[0]);
	for (int i = 0; i < NTHREADS; i++)
		close(data_w[i]);
	req_w = req[1];

	pthread_t h, w[NTHREADS];
	CHECK(pthread_create(&h, NULL, holder_main, NULL) == 0, "create holder");
	while (!atomic_load(&holder_ready))
		sleep_us(100);
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&w[i], NULL, waiter_main, (void *)(long)i) == 0, "create waiter");
	for (int i = 0; i < NTHREADS; i++)
		CHECK(pthread_join(w[i], NULL) == 0, "join waiter");
	atomic_store(&stop_holder, 1);
	CHECK(pthread_join(h, NULL) == 0, "join holder");
	close(req_w);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "feeder");
	for (int i = 0; i < NTHREADS; i++)
		for (int r = 0; r < rounds; r++) {
			struct rec *e = &recs[i][r];
			CHECK(e->after >= e->before, "monotonic");
			printf("call waiter-%d %d %s %llu %llu\n", i, r, e->kind, e->before, e->after);
		}
	printf("all checks passed\n");
	return 0;
}
