/* wakers: one thread releases what another waits for, from functions of
 * its own, so a trace can show who woke whom (test/integration/
 * test_wakers.py). One mode per run:
 *
 *   handoff    holder_main locks a mutex, sleeps 50 ms holding it, and
 *              unlocks it in handoff_unlock; waiter_main blocks on it.
 *   signal     signaler_main signals a condvar in signal_one, 50 ms after
 *              cond_waiter_main began waiting on it.
 *   broadcast  broadcaster_main wakes three bcast_waiter_main threads
 *              waiting on one condvar, in broadcast_all.
 *   join       main joins exiting_main, which sleeps 50 ms and returns.
 *   prodcons   one producer_main, two consumer_main: a bounded queue of 8
 *              behind a mutex and two condvars, 4000 items.
 *
 * Prints one line, exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int held, waiting, go_on;

static void die(const char *what, int err)
{
	fprintf(stderr, "wakers: %s: %s\n", what, strerror(err));
	exit(1);
}

static void check(const char *what, int err)
{
	if (err)
		die(what, err);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static void start(pthread_t *t, void *(*fn)(void *))
{
	check("pthread_create", pthread_create(t, NULL, fn, NULL));
}

/* handoff ------------------------------------------------------------- */

__attribute__((noinline)) static void handoff_unlock(void)
{
	check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
	__asm__ volatile("" ::: "memory"); /* not a tail call: keeps this frame */
}

__attribute__((noinline)) static void *holder_main(void *arg)
{
	check("pthread_mutex_lock", pthread_mutex_lock(&mu));
	__atomic_store_n(&held, 1, __ATOMIC_RELEASE);
	sleep_ms(50);
	handoff_unlock();
	return arg;
}

__attribute__((noinline)) static void *waiter_main(void *arg)
{
	while (!__atomic_load_n(&held, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	check("pthread_mutex_lock", pthread_mutex_lock(&mu));
	check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
	return arg;
}

static void handoff(void)
{
	pthread_t h, w;
	start(&h, holder_main);
	start(&w, waiter_main);
	check("pthread_join", pthread_join(h, NULL));
	check("pthread_join", pthread_join(w, NULL));
}

/* condvar: signal and broadcast ----------------------------------------- */

static void wait_for_go(void)
{
	check("pthread_mutex_lock", pthread_mutex_lock(&mu));
	waiting++;
	while (!go_on)
		check("pthread_cond_wait", pthread_cond_wait(&cv, &mu));
	check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
}

/* until n threads wait on cv (each counted itself under mu, then released
 * mu inside pthread_cond_wait), and 50 ms more */
static void until_waiting(int n)
{
	for (;;) {
		check("pthread_mutex_lock", pthread_mutex_lock(&mu));
		int w = waiting;
		check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
		if (w >= n)
			break;
		sleep_ms(1);
	}
	sleep_ms(50);
}

__attribute__((noinline)) static void *cond_waiter_main(void *arg)
{
	wait_for_go();
	return arg;
}

__attribute__((noinline)) static void signal_one(void)
{
	check("pthread_cond_signal", pthread_cond_signal(&cv));
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void *signaler_main(void *arg)
{
	until_waiting(1);
	check("pthread_mutex_lock", pthread_mutex_lock(&mu));
	go_on = 1;
	check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
	signal_one();
	return arg;
}

__attribute__((noinline)) static void *bcast_waiter_main(void *arg)
{
	wait_for_go();
	return arg;
}

__attribute__((noinline)) static void broadcast_all(void)
{
	check("pthread_cond_broadcast", pthread_cond_broadcast(&cv));
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void *broadcaster_main(void *arg)
{
	until_waiting(3);
	check("pthread_mutex_lock", pthread_mutex_lock(&mu));
	go_on = 1;
	check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
	broadcast_all();
	return arg;
}

static void signal_mode(void)
{
	pthread_t w, s;
	start(&w, cond_waiter_main);
	start(&s, signaler_main);
	check("pthread_join", pthread_join(s, NULL));
	check("pthread_join", pthread_join(w, NULL));
}

static void broadcast_mode(void)
{
	pthread_t w[3], b;
	for (int i = 0; i < 3; i++)
		start(&w[i], bcast_waiter_main);
	start(&b, broadcaster_main);
	check("pthread_join", pthread_join(b, NULL));
	for (int i = 0; i < 3; i++)
		check("pthread_join", pthread_join(w[i], NULL));
}

/* join ---------------------------------------------------------------- */

__attribute__((noinline)) static void *exiting_main(void *arg)
{
	sleep_ms(50);
	return arg;
}

static void join_mode(void)
{
	pthread_t t;
	start(&t, exiting_main);
	check("pthread_join", pthread_join(t, NULL));
}

/* producer / consumers -------------------------------------------------- */

#define QCAP 8
#define ITEMS 4000
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static int queue[QCAP], qhead, qlen, done;
static long consumed_sum[2];

__attribute__((noinline)) static void *producer_main(void *arg)
{
	for (int i = 1; i <= ITEMS; i++) {
		check("pthread_mutex_lock", pthread_mutex_lock(&mu));
		while (qlen == QCAP)
			check("pthread_cond_wait", pthread_cond_wait(&not_full, &mu));
		queue[(qhead + qlen++) % QCAP] = i;
		check("pthread_cond_signal", pthread_cond_signal(&not_empty));
		check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
	}
	check("pthread_mutex_lock", pthread_mutex_lock(&mu));
	done = 1;
	check("pthread_cond_broadcast", pthread_cond_broadcast(&not_empty));
	check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
	return arg;
}

__attribute__((noinline)) static void *consumer_main(void *arg)
{
	long *sum = arg;
	for (;;) {
		check("pthread_mutex_lock", pthread_mutex_lock(&mu));
		while (qlen == 0 && !done)
			check("pthread_cond_wait", pthread_cond_wait(&not_empty, &mu));
		if (qlen == 0 && done) {
			check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
			return NULL;
		}
		int v = queue[qhead];
		qhead = (qhead + 1) % QCAP;
		qlen--;
		check("pthread_cond_signal", pthread_cond_signal(&not_full));
		check("pthread_mutex_unlock", pthread_mutex_unlock(&mu));
		*sum += v;
		if (v % 64 == 0) /* a little work outside the lock */
			sleep_ms(0);
	}
}

static void prodcons(void)
{
	pthread_t p, c[2];
	for (int i = 0; i < 2; i++)
		check("pthread_create", pthread_create(&c[i], NULL, consumer_main, &consumed_sum[i]));
	start(&p, producer_main);
	check("pthread_join", pthread_join(p, NULL));
	for (int i = 0; i < 2; i++)
		check("pthread_join", pthread_join(c[i], NULL));
	long total = consumed_sum[0] + consumed_sum[1];
	if (total != (long)ITEMS * (ITEMS + 1) / 2)
		die("lost items", 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "handoff") == 0)
		handoff();
	else if (strcmp(mode, "signal") == 0)
		signal_mode();
	else if (strcmp(mode, "broadcast") == 0)
		broadcast_mode();
	else if (strcmp(mode, "join") == 0)
		join_mode();
	else if (strcmp(mode, "prodcons") == 0)
		prodcons();
	else {
		fprintf(stderr, "usage: wakers handoff|signal|broadcast|join|prodcons\n");
		return 2;
	}
	printf("wakers %s ok\n", mode);
	return 0;
}
