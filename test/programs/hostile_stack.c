/* hostile_stack.c — a thread with the smallest stack POSIX allows
 * (issue 12, problem 7).
 *
 *   hostile_stack DEPTH
 *
 * Starts one thread with a PTHREAD_STACK_MIN (16 KiB) stack that recurses
 * DEPTH frames of about 200 bytes each, then, at the bottom, calls wrapped
 * functions: usleep, malloc and free, and a pthread_mutex_lock that main
 * holds for a few milliseconds (a block, with a stack). Prints "depth DEPTH
 * ok" and exits 0; a stack too small kills it by SIGSEGV.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;

static void __attribute__((noinline)) bottom(void)
{
	usleep(100);
	char *p = malloc(64);
	p[0] = 1;
	sink += p[0];
	free(p);
	pthread_mutex_lock(&mu);
	pthread_mutex_unlock(&mu);
	usleep(100);
}

static int __attribute__((noinline)) recurse(int n)
{
	volatile char pad[200];
	pad[0] = (char)n;
	pad[sizeof pad - 1] = (char)n;
	if (n > 0)
		return recurse(n - 1) + pad[0]; /* not a tail call */
	bottom();
	return pad[sizeof pad - 1];
}

static void *thread_main(void *arg)
{
	sink += recurse((int)(long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long depth = argc > 1 ? atol(argv[1]) : 10;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN) != 0)
		return 3;
	pthread_mutex_lock(&mu);
	pthread_t t;
	int r = pthread_create(&t, &attr, thread_main, (void *)depth);
	if (r != 0) {
		fprintf(stderr, "hostile_stack: pthread_create: %s\n", strerror(r));
		return 4;
	}
	usleep(5000);
	pthread_mutex_unlock(&mu);
	pthread_join(t, NULL);
	printf("depth %ld ok\n", depth);
	return 0;
}
