/* jump_waits.c — waits left by siglongjmp out of a signal handler (issue 15
 * item 10).
 *
 * 1. read_main blocks in read() on a pipe nobody writes; after 200 ms main
 *    sends it SIGUSR1, whose handler siglongjmps out of the read. Then it
 *    sleeps 100 ms (nanosleep) and returns.
 * 2. pause_main pause()s; after 200 ms main sends SIGUSR2, whose handler
 *    runs on an alternate signal stack and siglongjmps out. Then it sleeps
 *    100 ms and returns.
 *
 * The trace must show each 200 ms as the wait it was (a system call, a
 * signal wait), and the 100 ms sleeps after the jumps as sleeps: the
 * thread is traced again once it has left the wait. Exits 0 ("all checks
 * passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

static __thread sigjmp_buf *jump_to;
static pthread_barrier_t ready;
static int fds[2];
static volatile sig_atomic_t jumped[2];

static void on_signal(int sig)
{
	jumped[sig == SIGUSR2] = 1;
	siglongjmp(*jump_to, 1);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		CHECK(errno == EINTR, "nanosleep");
}

static NOINLINE void after_jump(void)
{
	sleep_ms(100);
}

static NOINLINE void *read_main(void *arg)
{
	sigjmp_buf here;
	jump_to = &here;
	if (sigsetjmp(here, 1) == 0) {
		pthread_barrier_wait(&ready);
		char c;
		(void)!read(fds[0], &c, 1);
		CHECK(0, "read returned");
	}
	after_jump();
	return arg;
}

static NOINLINE void *pause_main(void *arg)
{
	stack_t ss = { .ss_sp = malloc(64 * 1024), .ss_size = 64 * 1024 };
	CHECK(ss.ss_sp && sigaltstack(&ss, NULL) == 0, "sigaltstack");
	sigjmp_buf here;
	jump_to = &here;
	if (sigsetjmp(here, 1) == 0) {
		pthread_barrier_wait(&ready);
		pause();
		CHECK(0, "pause returned");
	}
	after_jump();
	return arg;
}

int main(void)
{
	CHECK(pipe(fds) == 0, "pipe");
	struct sigaction sa = { .sa_handler = on_signal };
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	sa.sa_flags = SA_ONSTACK;
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, "sigaction");
	CHECK(pthread_barrier_init(&ready, NULL, 3) == 0, "barrier");
	pthread_t r, p;
	CHECK(pthread_create(&r, NULL, read_main, NULL) == 0, "create");
	CHECK(pthread_create(&p, NULL, pause_main, NULL) == 0, "create");
	pthread_barrier_wait(&ready);
	sleep_ms(200);
	CHECK(pthread_kill(r, SIGUSR1) == 0, "kill");
	CHECK(pthread_kill(p, SIGUSR2) == 0, "kill");
	CHECK(pthread_join(r, NULL) == 0, "join");
	CHECK(pthread_join(p, NULL) == 0, "join");
	CHECK(jumped[0] && jumped[1], "both handlers jumped");
	printf("all checks passed\n");
	return 0;
}
