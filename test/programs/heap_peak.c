/* heap_peak.c — a heap whose peak is known, for the heap figures of
 * `gotrace stat`, `gotrace heap` and the HeapAlloc metric (docs/heap.md):
 *
 *   heap_peak short   ~54 KiB in 216 objects of 256 bytes, then all freed:
 *                     about 2 ms, well under the metric's 10 ms period
 *   heap_peak long    300 ms of waves: each wave allocates a number of
 *                     64-4096 byte objects (a different height each time,
 *                     the highest, 1 MiB, in the middle), frees them all
 *                     and sleeps 10 ms; a leak of 1000 bytes stays
 *
 * One thread; the figures do not depend on timing. Prints a checksum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

static unsigned long sum;

NOINLINE static void wave(size_t bytes, size_t size)
{
	size_t n = bytes / size;
	unsigned char **v = malloc(n * sizeof *v);
	CHECK(v != NULL, "malloc");
	for (size_t i = 0; i < n; i++) {
		v[i] = malloc(size);
		CHECK(v[i] != NULL, "malloc");
		memset(v[i], (int)i, size);
	}
	for (size_t i = 0; i < n; i++) {
		sum += v[i][size - 1];
		free(v[i]);
	}
	free(v);
}

static void nap(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "long") == 0) {
		static const size_t heights[] = { 200, 400, 300, 700, 1024, 600, 800, 100, 500, 900 };
		char *leak = malloc(1000);
		CHECK(leak != NULL, "malloc");
		memset(leak, 1, 1000);
		for (int k = 0; k < 30; k++) {
			size_t h = heights[k % 10] * 1024;
			if (k == 15)
				h = 1024 * 1024;
			else if (h >= 1024 * 1024)
				h = 1000 * 1024;
			wave(h, (size_t)64 << (k % 7));
			nap(10);
		}
		sum += (unsigned char)leak[999];
	} else {
		wave(216 * 256, 256);
	}
	printf("checksum %lu\n", sum);
	return 0;
}
