/* heap_zoo.c — every allocation function once or more, with checks of what
 * each returns; used to see that tracing the heap changes nothing. An
 * optional argument "churn" adds 5000 malloc/free pairs on two threads. */
/* A failed reallocarray leaves its block valid; GCC cannot know it failed. */
#pragma GCC diagnostic ignored "-Wuse-after-free"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failures++;
}

static void *churn_main(void *arg)
{
	for (int i = 0; i < 5000; i++) {
		volatile char *p = malloc(32 + (size_t)(i % 64));
		p[0] = (char)i;
		free((void *)p);
	}
	return arg;
}

int main(int argc, char **argv)
{
	char *m = malloc(100);
	check(m && malloc_usable_size(m) >= 100, "malloc + malloc_usable_size");
	memset(m, 7, 100);

	int *c = calloc(50, sizeof *c);
	int zero = 1;
	for (int i = 0; i < 50; i++)
		zero &= c[i] == 0;
	check(c && zero, "calloc zeroes");

	char *r = realloc(m, 5000);
	check(r && r[99] == 7, "realloc keeps contents");
	r = realloc(r, 10);
	check(r && r[9] == 7, "realloc shrink");

	void *ra = reallocarray(NULL, 10, 8);
	check(ra != NULL, "reallocarray");
	volatile size_t huge = SIZE_MAX / 2; /* not a constant: no compile-time warning */
	void *over = reallocarray(ra, huge, 4);
	check(over == NULL, "reallocarray overflow fails");

	void *pm = NULL;
	int e = posix_memalign(&pm, 256, 1000);
	check(e == 0 && ((uintptr_t)pm % 256) == 0, "posix_memalign");
	void *bad = NULL;
	volatile size_t three = 3;
	check(posix_memalign(&bad, three, 10) != 0, "posix_memalign rejects a bad alignment");

	void *aa = aligned_alloc(64, 128);
	check(aa && ((uintptr_t)aa % 64) == 0, "aligned_alloc");
	void *ma = memalign(4096, 10);
	check(ma && ((uintptr_t)ma % 4096) == 0, "memalign");
	void *va = valloc(10);
	check(va && ((uintptr_t)va % 4096) == 0, "valloc");

	free(c);
	free(r);
	free(ra);
	free(pm);
	free(aa);
	free(ma);
	free(va);
	free(NULL);

	if (argc > 1 && strcmp(argv[1], "churn") == 0) {
		pthread_t t;
		pthread_create(&t, NULL, churn_main, NULL);
		churn_main(NULL);
		pthread_join(t, NULL);
		check(1, "churn");
	}
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
