/* signals_stress.c — dispositions changed from every side at once: four
 * threads set and read back handlers (sigaction, signal, a one-shot
 * SA_RESETHAND handler they raise), a 200 µs SIGALRM timer whose handler
 * calls sigaction and signal itself, and main forking children that change
 * their own dispositions and exit. Prints the final dispositions it reads
 * back and "done"; must never hang and print the same traced. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void h(int sig)
{
	(void)sig;
	hits++;
}

static void on_alarm(int sig)
{
	(void)sig;
	struct sigaction old;
	sigaction(SIGUSR2, NULL, &old);
	signal(SIGHUP, (hits & 1) ? SIG_IGN : h);
	hits++;
}

static void *churn(void *arg)
{
	long id = (long)arg;
	sigset_t none;
	sigemptyset(&none);
	for (int i = 0; i < 20000; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = (i % 3 == 0) ? SIG_DFL : (i % 3 == 1) ? SIG_IGN : h;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, &old);
		signal(SIGWINCH, (i & 1) ? h : SIG_DFL);
		if (id == 0 && i % 50 == 0) {
			/* One-shot handler for a signal that ends the process:
			 * raised once, it must never kill us. */
			sa.sa_handler = h;
			sa.sa_flags = SA_RESETHAND;
			sigaction(SIGPWR, &sa, NULL);
			raise(SIGPWR);
		}
		sigaction(SIGUSR2, NULL, &old);
	}
	return NULL;
}

static const char *name(void (*f)(int))
{
	return f == SIG_DFL ? "SIG_DFL" : f == SIG_IGN ? "SIG_IGN" : f == h ? "h" : "other";
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_t t[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, churn, (void *)i);
	for (int i = 0; i < 30; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			signal(SIGTERM, SIG_IGN);
			signal(SIGUSR1, h);
			struct sigaction old;
			sigaction(SIGTERM, NULL, &old);
			_exit(old.sa_handler == SIG_IGN ? 0 : 1);
		}
		int st;
		while (waitpid(pid, &st, 0) < 0)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			printf("child %d: bad status %#x\n", i, st);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGWINCH, SIG_IGN);
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGWINCH, SIGHUP, SIGPWR, SIGTERM, SIGALRM };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old;
		sigaction(sigs[i], NULL, &old);
		printf("sig %d: %s\n", sigs[i], name(old.sa_handler));
	}
	printf("hits > 0: %d\ndone\n", hits > 0);
	return 0;
}
