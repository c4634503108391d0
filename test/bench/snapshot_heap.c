/* snapshot_heap.c — a heap of N live objects (argv[1], default 1,000,000)
 * kept across several generations, for the cost of the live-heap snapshot
 * (docs/heap.md, "The live-heap snapshot"; test/bench/snapshot_bench.py):
 * allocates them from 8 sites in sizes 16..128, then sleeps `ms`
 * milliseconds (argv[2], default 1000) doing nothing, frees them and
 * exits. A second thread exists (so the flusher thread, not the program's
 * own, writes the generations) and sleeps too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noipa))
#endif

#define SITE_FN(k)                                                   \
	SITE void *site##k(size_t n) { return malloc(n + (k)); }
SITE_FN(0) SITE_FN(1) SITE_FN(2) SITE_FN(3) SITE_FN(4) SITE_FN(5) SITE_FN(6) SITE_FN(7)

static void *(*const sites[8])(size_t) = { site0, site1, site2, site3, site4, site5, site6, site7 };

static void *idle(void *arg)
{
	usleep((useconds_t)(long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	long ms = argc > 2 ? atol(argv[2]) : 1000;
	void **v = calloc((size_t)n, sizeof *v);
	if (!v)
		return 2;
	pthread_t th;
	pthread_create(&th, NULL, idle, (void *)(ms * 1000));
	for (long i = 0; i < n; i++)
		if (!(v[i] = sites[i & 7](16 + (size_t)(i % 8) * 16)))
			return 2;
	usleep((useconds_t)(ms * 1000));
	pthread_join(th, NULL);
	for (long i = 0; i < n; i++)
		free(v[i]);
	free(v);
	printf("snapshot_heap %ld\n", n);
	return 0;
}
