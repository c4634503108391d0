/* fuzz_one.h — runs one input through everything `gotrace heap` does with a
 * trace: the reader and every cursor (on every batch, whatever its kind),
 * then the heap accounting, the text report and the pprof profile. Used by
 * the libFuzzer harness (fuzz_reader.c) and by the unit test that replays
 * the corpus (test/unit/test_fuzz_corpus.c). Any input must come back
 * without a crash, a hang or (under ASan) a leak. */
#ifndef GT_FUZZ_ONE_H
#define GT_FUZZ_ONE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "encoder/reader.h"
#include "tools/gzip.h"
#include "tools/heap_acct.h"
#include "tools/heap_report.h"
#include "tools/pprof.h"

/* fuzz_cursors runs each cursor over a batch to its end. */
static void fuzz_cursors(const struct gt_rbatch *b, struct gt_stack *stack)
{
	struct gt_event_cursor ec;
	struct gt_event ev;
	gt_events_begin(&ec, b);
	while (gt_events_next(&ec, &ev) > 0)
		;
	struct gt_string_cursor sc;
	struct gt_string s;
	if (gt_strings_begin(&sc, b) == 0)
		while (gt_strings_next(&sc, &s) > 0)
			;
	struct gt_stack_cursor kc;
	if (gt_stacks_begin(&kc, b) == 0)
		while (gt_stacks_next(&kc, stack) > 0)
			;
	struct gt_cpu_sample_cursor cc;
	struct gt_cpu_sample cs;
	if (gt_cpu_samples_begin(&cc, b) == 0)
		while (gt_cpu_samples_next(&cc, &cs) > 0)
			;
	struct gt_sync sync;
	char err[GT_READER_ERR];
	gt_sync_decode(b, &sync, err);
}

/* fuzz_open returns a FILE reading data[0..n). */
static FILE *fuzz_open(const uint8_t *data, size_t n)
{
	static char empty[1];
	return n ? fmemopen((void *)(uintptr_t)data, n, "r") : fmemopen(empty, 0, "r");
}

/* fuzz_file returns a regular file (memfd) holding data[0..n), so that the
 * accounting reads payloads again with pread; NULL if memfds are missing. */
static FILE *fuzz_file(const uint8_t *data, size_t n)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return NULL;
	if ((n && write(fd, data, n) != (ssize_t)n) || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}

/* fuzz_heap reads data with the heap accounting into a fresh *h. */
static int fuzz_heap(struct tool_heap *h, FILE *f)
{
	if (tool_heap_init(h) || !f)
		abort();
	int failed = tool_heap_read(h, f) != 0;
	fclose(f);
	/* Invariants of the accounting. */
	if (h->alloc_objects != h->free_objects + h->live_objects || h->live.n != h->live_objects ||
	    (failed && h->err[0] == '\0'))
		abort();
	/* The estimates: a weight is at least 1, nothing is negative, and no
	 * live object left means exactly nothing live. */
	const struct tool_hest *e = &h->est;
	if (!(e->alloc_objects >= (double)h->alloc_objects) || !(e->live_objects >= 0) || !(e->live_bytes >= 0) ||
	    !(e->var_live_bytes >= 0) || !(h->peak_bytes >= 0) ||
	    (h->live_objects == 0 && (e->live_objects != 0 || e->live_bytes != 0)) ||
	    (h->sampled_gens == 0 && (e->alloc_objects != (double)h->alloc_objects || e->var_alloc_bytes != 0)))
		abort();
	return failed;
}

/* fuzz_one returns 0 when the heap accounting read the input to a clean end,
 * 1 when it stopped at an error; it aborts only on a broken invariant. */
static int fuzz_one(const uint8_t *data, size_t n)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();

	struct gt_reader *r = malloc(sizeof *r);
	struct gt_stack *stack = malloc(sizeof *stack);
	FILE *f = fuzz_open(data, n);
	if (!r || !stack || !f)
		abort();
	if (gt_reader_init(r, f) == 0) {
		struct gt_rbatch b;
		while (gt_reader_next(r, &b) > 0)
			fuzz_cursors(&b, stack);
	}
	fclose(f);
	free(stack);
	free(r);

	/* The accounting twice: payloads kept in memory (a FILE without a
	 * descriptor), then read again from a regular file; same results. */
	struct tool_heap *h = malloc(sizeof *h), *h2 = malloc(sizeof *h2);
	if (!h || !h2)
		abort();
	int failed = fuzz_heap(h, fuzz_open(data, n));
	FILE *f2 = fuzz_file(data, n);
	if (f2) {
		int failed2 = fuzz_heap(h2, f2);
		if (failed2 != failed || strcmp(h->err, h2->err) != 0 || h->gens != h2->gens ||
		    h->events != h2->events || h->alloc_bytes != h2->alloc_bytes || h->live_bytes != h2->live_bytes ||
		    h->peak_bytes != h2->peak_bytes || h->sites.nsites != h2->sites.nsites ||
		    h->est.alloc_bytes != h2->est.alloc_bytes || h->est.live_bytes != h2->est.live_bytes)
			abort();
		tool_heap_release(h2);
	}
	free(h2);

	tool_heap_report(null, h, "fuzz", 3);
	struct tool_pprof p;
	if (tool_heap_pprof(h, "fuzz", &p) == 0) {
		if (p.out.len < (1u << 20)) {
			uint8_t *gz;
			size_t len;
			if (tool_gzip(p.out.buf, p.out.len, &gz, &len) == 0)
				free(gz);
		}
		tool_pprof_free(&p);
	}
	tool_heap_release(h);
	free(h);
	return failed;
}

#endif
