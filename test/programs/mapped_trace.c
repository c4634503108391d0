/* mapped_trace.c — writes a synthetic trace with the span and thread stack
 * events of the AllocFree experiment as encoder/wire.h specifies them (the
 * contract above GT_SPAN_PAGE), for the end-to-end test of `gotrace heap`'s
 * and `gotrace stat`'s mapped memory (test/integration/test_heap_mapped.py),
 * whatever the library writes:
 *
 *   mapped_trace OUT FORMAT [nospans]     (FORMAT 23 or 26)
 *
 * Three generations, 1 ms apart, on one thread (M 1) and the snapshot's M
 * (GT_SNAPSHOT_M):
 *
 *   gen 1  snapshot: [heap] 132 KiB (brk heap), main's 8 MiB stack (thread
 *          stack, and its GoroutineStack), 256 KiB unattributed;
 *          events: a 64 MiB pool mapped at make_pool (mmap, anonymous), a
 *          4 MiB arena at arena_map (mmap, malloc arena), a thread's 1 MiB
 *          stack at spawn (pthread_create, thread stack, and its
 *          GoroutineStackAlloc); two 48-byte heap objects at leak_fn
 *   gen 2  snapshot: the same, [heap] grown to 264 KiB; events: the pool
 *          unmapped
 *   gen 3  events: the thread's stack freed (GoroutineStackFree, SpanFree)
 *
 * So: peak 64 MiB + 4 MiB + 1 MiB + 8 MiB + 132 KiB + 256 KiB at the
 * thread's stack (gen 1, +30 us); at the end 4 MiB arena + 8 MiB stack +
 * 264 KiB brk + 256 KiB unattributed. Built by the test with the encoder
 * sources. With `nospans`, generation 1 without its span and stack events
 * (the heap events alone). Exit status 0, or 1 with a message. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encoder/wire.h"
#include "encoder/writer.h"

#define MS 1000000ull /* ticks: 1 ns each */

static uint8_t scratch[GT_MAX_BATCH + 64];
static FILE *out;
static int format;
static bool nospans;

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n) {
		perror("mapped_trace: write");
		exit(1);
	}
}

static void finish(struct gt_batch *b)
{
	put(scratch, gt_batch_finish(b));
}

enum { S_MMAP = 1, S_PTHREAD, S_MAKE_POOL, S_ARENA_MAP, S_SPAWN, S_MAIN, S_LEAK, S_MALLOC, S_APP_C, S_LIBC_C, NSTR };
static const char *const strs[NSTR] = { "", "mmap", "pthread_create", "make_pool", "arena_map", "spawn", "main",
					"leak_fn", "malloc", "app.c", "libc.c" };
enum { K_POOL = 1, K_ARENA, K_THREAD, K_LEAK };

static void frame(struct gt_frame *f, uint64_t pc, uint64_t func, uint64_t file, uint64_t line)
{
	*f = (struct gt_frame){ pc, func, file, line };
}

static void tables(uint64_t gen)
{
	struct gt_batch b;
	gt_batch_begin(&b, scratch, sizeof scratch, gen, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_EV_STRINGS);
	for (int i = 1; i < NSTR; i++)
		gt_batch_string(&b, (uint64_t)i, strs[i], strlen(strs[i]));
	finish(&b);

	struct gt_frame f[3];
	gt_batch_begin(&b, scratch, sizeof scratch, gen, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_EV_STACKS);
	frame(&f[0], 0x1000, S_MMAP, S_LIBC_C, 10), frame(&f[1], 0x2000, S_MAKE_POOL, S_APP_C, 12),
		frame(&f[2], 0x3000, S_MAIN, S_APP_C, 40);
	gt_batch_stack(&b, K_POOL, f, 3);
	frame(&f[1], 0x2100, S_ARENA_MAP, S_APP_C, 20), frame(&f[2], 0x3100, S_MAIN, S_APP_C, 41);
	gt_batch_stack(&b, K_ARENA, f, 3);
	frame(&f[0], 0x1100, S_PTHREAD, S_LIBC_C, 30), frame(&f[1], 0x2200, S_SPAWN, S_APP_C, 30),
		frame(&f[2], 0x3200, S_MAIN, S_APP_C, 42);
	gt_batch_stack(&b, K_THREAD, f, 3);
	frame(&f[0], 0x1200, S_MALLOC, S_LIBC_C, 50), frame(&f[1], 0x2300, S_LEAK, S_APP_C, 60),
		frame(&f[2], 0x3300, S_MAIN, S_APP_C, 43);
	gt_batch_stack(&b, K_LEAK, f, 3);
	finish(&b);

	gt_batch_begin_exp(&b, scratch, sizeof scratch, GT_EXP_ALLOCFREE, gen, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_ALLOCFREE_INFO);
	gt_batch_uvarint(&b, 0);            /* min address */
	gt_batch_uvarint(&b, GT_SPAN_PAGE); /* page size */
	gt_batch_uvarint(&b, 8);            /* object alignment */
	gt_batch_uvarint(&b, GT_SPAN_PAGE); /* fixed stack */
	finish(&b);

	gt_batch_begin_exp(&b, scratch, sizeof scratch, GT_EXP_ALLOCFREE, gen, GT_NO_THREAD, 1);
	gt_batch_byte(&b, GT_ALLOCFREE_TYPES);
	const char *name = "malloc 48";
	uint64_t ty[5] = { 1, K_LEAK, 48, 0, strlen(name) };
	for (int i = 0; i < 5; i++)
		gt_batch_uvarint(&b, ty[i]);
	gt_batch_bytes(&b, name, strlen(name));
	finish(&b);
}

