/* ownmaps.h — the tracer's own anonymous mappings (its heap, chunks,
 * tables, stacks), so the generation snapshots of mapped memory
 * (core/gen_spans.h) leave them out: they are no memory of the program's.
 *
 * A fixed array of slots, lock-free (any thread, a signal handler too, may
 * map for the tracer): a mapping takes a free slot with one compare-and-
 * swap, an unmapping of the same base frees it. Past GT_OWNMAPS slots a
 * mapping is not noted (it then shows as GT_SPAN_UNSEEN). */
#ifndef GT_OWNMAPS_H
#define GT_OWNMAPS_H

#include <stddef.h>
#include <stdint.h>

#define GT_OWNMAPS 4096

void gt_ownmaps_add(void *p, size_t len);
void gt_ownmaps_del(void *p);

/* gt_ownmaps_copy copies the noted mappings as [lo, hi) pairs into
 * out[0..2*max), sorted by lo; returns how many. */
size_t gt_ownmaps_copy(uintptr_t *out, size_t max);

#endif
