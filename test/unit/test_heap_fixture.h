/* test_heap_fixture.h — writes small traces with heap events (docs/heap.md)
 * for the tests of `gotrace heap`, with encoder/writer.h. */
#ifndef TEST_HEAP_FIXTURE_H
#define TEST_HEAP_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "encoder/writer.h"

#define HX_FREQ 1000000000u /* 1 tick = 1 ns */

/* A trace being written into caller-owned memory. Writers that run out of
 * room set `full` and write nothing more. */
struct hx {
	uint8_t *buf;
	size_t len, cap;
	int format;
	int full;
};

/* hx_begin writes the header of a trace in `format` (23 or 26). */
void hx_begin(struct hx *t, uint8_t *buf, size_t cap, int format);
/* hx_sync writes generation gen's sync batch, clock snapshot at ts. */
void hx_sync(struct hx *t, uint64_t gen, uint64_t ts);
/* hx_strings writes a string table batch: s[i] gets id first_id + i. */
void hx_strings(struct hx *t, uint64_t gen, uint64_t first_id, const char *const *s, size_t n);
/* hx_stack writes a stack table batch with one stack. */
void hx_stack(struct hx *t, uint64_t gen, uint64_t id, const struct gt_frame *f, size_t n);
/* hx_info writes an AllocFree info batch (page size 4096, fixed stack 0). */
void hx_info(struct hx *t, uint64_t gen, uint64_t min_addr, uint64_t align);
/* hx_info_sized: the same with the page size and fixed stack size given. */
void hx_info_sized(struct hx *t, uint64_t gen, uint64_t min_addr, uint64_t page, uint64_t align, uint64_t stack);

struct hx_type {
	uint64_t id, stack, size;
};
/* hx_types writes an AllocFree type batch (names "malloc <size>"). */
void hx_types(struct hx *t, uint64_t gen, const struct hx_type *ty, size_t n);

struct hx_ev {
	uint8_t type; /* GT_EV_HEAP_OBJECT_ALLOC (a = id, b = type), _FREE (a = id),
		       * GT_EV_HEAP_ALLOC (a = bytes), GT_EV_SPAN_ALLOC (a = id,
		       * b = npages, c = kindclass), or any event with nargs <= 3 */
	uint64_t ts;
	uint64_t a, b, c;
};
/* hx_events writes an event batch of thread m (base time ev[0].ts - 1). */
void hx_events(struct hx *t, uint64_t gen, uint64_t m, const struct hx_ev *ev, size_t n);
/* hx_end_gen ends a generation (the EndOfGeneration byte in format 26). */
void hx_end_gen(struct hx *t);

/* hx_file returns a rewound tmpfile() holding the trace. */
FILE *hx_file(const struct hx *t);

struct tool_heap;
struct tool_hsite;
/* hx_read_heap reads the trace in buf[0..len) into heap (tool_heap_read). */
int hx_read_heap(struct tool_heap *heap, uint8_t *buf, size_t len);
/* hx_site_of finds heap's site whose second frame (the caller of the
 * allocating function) is function fn; NULL if none. */
const struct tool_hsite *hx_site_of(const struct tool_heap *heap, const char *fn);

#endif