static void sync_batch(uint64_t gen, uint64_t ts)
{
	uint8_t buf[GT_SYNC_MAX];
	struct gt_clock_snapshot snap = { ts, ts, 1700000000u, 0 };
	size_t n = gt_write_sync(buf, format, gen, 1000000000u, &snap);
	if (!n) {
		fprintf(stderr, "mapped_trace: no sync batch\n");
		exit(1);
	}
	put(buf, n);
}

struct ev {
	uint8_t type;
	uint64_t ts, a[3];
};

static bool is_span_event(uint8_t type)
{
	return type >= GT_EV_SPAN && type <= GT_EV_GOROUTINE_STACK_FREE && type != GT_EV_HEAP_OBJECT &&
	       type != GT_EV_HEAP_OBJECT_ALLOC && type != GT_EV_HEAP_OBJECT_FREE;
}

static void events(uint64_t gen, uint64_t m, const struct ev *ev, size_t n)
{
	struct gt_batch b;
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (nospans && is_span_event(ev[i].type))
			continue;
		if (kept++ == 0)
			gt_batch_begin(&b, scratch, sizeof scratch, gen, m, ev[i].ts - 1);
		gt_batch_event(&b, ev[i].type, ev[i].ts, (unsigned)gt_ev_nargs(ev[i].type), ev[i].a);
	}
	if (kept)
		finish(&b);
}

static void end_gen(void)
{
	if (format >= GT_FORMAT_26)
		put((uint8_t[]){ GT_EV_END_OF_GENERATION }, 1);
}

/* Span ids: base / page. */
#define BRK_ID 0x5000
#define MAIN_STACK_ID 0x7ff000
#define UNSEEN_ID 0x7f0000
#define POOL_ID 0x7e0000
#define ARENA_ID 0x7d0000
#define THREAD_ID 0x7c0000
#define KC GT_SPAN_KINDCLASS

static void snapshot(uint64_t gen, uint64_t ts, uint64_t brk_pages, bool with_created)
{
	struct ev s[8];
	size_t n = 0;
	s[n++] = (struct ev){ GT_EV_SPAN, ts, { BRK_ID, brk_pages, KC(0, GT_SPAN_BRK) } };
	s[n++] = (struct ev){ GT_EV_SPAN, ts, { MAIN_STACK_ID, 2048, KC(0, GT_SPAN_STACK) } };
	s[n++] = (struct ev){ GT_EV_SPAN, ts, { UNSEEN_ID, 64, KC(0, GT_SPAN_UNSEEN) } };
	s[n++] = (struct ev){ GT_EV_GOROUTINE_STACK, ts, { MAIN_STACK_ID, 24 } };
	if (with_created) { /* what generation 1 made, restated with its sites */
		s[n++] = (struct ev){ GT_EV_SPAN, ts, { POOL_ID, 16384, KC(K_POOL, GT_SPAN_ANON) } };
		s[n++] = (struct ev){ GT_EV_SPAN, ts, { ARENA_ID, 1024, KC(K_ARENA, GT_SPAN_MALLOC) } };
		s[n++] = (struct ev){ GT_EV_SPAN, ts, { THREAD_ID, 256, KC(K_THREAD, GT_SPAN_STACK) } };
		s[n++] = (struct ev){ GT_EV_GOROUTINE_STACK, ts, { THREAD_ID, 21 } };
	}
	events(gen, GT_SNAPSHOT_M, s, n);
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4 || (atoi(argv[2]) != GT_FORMAT_23 && atoi(argv[2]) != GT_FORMAT_26) ||
	    (argc == 4 && strcmp(argv[3], "nospans") != 0)) {
		fprintf(stderr, "usage: mapped_trace OUT 23|26 [nospans]\n");
		return 1;
	}
	nospans = argc == 4;
	format = atoi(argv[2]);
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	uint8_t header[GT_HEADER_LEN];
	put(header, gt_write_header(header, format));

	uint64_t t1 = 1 * MS, t2 = 2 * MS, t3 = 3 * MS;
	sync_batch(1, t1);
	tables(1);
	snapshot(1, t1 + 2, 33, false);
	struct ev e1[] = {
		{ GT_EV_SPAN_ALLOC, t1 + 10000, { POOL_ID, 16384, KC(K_POOL, GT_SPAN_ANON) } },
		{ GT_EV_SPAN_ALLOC, t1 + 20000, { ARENA_ID, 1024, KC(K_ARENA, GT_SPAN_MALLOC) } },
		{ GT_EV_HEAP_OBJECT_ALLOC, t1 + 25000, { 0x1000, 1 } },
		{ GT_EV_HEAP_OBJECT_ALLOC, t1 + 26000, { 0x1010, 1 } },
		{ GT_EV_SPAN_ALLOC, t1 + 30000, { THREAD_ID, 256, KC(K_THREAD, GT_SPAN_STACK) } },
		{ GT_EV_GOROUTINE_STACK_ALLOC, t1 + 30000, { THREAD_ID, 21 } },
	};
	events(1, 1, e1, sizeof e1 / sizeof e1[0]);
	end_gen();
	if (nospans) /* generations 2 and 3 hold span and stack events only */
		return fclose(out) != 0;

	sync_batch(2, t2);
	tables(2);
	snapshot(2, t2 + 2, 66, true);
	struct ev e2[] = { { GT_EV_SPAN_FREE, t2 + 50000, { POOL_ID } } };
	events(2, 1, e2, 1);
	end_gen();

	sync_batch(3, t3);
	tables(3);
	struct ev e3[] = { { GT_EV_GOROUTINE_STACK_FREE, t3 + 10000, { THREAD_ID } },
			   { GT_EV_SPAN_FREE, t3 + 10000, { THREAD_ID } } };
	events(3, 1, e3, 2);
	end_gen();
	if (fclose(out) != 0) {
		perror("mapped_trace: close");
		return 1;
	}
	return 0;
}
