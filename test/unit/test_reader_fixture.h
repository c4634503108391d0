/* test_reader_fixture.h — known small traces for the reader tests, built with the writer. */
#ifndef TEST_READER_FIXTURE_H
#define TEST_READER_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Base time of generation g: everything in it is stamped from here on. */
#define FX_T(g) ((uint64_t)(g) * 1000000u)
#define FX_M 7          /* the one traced thread */
#define FX_FREQ 1000000000u

/* fx_trace writes a trace of `gens` generations in `format` (22, 23, 25,
 * 26) into out[0..cap) and returns its length. Each generation g holds, in
 * this order: the sync batch (snapshot at FX_T(g), mono = g * 10, wall =
 * 1700000000 + g s, g ns); an event batch of M FX_M with the events listed
 * in fx_events(g); an AllocFree experimental batch with payload "\1xy"; a
 * strings batch {1 "sync", 2 "main", 3 "main.c"}; a stacks batch {1: one
 * frame, 2: two frames}; in odd generations a CPU samples batch with two
 * samples; for 26 the EndOfGeneration byte. */
size_t fx_trace(int format, unsigned gens, uint8_t *out, size_t cap);

/* fx_file returns a rewound tmpfile() holding bytes[0..n). */
FILE *fx_file(const void *bytes, size_t n);

/* The event batch of generation g, as written. */
struct fx_event {
	uint8_t type;
	uint64_t ts;
	unsigned nargs;
	uint64_t args[4];
};
#define FX_NEVENTS 7
void fx_events(unsigned g, struct fx_event ev[FX_NEVENTS]);

/* fx_walk reads a whole file with the reader and runs the matching cursor
 * (or sync decoder) over every batch. Returns 0 at a clean end, or -1 with
 * the first error in err. *batches counts the batches read. */
struct gt_reader;
int fx_walk(struct gt_reader *r, FILE *f, char *err, size_t errlen, unsigned *batches);

#endif
