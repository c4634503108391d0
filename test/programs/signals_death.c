/* signals_death.c — records something worth keeping, then dies by a
 * signal whose default action ends the process, the way that signal
 * usually comes:
 *
 *   signals_death SIGNAL [joined|alive] [FILE]
 *
 * First three threads contend for a mutex (sync blocks in the trace). With
 * "joined" (the default) they are joined before the signal, so the process
 * dies with one thread; with "alive" they wait on a condition variable
 * until the end. Then, by SIGNAL:
 *   PIPE    writes to stdout until the reader is gone (run it as `| head -c1`)
 *   ALRM    alarm(1), then pause()
 *   VTALRM  setitimer(ITIMER_VIRTUAL), then computes
 *   PROF    setitimer(ITIMER_PROF), then computes
 *   XCPU    a 1 s CPU time limit, then computes
 *   XFSZ    a 4 MiB file size limit, then writes 5 MiB to FILE
 *   IO      O_ASYNC on a pipe it owns, then writes to that pipe
 *   TERM    prints "ready" and waits for someone to send it
 *   other   (USR1, USR2, PWR, RTMIN+N, ...) kill(getpid(), SIGNAL)
 * It never prints anything after the signal: the exit status says it all. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int counter, contended_done;

static void *contend_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 40; i++) {
		pthread_mutex_lock(&mu);
		counter++;
		usleep(300);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	while (!contended_done)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static volatile double sink;

static void compute_forever(void)
{
	double x = 1.0;
	for (;;) {
		for (int i = 0; i < 1000000; i++)
			x = x * 1.0000001 + 1e-9;
		sink = x;
	}
}

static int signal_by_name(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} names[] = {
		{ "HUP", SIGHUP },   { "INT", SIGINT },   { "QUIT", SIGQUIT },   { "USR1", SIGUSR1 },
		{ "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM },   { "TERM", SIGTERM },
		{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
		{ "IO", SIGIO },     { "PWR", SIGPWR },   { "SYS", SIGSYS },     { "STKFLT", SIGSTKFLT },
		{ "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
	};
	if (strncmp(s, "RTMIN+", 6) == 0)
		return SIGRTMIN + atoi(s + 6);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].sig;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !signal_by_name(argv[1])) {
		fprintf(stderr, "usage: signals_death SIGNAL [joined|alive] [FILE]\n");
		return 2;
	}
	const char *name = argv[1];
	int sig = signal_by_name(name);
	int alive = argc > 2 && strcmp(argv[2], "alive") == 0;
	const char *file = argc > 3 ? argv[3] : "/dev/null";

	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, contend_worker, NULL);
	for (;;) {
		pthread_mutex_lock(&mu);
		int c = counter;
		pthread_mutex_unlock(&mu);
		if (c == 120)
			break;
		usleep(1000);
	}
	if (!alive) {
		pthread_mutex_lock(&mu);
		contended_done = 1;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
	}

	if (sig == SIGPIPE) {
		for (;;)
			if (write(1, "x\n", 2) < 0)
				return 3; /* EPIPE: SIGPIPE was not fatal */
	} else if (sig == SIGALRM) {
		alarm(1);
		for (;;)
			pause();
	} else if (sig == SIGVTALRM || sig == SIGPROF) {
		struct itimerval it = { { 0, 0 }, { 0, 20000 } };
		setitimer(sig == SIGPROF ? ITIMER_PROF : ITIMER_VIRTUAL, &it, NULL);
		compute_forever();
	} else if (sig == SIGXCPU) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		struct rlimit rl = { (rlim_t)ru.ru_utime.tv_sec + (rlim_t)ru.ru_stime.tv_sec + 1, RLIM_INFINITY };
		setrlimit(RLIMIT_CPU, &rl);
		compute_forever();
	} else if (sig == SIGXFSZ) {
		struct rlimit rl = { 4 << 20, RLIM_INFINITY };
		setrlimit(RLIMIT_FSIZE, &rl);
		int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		static char block[65536];
		for (int i = 0; i < 80; i++)
			if (write(fd, block, sizeof block) < 0)
				return 3; /* EFBIG: SIGXFSZ was not fatal */
		return 4;
	} else if (sig == SIGIO) {
		int p[2];
		if (pipe(p) != 0)
			return 5;
		fcntl(p[0], F_SETOWN, getpid());
		fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_ASYNC);
		(void)!write(p[1], "x", 1);
		for (;;)
			pause();
	} else if (sig == SIGTERM) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	} else {
		kill(getpid(), sig);
		for (;;)
			pause();
	}
	return 0;
}
