/* cpu_giveback: a program that uses SIGRTMAX itself, the signal the CPU
 * sampler takes first: after burning 0.2 s of CPU (sampled), it installs a
 * handler for SIGRTMAX, sends it to itself, blocks it by name and takes it
 * with sigwaitinfo, then runs its own CPU-time timer on it (5 ms) while
 * burning 0.3 s more. Prints what its handler and sigwaitinfo saw, and
 * whether its timer ticked as often as its CPU time says (within 25 %). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t handled, ticks, foreign;
static volatile uint64_t sink;

static void on_rtmax(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_TIMER) {
		if (si->si_value.sival_int == 42)
			ticks++;
		else
			foreign++;
	} else {
		handled++;
	}
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void burn(uint64_t ns)
{
	uint64_t x = 5, stop = cpu_ns() + ns;
	while (cpu_ns() < stop)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ull + 7;
	sink = x;
}

int main(void)
{
	burn(200000000ull);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_rtmax;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMAX, &sa, NULL);
	raise(SIGRTMAX);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, SIGRTMAX);
	sigprocmask(SIG_BLOCK, &one, NULL);
	raise(SIGRTMAX);
	siginfo_t si;
	int got = sigwaitinfo(&one, &si);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGRTMAX;
	ev.sigev_value.sival_int = 42;
	timer_t tm;
	timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &tm);
	struct itimerspec its = { { 0, 5000000 }, { 0, 5000000 } };
	uint64_t c0 = cpu_ns();
	timer_settime(tm, 0, &its, NULL);
	burn(300000000ull);
	timer_delete(tm);
	double want = (double)(cpu_ns() - c0) / 5e6;
	printf("handler %d, sigwaitinfo %s, foreign timer signals %d, own timer %s\n", (int)handled,
	       got == SIGRTMAX ? "got SIGRTMAX" : "failed", (int)foreign,
	       ticks > want * 0.75 && ticks < want * 1.25 ? "ok" : "off");
	return 0;
}
