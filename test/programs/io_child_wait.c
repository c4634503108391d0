/* io_child_wait: waiting for child processes, which the tracer records as
 * system calls.
 *
 * 1. wait_child: fork + exec of /bin/sleep 0.2; child_still_running asks
 *    waitpid(WNOHANG) 50 times first (returns 0 at once: nothing to
 *    record), then
 *    wait_child waits in waitpid for about 200 ms.
 * 2. run_system: system("sleep 0.2") waits for about 200 ms.
 * 3. run_popen: popen("echo popen-ok"), fgets, pclose.
 *
 * Traced, the children (sleep, sh) are traced too and write their own
 * trace files next to the parent's (GOTRACE_OUT.<pid>).
 * Every return value is checked; the output is deterministic.  Exits 0
 * ("all checks passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static void describe(const char *who, int st)
{
	if (WIFEXITED(st))
		printf("%s: exited with status %d\n", who, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s: killed by signal %d\n", who, WTERMSIG(st));
	else
		printf("%s: status 0x%x\n", who, st);
}

#define PROBES 50

/* How many of PROBES waitpid(WNOHANG) calls found the child running. */
NOINLINE static int child_still_running(pid_t pid)
{
	int running = 0;
	for (int i = 0; i < PROBES; i++) {
		int st = 0;
		if (waitpid(pid, &st, WNOHANG) == 0)
			running++;
	}
	return running;
}

NOINLINE static void wait_child(void)
{
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		execl("/bin/sleep", "sleep", "0.2", (char *)NULL);
		_exit(127);
	}
	int running = child_still_running(pid);
	printf("waitpid(WNOHANG): child still running %d of %d times\n", running, PROBES);
	CHECK(running == PROBES, "waitpid(WNOHANG)");
	int st = 0;
	pid_t r = waitpid(pid, &st, 0);
	CHECK(r == pid, "waitpid");
	describe("waitpid: sleep 0.2", st);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sleep 0.2 succeeded");
}

NOINLINE static void run_system(void)
{
	fflush(stdout);
	int st = system("sleep 0.2");
	CHECK(st != -1, "system");
	describe("system: sleep 0.2", st);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "system succeeded");
}

NOINLINE static void run_popen(void)
{
	fflush(stdout);
	FILE *f = popen("echo popen-ok", "r");
	CHECK(f != NULL, "popen");
	char line[64] = "";
	CHECK(fgets(line, sizeof line, f) != NULL, "fgets");
	line[strcspn(line, "\n")] = 0;
	int st = pclose(f);
	CHECK(st != -1, "pclose");
	printf("popen: read \"%s\"\n", line);
	describe("pclose", st);
	CHECK(strcmp(line, "popen-ok") == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "popen");
}

int main(void)
{
	wait_child();
	run_system();
	run_popen();
	printf("io_child_wait: all checks passed\n");
	return 0;
}
