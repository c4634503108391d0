/* hostile_signals.c — what the program sees of signals and interrupted
 * calls (issue 12, problem 10). Modes (argv[1]):
 *
 *   raise SIG     two threads (work_main) work and are joined, then
 *                 kill(getpid(), SIG) (core dumps off); untraced a signal
 *                 whose default action ends the process kills it, so
 *                 "survived" is never printed
 *   dispositions  for every signal but KILL and STOP: the disposition read
 *                 back at start, after setting SIG_DFL, after setting a
 *                 handler (SA_RESTART|SA_SIGINFO, a mask) and after SIG_IGN,
 *                 and the old action sigaction returns each time
 *   own SIG       installs its own handler for SIG, raises it: the handler
 *                 must run ("handler ran"), then prints "after"
 *   sleep         sleep(), usleep(), nanosleep(), clock_nanosleep() and a
 *                 pipe read, each interrupted by a handled SIGALRM (no
 *                 SA_RESTART): prints return values, errno and the time left
 *                 (roughly, where the call reports it)
 *
 * SIG is a name without SIG (PIPE, ALRM, TERM, USR2, RTMIN+3, ...) or a
 * number.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

static int signal_number(const char *s)
{
	static const struct { const char *name; int sig; } names[] = {
		{"PIPE", SIGPIPE}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"USR1", SIGUSR1},
		{"USR2", SIGUSR2}, {"HUP", SIGHUP}, {"INT", SIGINT}, {"VTALRM", SIGVTALRM},
		{"PROF", SIGPROF}, {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ}, {"IO", SIGIO},
		{"PWR", SIGPWR}, {"STKFLT", SIGSTKFLT}, {"SYS", SIGSYS}, {"TRAP", SIGTRAP},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	if (strncmp(s, "RTMIN", 5) == 0)
		return SIGRTMIN + atoi(s + 5);
	if (strncmp(s, "RTMAX", 5) == 0)
		return SIGRTMAX + atoi(s + 5);
	return atoi(s);
}

static void work(void);

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
}

static void describe(const char *what, int sig, const struct sigaction *sa)
{
	const char *h = sa->sa_handler == SIG_DFL ? "SIG_DFL"
		      : sa->sa_handler == SIG_IGN ? "SIG_IGN"
		      : (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_info ? "on_info"
		      : sa->sa_handler == on_signal ? "on_signal" : "a handler not the program's";
	printf("%d %s: %s flags %#x mask has USR1: %d\n", sig, what, h, (unsigned)sa->sa_flags,
	       sigismember(&sa->sa_mask, SIGUSR1));
}

/* What the program reads back is what it set, whatever the tracer installs
 * for itself. */
static int dispositions(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || (sig > 31 && sig < SIGRTMIN))
			continue;
		struct sigaction sa, old;
		if (sigaction(sig, NULL, &old) != 0)
			continue;
		describe("at start", sig, &old);
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, &old);
		describe("old when setting SIG_DFL", sig, &old);
		sigaction(sig, NULL, &old);
		describe("after SIG_DFL", sig, &old);
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_info;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGUSR1);
		sigaction(sig, &sa, &old);
		describe("old when setting a handler", sig, &old);
		sigaction(sig, NULL, &old);
		describe("after a handler", sig, &old);
		signal(sig, SIG_IGN);
		sigaction(sig, NULL, &old);
		describe("after SIG_IGN", sig, &old);
		sa.sa_handler = on_signal;
		sa.sa_flags = 0;
		sigemptyset(&sa.sa_mask);
		sigaction(sig, &sa, &old);
		describe("old when setting on_signal", sig, &old);
		signal(sig, SIG_DFL);
		sigaction(sig, NULL, &old);
		describe("at the end", sig, &old);
	}
	work();
	return 0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *work_main(void *arg)
{
	for (int i = 0; i < 50; i++) {
		pthread_mutex_lock(&mu);
		free(malloc(32));
		usleep(100);
		pthread_mutex_unlock(&mu);
	}
	return arg;
}

static void work(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work_main, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

/* A one-shot handled SIGALRM after ms milliseconds. */
static void alarm_in(int ms)
{
	struct itimerval it = {{0, 0}, {ms / 1000, (ms % 1000) * 1000}};
	setitimer(ITIMER_REAL, &it, NULL);
}

/* The time a 1 s call interrupted after 300 ms reports left: about 0.7 s
 * (a wide band: the machine may be loaded), else the value. */
static const char *left(const struct timespec *ts)
{
	static char buf[64];
	long ms = ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
	if (ms >= 400 && ms <= 950)
		return "about 0.7 s left";
	snprintf(buf, sizeof buf, "%ld ms left", ms);
	return buf;
}

static int sleeps(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);

	alarm_in(50);
	unsigned r = sleep(1);
	printf("sleep(1) interrupted after 50 ms: %u\n", r);
	alarm_in(300);
	r = sleep(3);
	printf("sleep(3) interrupted after 300 ms: %u\n", r);

	alarm_in(50);
	errno = 0;
	int u = usleep(1000000);
	printf("usleep(1 s) interrupted after 50 ms: %d errno %s\n", u, errno ? strerrorname_np(errno) : "0");

	struct timespec req = {1, 0}, rem = {0, 0};
	alarm_in(300);
	errno = 0;
	int n = nanosleep(&req, &rem);
	printf("nanosleep(1 s) interrupted after 300 ms: %d errno %s, %s\n", n,
	       errno ? strerrorname_np(errno) : "0", left(&rem));

	rem.tv_sec = rem.tv_nsec = 0;
	alarm_in(300);
	int c = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem);
	printf("clock_nanosleep(1 s) interrupted after 300 ms: %s, %s\n",
	       c ? strerrorname_np(c) : "0", left(&rem));

	int p[2];
	if (pipe(p) != 0)
		return 1;
	char b;
	alarm_in(50);
	errno = 0;
	ssize_t rd = read(p[0], &b, 1);
	printf("read(empty pipe) interrupted after 50 ms: %zd errno %s\n", rd, errno ? strerrorname_np(errno) : "0");
	printf("handled %d\n", (int)handled);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "raise") == 0 && argc > 2) {
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		work();
		kill(getpid(), signal_number(argv[2]));
		printf("survived\n");
		return 0;
	}
	if (strcmp(mode, "own") == 0 && argc > 2) {
		int sig = signal_number(argv[2]);
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigaction(sig, &sa, NULL);
		work();
		kill(getpid(), sig);
		printf("handler %s\n", handled ? "ran" : "did not run");
		struct sigaction now;
		sigaction(sig, NULL, &now);
		printf("disposition reads back: %s\n", now.sa_handler == on_signal ? "the program's handler" : "something else");
		return 0;
	}
	if (strcmp(mode, "sleep") == 0)
		return sleeps();
	if (strcmp(mode, "dispositions") == 0)
		return dispositions();
	fprintf(stderr, "usage: hostile_signals raise SIG | own SIG | sleep | dispositions\n");
	return 2;
}
