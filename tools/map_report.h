/* map_report.h — what `gotrace heap` and `gotrace stat` make of the mapped
 * memory accounting (map_acct.h): the text section of `gotrace heap`, the
 * totals of `gotrace stat` (text and JSON), and the pprof profile of
 * `gotrace heap -mapped-pprof`. Nothing is printed for a trace without
 * span or stack events. */
#ifndef TOOLS_MAP_REPORT_H
#define TOOLS_MAP_REPORT_H

#include <stdio.h>

#include "tools/heap_acct.h"
#include "tools/map_acct.h"
#include "tools/pprof.h"

/* tool_map_call_frames returns how many leading frames of a site are the
 * mapping call itself (mmap, mmap64, mremap, munmap, brk, sbrk,
 * pthread_create and their glibc names): at most nframes - 1, so a site
 * keeps a frame when it has one. */
unsigned tool_map_call_frames(const struct tool_sites *s, uint32_t site);

/* tool_map_report prints the mapped memory section of `gotrace heap` (h:
 * the heap accounting m rode on, for times and sites): bytes by class at
 * the start, peak and end, thread stacks, then the top `top` rows (site ×
 * class; 0: all) by bytes mapped at the end and by bytes mapped during the
 * trace. Nothing when the trace has no span or stack events. */
void tool_map_report(FILE *out, const struct tool_map *m, const struct tool_heap *h, unsigned top);

/* tool_map_stat_text prints `gotrace stat`'s line(s) of mapped memory
 * (peak_at: the peak's time as text); tool_map_stat_json the value of its
 * "mapped" member (peak_at_ns: nanoseconds from the trace's first event).
 * Nothing when there is nothing to say (the caller leaves the member out). */
void tool_map_stat_text(FILE *out, const struct tool_map *m, const char *peak_at);
void tool_map_stat_json(FILE *out, const struct tool_map *m, uint64_t peak_at_ns);

/* tool_map_pprof builds the profile of mapped memory (uncompressed) into
 * p, which the caller has not initialised: sample types mapped_spans/count,
 * mapped_space/bytes (during the trace), inuse_spans/count,
 * inuse_space/bytes (at the end; the default); one sample per row, the
 * mapping call left out of its stack and named in the label "mapper",
 * its class in the label "class"; a row without frames has one location
 * named after its class, "(brk heap)". name is the trace's (the mapping's
 * file name). Returns 0, or -1 when out of memory (p is then freed). */
int tool_map_pprof(const struct tool_map *m, const struct tool_heap *h, const char *name, struct tool_pprof *p);

#endif
