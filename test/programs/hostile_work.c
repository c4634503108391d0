/* hostile_work.c — ordinary traced work for the issue 12 tests that vary
 * what is around the program (output paths, kills, wrappers, a full disk).
 * Modes (argv[1]):
 *
 *   work MS        two threads (work_main) contend for a mutex and allocate
 *                  for MS ms; prints "work done", exits 0
 *   forever        the same until killed
 *   alloc SECONDS  two threads (alloc_main) allocate and free for SECONDS;
 *                  prints "alloc done"
 *   forkexec SELF  works, then forks three children and waits for each:
 *                  one closes every descriptor above 2 and execs SELF work 30,
 *                  one does closefrom(3) and execs /bin/true, one closes every
 *                  descriptor (stdin/out/err too) and execs SELF work 10
 *                  (it prints nothing then); prints each child's exit status
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static volatile long sink;

static void *work_main(void *arg)
{
	unsigned n = 0;
	while (!stop) {
		pthread_mutex_lock(&mu);
		char *p = malloc(32 + n++ % 100);
		p[0] = 1;
		sink += p[0];
		usleep(100);
		free(p);
		pthread_mutex_unlock(&mu);
		usleep(50);
	}
	return arg;
}

static void *alloc_main(void *arg)
{
	void *keep[64] = {0};
	unsigned n = 0;
	while (!stop) {
		unsigned i = n++ % 64;
		free(keep[i]);
		keep[i] = malloc(16 + (n * 37) % 2000);
		if ((n & 1023) == 0)
			usleep(100);
	}
	for (int i = 0; i < 64; i++)
		free(keep[i]);
	return arg;
}

static void run_for(void *(*fn)(void *), double seconds)
{
	pthread_t t[2];
	stop = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fn, NULL);
	if (seconds < 0) {
		for (;;)
			pause();
	}
	struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
	nanosleep(&ts, NULL);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static int forkexec(const char *self)
{
	run_for(work_main, 0.03);
	for (int k = 0; k < 3; k++) {
		pid_t c = fork();
		if (c == 0) {
			if (k == 0) {
				close_range(3, ~0U, 0);
				execl(self, self, "work", "30", (char *)NULL);
			} else if (k == 1) {
				closefrom(3);
				execl("/bin/true", "true", (char *)NULL);
			} else {
				close_range(0, ~0U, 0);
				execl(self, self, "work", "10", (char *)NULL);
			}
			_exit(127);
		}
		int st = 0;
		waitpid(c, &st, 0);
		printf("child %d: %s %d\n", k, WIFEXITED(st) ? "exit" : "signal",
		       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "work";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "work") == 0) {
		run_for(work_main, (argc > 2 ? atoi(argv[2]) : 100) / 1000.0);
		printf("work done\n");
		return 0;
	}
	if (strcmp(mode, "forever") == 0) {
		run_for(work_main, -1);
		return 0;
	}
	if (strcmp(mode, "alloc") == 0) {
		run_for(alloc_main, argc > 2 ? atof(argv[2]) : 1.0);
		printf("alloc done\n");
		return 0;
	}
	if (strcmp(mode, "forkexec") == 0 && argc > 2)
		return forkexec(argv[2]);
	fprintf(stderr, "usage: hostile_work work MS | forever | alloc SECONDS | forkexec SELF\n");
	return 2;
}
