/* hostile_reentry.c — signal handlers that call wrapped functions at a high
 * rate while the program creates and joins threads (issue 12, problem 6).
 *
 *   hostile_reentry HANDLER [THREADS [INTERVAL_US [kick]]]
 *
 * An ITIMER_REAL timer fires every INTERVAL_US (50 µs by default; a handler
 * that sleeps needs more, or it runs back to back and main never goes on);
 * its SIGALRM handler calls, by HANDLER:
 *   malloc   free(malloc(32))
 *   lock     pthread_mutex_trylock on a mutex the threads use (then unlock
 *            if it got it: trylock keeps the handler legal)
 *   sleep    usleep(1)
 *   write    write(2) of one byte to /dev/null
 * Meanwhile main creates and joins THREADS threads (3000 by default), one at
 * a time; each allocates, locks that mutex and exits. The signal lands
 * anywhere in the tracer: registration, a write section, a generation
 * switch, a stack capture, thread exit. The timer's signal goes to main
 * nearly always; with "kick", main also sends SIGALRM to each new thread
 * (pthread_kill) right after creating it, so the handler lands on threads
 * that are starting, registering or exiting. Prints the number of threads
 * and whether the handler ran; exit 0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t ran;
static int devnull = -1;
static int kind;

enum { H_MALLOC, H_LOCK, H_SLEEP, H_WRITE };

static void on_alarm(int sig)
{
	(void)sig;
	ran = 1;
	switch (kind) {
	case H_MALLOC:
		free(malloc(32));
		break;
	case H_LOCK:
		if (pthread_mutex_trylock(&mu) == 0)
			pthread_mutex_unlock(&mu);
		break;
	case H_SLEEP:
		usleep(1);
		break;
	case H_WRITE:
		if (write(devnull, "x", 1) != 1)
			ran = 2;
		break;
	}
}

static void *thread_main(void *arg)
{
	char *p = malloc(64);
	p[0] = 1;
	pthread_mutex_lock(&mu);
	free(p);
	pthread_mutex_unlock(&mu);
	return arg;
}

int main(int argc, char **argv)
{
	const char *h = argc > 1 ? argv[1] : "malloc";
	int n = argc > 2 ? atoi(argv[2]) : 3000;
	long us = argc > 3 ? atol(argv[3]) : 50;
	int kick = argc > 4 && strcmp(argv[4], "kick") == 0;
	if (strcmp(h, "malloc") == 0)
		kind = H_MALLOC;
	else if (strcmp(h, "lock") == 0)
		kind = H_LOCK;
	else if (strcmp(h, "sleep") == 0)
		kind = H_SLEEP;
	else if (strcmp(h, "write") == 0)
		kind = H_WRITE;
	else {
		fprintf(stderr, "usage: hostile_reentry malloc|lock|sleep|write [THREADS]\n");
		return 2;
	}
	devnull = open("/dev/null", O_WRONLY);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{us / 1000000, us % 1000000}, {us / 1000000, us % 1000000}};
	setitimer(ITIMER_REAL, &it, NULL);
	int made = 0;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread_main, NULL) == 0) {
			if (kick) {
				pthread_kill(t, SIGALRM);
				sched_yield();
				pthread_kill(t, SIGALRM);
			}
			pthread_join(t, NULL);
			made++;
		}
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("threads %d of %d, handler %s\n", made, n, ran == 1 ? "ran" : ran ? "failed" : "never ran");
	return 0;
}
