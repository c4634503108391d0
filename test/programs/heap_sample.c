/* heap_sample.c — allocations with known sizes and counts, for sampled heap
 * recording (test_heap_events.py). Deterministic: the same allocations in
 * the same order on every run.
 *
 *   sites    one thread: site A 100 000 x 24 B freed at once; site B
 *            2 000 x 4096 B kept, freed at the end; site C 20 x 1 MiB never
 *            freed (a leak)
 *   threads  a producer allocates 200 000 x 40 B (8 MB), a consumer frees
 *            them: every free on another thread than its allocation
 *   fork     site B's 2 000 blocks, then fork: the child frees them,
 *            allocates and frees 100 000 x 24 B, exits; the parent frees
 *            its blocks after the child */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long sum;

static __attribute__((noinline)) void *site_a(void) { return malloc(24); }
static __attribute__((noinline)) void *site_b(void) { return malloc(4096); }
static __attribute__((noinline)) void *site_c(void) { return malloc(1 << 20); }

static void touch(void *p, size_t n)
{
	memset(p, 1, n);
	sum += ((unsigned char *)p)[n - 1];
}

static void **blocks_b(void)
{
	void **b = calloc(2000, sizeof *b);
	for (int i = 0; i < 2000; i++) {
		b[i] = site_b();
		touch(b[i], 4096);
	}
	return b;
}

static void free_b(void **b)
{
	for (int i = 0; i < 2000; i++)
		free(b[i]);
	free(b);
}

static void churn_a(void)
{
	for (int i = 0; i < 100000; i++) {
		void *p = site_a();
		touch(p, 24);
		free(p);
	}
}

#define QN 1024
static void *queue[QN];
static unsigned head, tail;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcond = PTHREAD_COND_INITIALIZER;
#define ITEMS 200000

static void *consumer(void *arg)
{
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&qlock);
		while (head == tail)
			pthread_cond_wait(&qcond, &qlock);
		void *p = queue[tail++ % QN];
		pthread_cond_broadcast(&qcond);
		pthread_mutex_unlock(&qlock);
		sum += ((unsigned char *)p)[0];
		free(p);
	}
	return arg;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sites";
	if (strcmp(mode, "sites") == 0) {
		churn_a();
		void **b = blocks_b();
		for (int i = 0; i < 20; i++)
			touch(site_c(), 1 << 20);
		free_b(b);
	} else if (strcmp(mode, "threads") == 0) {
		pthread_t t;
		pthread_create(&t, NULL, consumer, NULL);
		for (int i = 0; i < ITEMS; i++) {
			void *p = malloc(40);
			memset(p, 2, 40);
			pthread_mutex_lock(&qlock);
			while (head - tail == QN)
				pthread_cond_wait(&qcond, &qlock);
			queue[head++ % QN] = p;
			pthread_cond_broadcast(&qcond);
			pthread_mutex_unlock(&qlock);
		}
		pthread_join(t, NULL);
	} else if (strcmp(mode, "fork") == 0) {
		void **b = blocks_b();
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			free_b(b);
			churn_a();
			printf("child %lu\n", sum);
			exit(0);
		}
		int st;
		waitpid(pid, &st, 0);
		free_b(b);
		printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	} else {
		fprintf(stderr, "usage: heap_sample [sites|threads|fork]\n");
		return 2;
	}
	printf("%s %lu\n", mode, sum);
	return 0;
}
