/* signal_waits: threads that wait for a signal, and sleeps made with
 * select/poll on no descriptor (issue 15 items 9 and 2).
 *
 * 1. sigwait_main: sigwait()s for SIGUSR1 (blocked in every thread), which
 *    main sends with pthread_kill after 300 ms.
 * 2. sigwaitinfo_main: sigwaitinfo() for SIGUSR2, sent with kill() to the
 *    process after 300 ms.
 * 3. pause_main: pause()s until SIGALRM (a handler, unblocked only in that
 *    thread) arrives 300 ms later from main's pthread_kill; pause returns
 *    -1 EINTR.
 * 4. sigsuspend_main: sigsuspend() with SIGRTMIN unblocked, sent after
 *    300 ms; returns -1 EINTR with the handler run once.
 * 5. sigtimedwait_main: sigtimedwait() for SIGRTMIN+1 that never comes,
 *    300 ms timeout: -1 EAGAIN.
 * 6. main: select(0, NULL, NULL, NULL, 200 ms) returns 0; poll(NULL, 0,
 *    200) returns 0.
 *
 * Every return value and errno is checked; only main prints.  Exits 0
 * ("all checks passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static volatile sig_atomic_t handled;
static int results[5], errs[5], sigs[5];
static pthread_barrier_t ready;

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		CHECK(errno == EINTR, "nanosleep");
}

static NOINLINE void *sigwait_main(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_barrier_wait(&ready);
	int sig = 0;
	results[0] = sigwait(&s, &sig);
	sigs[0] = sig;
	return arg;
}

static NOINLINE void *sigwaitinfo_main(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	siginfo_t si;
	pthread_barrier_wait(&ready);
	errno = 0;
	results[1] = sigwaitinfo(&s, &si);
	errs[1] = errno;
	sigs[1] = si.si_signo;
	return arg;
}

static NOINLINE void *pause_main(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	pthread_barrier_wait(&ready);
	errno = 0;
	results[2] = pause();
	errs[2] = errno;
	return arg;
}

static NOINLINE void *sigsuspend_main(void *arg)
{
	sigset_t s;
	pthread_sigmask(SIG_BLOCK, NULL, &s);
	sigdelset(&s, SIGRTMIN);
	pthread_barrier_wait(&ready);
	errno = 0;
	results[3] = sigsuspend(&s);
	errs[3] = errno;
	return arg;
}

static NOINLINE void *sigtimedwait_main(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN + 1);
	struct timespec to = { 0, 300 * 1000000L };
	pthread_barrier_wait(&ready);
	errno = 0;
	results[4] = sigtimedwait(&s, NULL, &to);
	errs[4] = errno;
	return arg;
}

static NOINLINE int select_sleep(void)
{
	struct timeval tv = { 0, 200 * 1000 };
	return select(0, NULL, NULL, NULL, &tv);
}

static NOINLINE int poll_sleep(void)
{
	return poll(NULL, 0, 200);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction SIGALRM");
	CHECK(sigaction(SIGRTMIN, &sa, NULL) == 0, "sigaction SIGRTMIN");
	sigset_t all;
	sigemptyset(&all);
	sigaddset(&all, SIGUSR1);
	sigaddset(&all, SIGUSR2);
	sigaddset(&all, SIGALRM);
	sigaddset(&all, SIGRTMIN);
	sigaddset(&all, SIGRTMIN + 1);
	CHECK(pthread_sigmask(SIG_BLOCK, &all, NULL) == 0, "pthread_sigmask");
	CHECK(pthread_barrier_init(&ready, NULL, 6) == 0, "barrier");

	void *(*fns[5])(void *) = { sigwait_main, sigwaitinfo_main, pause_main, sigsuspend_main,
				    sigtimedwait_main };
	pthread_t th[5];
	for (int i = 0; i < 5; i++)
		CHECK(pthread_create(&th[i], NULL, fns[i], NULL) == 0, "pthread_create");
	pthread_barrier_wait(&ready);
	sleep_ms(300);
	CHECK(pthread_kill(th[0], SIGUSR1) == 0, "pthread_kill SIGUSR1");
	CHECK(kill(getpid(), SIGUSR2) == 0, "kill SIGUSR2");
	CHECK(pthread_kill(th[2], SIGALRM) == 0, "pthread_kill SIGALRM");
	CHECK(pthread_kill(th[3], SIGRTMIN) == 0, "pthread_kill SIGRTMIN");
	for (int i = 0; i < 5; i++)
		CHECK(pthread_join(th[i], NULL) == 0, "pthread_join");

	printf("sigwait: %d sig %s\n", results[0], sigs[0] == SIGUSR1 ? "SIGUSR1" : "?");
	printf("sigwaitinfo: %s sig %s\n", results[1] == SIGUSR2 ? "SIGUSR2" : "?",
	       sigs[1] == SIGUSR2 ? "SIGUSR2" : "?");
	printf("pause: %d %s\n", results[2], errs[2] == EINTR ? "EINTR" : "?");
	printf("sigsuspend: %d %s\n", results[3], errs[3] == EINTR ? "EINTR" : "?");
	printf("sigtimedwait: %d %s\n", results[4], errs[4] == EAGAIN ? "EAGAIN" : "?");
	printf("handled: %d\n", (int)handled);
	CHECK(results[0] == 0 && sigs[0] == SIGUSR1, "sigwait result");
	CHECK(results[1] == SIGUSR2, "sigwaitinfo result");
	CHECK(results[2] == -1 && errs[2] == EINTR, "pause result");
	CHECK(results[3] == -1 && errs[3] == EINTR, "sigsuspend result");
	CHECK(results[4] == -1 && errs[4] == EAGAIN, "sigtimedwait result");
	CHECK(handled == 2, "handlers");

	errno = 0;
	int r = select_sleep();
	printf("select: %d errno %d\n", r, errno);
	CHECK(r == 0, "select(0, ...)");
	r = poll_sleep();
	printf("poll: %d\n", r);
	CHECK(r == 0, "poll(NULL, 0, 200)");
	printf("all checks passed\n");
	return 0;
}
