/* ident_self.c — a process that says who it is, for the process identity
 * of a trace (core/identity.h, docs/design.md "Output file"):
 *
 *   ident_self [ARGS...]          prints "self pid=P ppid=Q" on stderr
 *   ident_self write N ...        and writes N lines on stdout (a pipeline's head)
 *   ident_self read ...           and counts the lines of stdin (its tail)
 *   ident_self fork ...           and forks a child that does not exec; the
 *                                 child prints its own line, works 20 ms, exits
 *   ident_self run MS ...         and works (malloc, sleep) for MS ms
 *
 * Every line goes out with one write(2), so the lines of processes sharing
 * stderr do not mix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static void say(const char *who)
{
	char line[128];
	int n = snprintf(line, sizeof line, "%s pid=%d ppid=%d\n", who, (int)getpid(), (int)getppid());
	CHECK(write(2, line, (size_t)n) == n, "write");
}

static void work(long ms)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		char *p = malloc(4096);
		CHECK(p != NULL, "malloc");
		memset(p, 1, 4096);
		free(p);
		struct timespec d = { 0, 2000000 };
		nanosleep(&d, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 >= ms)
			break;
	}
}

int main(int argc, char **argv)
{
	say("self");
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "write") == 0) {
		long n = argc > 2 ? atol(argv[2]) : 1000;
		for (long i = 0; i < n; i++)
			printf("line %ld\n", i);
	} else if (strcmp(mode, "read") == 0) {
		char buf[256];
		long n = 0;
		while (fgets(buf, sizeof buf, stdin))
			n++;
		printf("read %ld lines\n", n);
	} else if (strcmp(mode, "fork") == 0) {
		fflush(stdout);
		pid_t c = fork();
		CHECK(c >= 0, "fork");
		if (c == 0) {
			say("child");
			work(20);
			exit(0);
		}
		int st;
		CHECK(waitpid(c, &st, 0) == c, "waitpid");
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status");
	} else if (strcmp(mode, "run") == 0) {
		work(argc > 2 ? atol(argv[2]) : 100);
	}
	return 0;
}
