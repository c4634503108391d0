/* hostile_single.c — a program that needs to be single-threaded (issue 12,
 * problem 3), as Chromium's zygote before it forks and anything that calls
 * unshare(CLONE_NEWUSER). Everything it prints must be the same traced and
 * untraced; details go to stderr. Modes (argv[1]):
 *
 *   check
 *       checks it is single-threaded 30 times, 5 ms apart, with traced work
 *       between the checks (allocations, a lock, a sleep, a file opened and
 *       closed), then forks: the child checks too.
 *   joined
 *       the same after it created and joined two threads: it is
 *       single-threaded again once the join returned (a short grace of
 *       GRACE_MS is allowed for the kernel to reap the joined thread,
 *       traced and untraced alike; untraced none is needed).
 *   unshare
 *       creates and joins a thread, then calls unshare(CLONE_NEWUSER)
 *       (which the kernel refuses with EINVAL to a multi-threaded process)
 *       and prints the result.
 *
 * A check is what such programs look at: /proc/self/task has exactly one
 * entry, its link count is 3 (".", ".." and one thread: Chromium's test),
 * and /proc/self/status says "Threads:	1".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECKS 30
#define GRACE_MS 100       /* /proc checks after a join (Chromium waits too) */
#define UNSHARE_GRACE_MS 10 /* unshare after a join: a real program does not retry */

static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int status_threads(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	int n = -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "Threads:", 8) == 0)
			n = atoi(line + 8);
	fclose(f);
	return n;
}

static long task_links(void)
{
	struct stat st;
	return stat("/proc/self/task", &st) == 0 ? (long)st.st_nlink : -1;
}

/* 1 when single-threaded by all three measures; says why not on stderr. */
static int single(const char *when, int i)
{
	int t = tasks(), s = status_threads();
	long l = task_links();
	if (t == 1 && s == 1 && l == 3)
		return 1;
	fprintf(stderr, "hostile_single: %s check %d: %d entries in /proc/self/task, link count %ld, Threads: %d\n",
		when, i, t, l, s);
	return 0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* Traced calls between checks. */
static void some_work(int i)
{
	void *p = malloc(64 + i);
	pthread_mutex_lock(&mu);
	pthread_mutex_unlock(&mu);
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "x", 1) != 1)
			fprintf(stderr, "hostile_single: write failed\n");
		close(fd);
	}
	free(p);
	usleep(5000);
}

static void checks(const char *when)
{
	int ok = 0;
	for (int i = 0; i < CHECKS; i++) {
		ok += single(when, i);
		some_work(i);
	}
	printf("%s: %d of %d checks single-threaded\n", when, ok, CHECKS);
	pid_t c = fork();
	if (c == 0) {
		int k = single("forked child", 0);
		some_work(0);
		k += single("forked child", 1);
		_exit(k == 2 ? 0 : 1);
	}
	int st = 0;
	waitpid(c, &st, 0);
	printf("%s: forked child single-threaded: %s\n", when,
	       WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "yes" : "no");
}

static void *thread_main(void *arg)
{
	free(malloc(100));
	usleep(2000);
	return arg;
}

static void create_and_join(int n)
{
	pthread_t t[2];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

/* The kernel drops a joined thread from the thread group a moment after
 * pthread_join returns; wait for that (at most GRACE_MS). */
static int settle(void)
{
	for (int ms = 0; ms < GRACE_MS; ms++) {
		if (tasks() == 1 && status_threads() == 1 && task_links() == 3)
			return 1;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return single("after join", -1);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "check") == 0) {
		checks("from the start");
		return 0;
	}
	if (strcmp(mode, "joined") == 0) {
		printf("at start: %s\n", single("at start", 0) ? "single-threaded" : "not single-threaded");
		create_and_join(2);
		printf("after join: %s\n", settle() ? "single-threaded" : "not single-threaded");
		checks("after join");
		return 0;
	}
	if (strcmp(mode, "unshare") == 0) {
		create_and_join(1);
		int r = -1, err = 0;
		/* Retry EINVAL for the moment the kernel takes to reap the joined
		 * thread (untraced it succeeds at once: 1000 runs of 1000 here). */
		for (int ms = 0; ms <= UNSHARE_GRACE_MS; ms++) {
			r = unshare(CLONE_NEWUSER);
			err = errno;
			if (r == 0 || err != EINVAL)
				break;
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
		if (r != 0) {
			single("unshare", 0);
			printf("unshare(CLONE_NEWUSER) after a join: %s\n", strerror(err));
			return 1;
		}
		printf("unshare(CLONE_NEWUSER) after a join: ok, uid %d\n", (int)getuid());
		return 0;
	}
	fprintf(stderr, "usage: hostile_single check | joined | unshare\n");
	return 2;
}
