/* hostile_seccomp.c — a thread that enters seccomp strict mode, where read,
 * write, _exit and sigreturn are its only system calls (any other one is a
 * SIGKILL) and rdtsc faults; test_safety.py's SeccompStrictTest.
 *
 *   hostile_seccomp prctl N    main enters the mode with prctl, writes N
 *                              lines, _exits with status 7
 *   hostile_seccomp syscall N  the same through syscall(SYS_seccomp, ...)
 *   hostile_seccomp thread N   a worker (after some mutex work) enters the
 *                              mode, writes N lines and _exits its thread;
 *                              main joins it, works on and returns 0
 *
 * Each thread computes a little between its writes (the CPU sampler's
 * timer would fire on it), and writes with write(2) only. */
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

static void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += (unsigned long)i * 2654435761u;
}

static void put(const char *who, int i)
{
	char buf[64];
	int len = snprintf(buf, sizeof buf, "%s line %d\n", who, i);
	if (write(1, buf, (size_t)len) != len)
		syscall(SYS_exit, 3);
}

static void strict_lines(const char *how, const char *who, int n)
{
	int r = strcmp(how, "syscall") == 0 ? (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL)
					    : prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
	if (r != 0)
		syscall(SYS_exit, 2);
	for (int i = 0; i < n; i++) {
		spin(2000);
		put(who, i);
	}
}

static void *worker(void *arg)
{
	int n = (int)(long)arg;
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&mu);
		spin(100);
		pthread_mutex_unlock(&mu);
	}
	strict_lines("prctl", "worker", n);
	syscall(SYS_exit, 0); /* the thread only: exit_group is not allowed */
	return NULL;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "prctl";
	int n = argc > 2 ? atoi(argv[2]) : 1000;
	printf("hostile_seccomp %s %d\n", how, n);
	fflush(stdout);
	if (strcmp(how, "thread") == 0) {
		pthread_t th;
		if (pthread_create(&th, NULL, worker, (void *)(long)n) != 0)
			return 1;
		for (int i = 0; i < 1000; i++) {
			pthread_mutex_lock(&mu);
			spin(100);
			pthread_mutex_unlock(&mu);
		}
		pthread_join(th, NULL);
		usleep(20000);
		printf("main done\n");
		return 0;
	}
	strict_lines(how, "main", n);
	syscall(SYS_exit, 7); /* exit_group is not allowed either */
	return 0;
}
