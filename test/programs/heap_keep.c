/* heap_keep.c — objects kept for the whole run, for the live-heap snapshot
 * (docs/heap.md, "The live-heap snapshot"):
 *
 *   keep_fn    allocates K = 3000 objects of S = 96 bytes at the start and
 *              keeps them until exit (288,000 bytes live all along)
 *   churn_fn   then, for about `ms` milliseconds (argv[1], default 300):
 *              short-lived 64-byte blocks, freed at once, and a 2 ms sleep
 *              every 64 of them, so the run spans many generations
 *
 * Each function allocates nothing else and is never inlined or cloned, so
 * its name is the allocation site. Prints a checksum (same traced or not);
 * with a second argument, raises that signal number at itself at the end
 * (the flight recorder's snapshot signal). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define K 3000
#define S 96

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noipa))
#endif

static unsigned char *kept[K];
static unsigned long sum; /* of the kept bytes only: the churn's count depends on time */

SITE void keep_fn(void)
{
	for (int i = 0; i < K; i++) {
		kept[i] = malloc(S);
		if (!kept[i])
			exit(2);
		memset(kept[i], i, S);
	}
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

SITE void churn_fn(double ms)
{
	double end = now_ms() + ms;
	for (int i = 0; now_ms() < end; i++) {
		unsigned char *volatile p = malloc(64);
		if (!p)
			exit(2);
		p[0] = (unsigned char)i;
		free(p);
		if (i % 64 == 63)
			usleep(2000);
	}
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	keep_fn();
	churn_fn(ms);
	for (int i = 0; i < K; i++)
		sum += kept[i][S - 1];
	printf("heap_keep %lu\n", sum % 1000);
	fflush(stdout);
	if (argc > 2)
		raise(atoi(argv[2]));
	for (int i = 0; i < K; i++)
		free(kept[i]);
	return 0;
}
