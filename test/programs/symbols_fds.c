/* symbols_fds: two threads make many distinct stacks — through libc's qsort
 * and bsearch, through the libraries named on the command line (dlopen'ed,
 * each exporting symfd_work), and through 16 functions of the program —
 * for about 300 ms; then main lists its descriptors.
 *
 * Every allocation and every sched_yield is an event with a stack, so a
 * traced run symbolizes a few hundred distinct PCs in every generation.
 * Output: "dirfd N" (the descriptor the listing itself uses), then one
 * "fd N TARGET" line per open descriptor. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define RUN_MS 300
#define NLIBS 4

typedef int (*work_fn)(int);
static work_fn lib_work[NLIBS];
static int nlibs;

#define LEAF(n)                                                  \
	__attribute__((noinline)) static int leaf##n(int x)      \
	{                                                        \
		void *p = malloc(16 + n);                        \
		sched_yield();                                   \
		free(p);                                         \
		__asm__ volatile("" ::: "memory");               \
		return x + n;                                    \
	}
LEAF(0) LEAF(1) LEAF(2) LEAF(3) LEAF(4) LEAF(5) LEAF(6) LEAF(7)
LEAF(8) LEAF(9) LEAF(10) LEAF(11) LEAF(12) LEAF(13) LEAF(14) LEAF(15)

static int (*const leaves[16])(int) = {
	leaf0, leaf1, leaf2,  leaf3,  leaf4,  leaf5,  leaf6,  leaf7,
	leaf8, leaf9, leaf10, leaf11, leaf12, leaf13, leaf14, leaf15,
};

/* The comparator runs inside libc (qsort, bsearch): some of its calls
 * allocate, so stacks pass through libc's frames. */
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (((x ^ y) & 31) == 0)
		leaves[(unsigned)(x + y) & 15](x);
	return (x > y) - (x < y);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	double end = now_ms() + RUN_MS;
	for (int round = 0; now_ms() < end; round++) {
		int v[64];
		for (int i = 0; i < 64; i++)
			v[i] = rand_r(&seed) & 1023;
		qsort(v, 64, sizeof *v, cmp);
		int key = v[round & 63];
		bsearch(&key, v, 64, sizeof *v, cmp);
		for (int k = 0; k < 16; k++)
			leaves[k](round);
		for (int l = 0; l < nlibs; l++)
			lib_work[l](round);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc && nlibs < NLIBS; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		work_fn fn = h ? (work_fn)dlsym(h, "symfd_work") : NULL;
		if (!fn) {
			fprintf(stderr, "symbols_fds: %s: %s\n", argv[i], dlerror());
			return 1;
		}
		lib_work[nlibs++] = fn;
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)) != 0)
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	/* Time for the tracer to write (and symbolize) what the threads did. */
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	nanosleep(&pause, NULL);

	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 1;
	printf("dirfd %d\n", dirfd(d));
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (e->d_name[0] == '.')
			continue;
		char link[4096] = "", path[300];
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, link, sizeof link - 1);
		if (n > 0)
			link[n] = '\0';
		printf("fd %s %s\n", e->d_name, link);
	}
	closedir(d);
	return 0;
}
