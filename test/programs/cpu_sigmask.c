/* cpu_sigmask: every signal blocked (main before creating its thread, so
 * both have a full mask) while both burn ~0.2 s of CPU; the thread then
 * waits for any signal with sigwaitinfo and main sends SIGUSR1 to the
 * process; main then reads SIGUSR2 (sent to itself) from a signalfd of
 * every signal. Prints whether each thread's mask reads back full, and
 * the signals received: a tracer signal must show up nowhere. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void burn(void)
{
	uint64_t x = 5, stop = cpu_ns() + 200000000ull;
	while (cpu_ns() < stop)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ull + 7;
	sink = x;
}

static int mask_full(void)
{
	sigset_t m;
	pthread_sigmask(SIG_SETMASK, NULL, &m);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (!sigismember(&m, s))
			return 0;
	return sigismember(&m, SIGUSR1) && sigismember(&m, SIGPROF);
}

static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static void *waiter(void *arg)
{
	(void)arg;
	burn();
	int full = mask_full();
	sigset_t all;
	sigfillset(&all);
	siginfo_t si;
	int s = sigwaitinfo(&all, &si);
	pthread_mutex_lock(&out);
	printf("waiter: mask %s, sigwaitinfo got %d\n", full ? "full" : "NOT full", s);
	pthread_mutex_unlock(&out);
	return NULL;
}

int main(void)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	pthread_t w;
	pthread_create(&w, NULL, waiter, NULL);
	burn();
	int full = mask_full();
	usleep(300000);
	kill(getpid(), SIGUSR1);
	pthread_join(w, NULL);
	int fd = signalfd(-1, &all, 0);
	pthread_kill(pthread_self(), SIGUSR2);
	struct signalfd_siginfo fi;
	ssize_t n = read(fd, &fi, sizeof fi);
	printf("main: mask %s, signalfd got %d\n", full ? "full" : "NOT full", n == sizeof fi ? (int)fi.ssi_signo : -1);
	return 0;
}
