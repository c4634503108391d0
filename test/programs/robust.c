/* robust.c — endings and process changes, chosen by argv[1]:
 *   work      two threads contend for a while (argv[2] ms), print, exit 0
 *   fork      fork three children that run threads and exit 7; parent waits
 *   exec      print, then exec itself with "work 50"
 *   segv      crash with SIGSEGV after some contention
 *   handled   install a SIGSEGV handler that recovers with siglongjmp, fault
 *             three times, print, exit 0
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static int *volatile bad_pointer = (int *)8; /* not constant: no warning */
static long counter;

static void *contend_main(void *arg)
{
	while (!stop) {
		pthread_mutex_lock(&mu);
		counter++;
		usleep(200);
		pthread_mutex_unlock(&mu);
		usleep(50);
	}
	return arg;
}

static void contend(int ms)
{
	pthread_t t[2];
	stop = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, contend_main, NULL);
	usleep((useconds_t)ms * 1000);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static sigjmp_buf env;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "work";
	int ms = argc > 2 ? atoi(argv[2]) : 200;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "work") == 0) {
		contend(ms);
		printf("work done\n");
		return 0;
	}
	if (strcmp(mode, "fork") == 0) {
		contend(20);
		for (int k = 0; k < 3; k++) {
			pid_t c = fork();
			if (c == 0) {
				pthread_mutex_init(&mu, NULL);
				contend(30);
				_exit(7);
			}
			int st = 0;
			waitpid(c, &st, 0);
			printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		}
		return 0;
	}
	if (strcmp(mode, "exec") == 0) {
		contend(20);
		printf("exec\n");
		execl("/proc/self/exe", argv[0], "work", "50", (char *)NULL);
		return 1;
	}
	if (strcmp(mode, "segv") == 0) {
		contend(100);
		*(volatile int *)bad_pointer = 1;
		return 0;
	}
	if (strcmp(mode, "handled") == 0) {
		signal(SIGSEGV, on_segv);
		int recovered = 0;
		for (int i = 0; i < 3; i++) {
			if (sigsetjmp(env, 1) == 0)
				*(volatile int *)bad_pointer = 1;
			else
				recovered++;
		}
		contend(50);
		printf("recovered %d\n", recovered);
		return 0;
	}
	return 2;
}
