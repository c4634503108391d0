/* make_seeds.c — writes the synthetic seed traces of test/fuzz/corpus:
 *
 *   valid-heap-23, valid-heap-26   two generations of heap events, tables first
 *   valid-heap-tables-last-23      the same with every table after the events
 *   valid-heap-sampled-26          the same, sampled: mean 1024 in generation 1,
 *                                  4096 in generation 2 (tools/heap_sample.h)
 *   reader-fixture-23/-26          the reader tests' fixture (CPU samples, an
 *                                  AllocFree batch the heap reader rejects)
 *
 * Build and run: test/fuzz/run.sh seeds. The traces traced from real
 * programs (valid-lib-*) come from the library, see run.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/test_heap_fixture.h"
#include "test/unit/test_reader_fixture.h"

static uint8_t mem[1 << 16];

static void save(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void tables(struct hx *t, unsigned g, int sampled)
{
	static const char *const names[] = { "malloc", "leak_fn", "main", "heap.c" };
	static const char *const statement[] = { "gotrace.heap sample_bytes=1024", "gotrace.heap sample_bytes=4096" };
	hx_strings(t, g, 1, names, 4);
	if (sampled)
		hx_strings(t, g, 5, &statement[g - 1], 1);
	struct gt_frame fr[3] = { { 0x1000, 1, 4, 10 }, { 0x2000 + g, 2, 4, 20 }, { 0x3000, 3, 4, 30 } };
	hx_stack(t, g, g, fr, 3);
	hx_info(t, g, 0, 8);
	struct hx_type ty[2] = { { 1, g, 48 }, { 2, g, 4000 } };
	hx_types(t, g, ty, 2);
}

static size_t heap_trace(int format, int tables_last, int sampled)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, format);
	for (unsigned g = 1; g <= 2; g++) {
		uint64_t base = g * 100000;
		hx_sync(&t, g, base);
		if (!tables_last)
			tables(&t, g, sampled);
		struct hx_ev ev[] = {
			{ GT_EV_HEAP_OBJECT_ALLOC, base + 10, 100 + g, 1 },
			{ GT_EV_HEAP_OBJECT_ALLOC, base + 11, 7, 2 },
			{ GT_EV_HEAP_ALLOC, base + 12, 4048, 0 },
			{ GT_EV_HEAP_OBJECT_FREE, base + 13, 7, 0 },
			{ GT_EV_HEAP_OBJECT_FREE, base + 14, 99, 0 },
			{ GT_EV_HEAP_OBJECT_ALLOC, base + 15, 7, 0 },
		};
		struct hx_ev other[] = {
			{ GT_EV_HEAP_OBJECT_FREE, base + 20, 7, 0 },
			{ GT_EV_HEAP_OBJECT_ALLOC, base + 21, 8, 1 },
		};
		hx_events(&t, g, 2, other, 2);
		hx_events(&t, g, 1, ev, sizeof ev / sizeof ev[0]);
		if (tables_last)
			tables(&t, g, sampled);
		hx_end_gen(&t);
	}
	return t.full ? 0 : t.len;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "test/fuzz/corpus";
	save(dir, "valid-heap-23", mem, heap_trace(23, 0, 0));
	save(dir, "valid-heap-26", mem, heap_trace(26, 0, 0));
	save(dir, "valid-heap-tables-last-23", mem, heap_trace(23, 1, 0));
	save(dir, "valid-heap-sampled-26", mem, heap_trace(26, 0, 1));
	size_t n = fx_trace(23, 2, mem, sizeof mem);
	save(dir, "reader-fixture-23", mem, n);
	n = fx_trace(26, 2, mem, sizeof mem);
	save(dir, "reader-fixture-26", mem, n);
	return 0;
}
