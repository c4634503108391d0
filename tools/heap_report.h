/* heap_report.h — what `gotrace heap` makes of the accounting: the text
 * report and the pprof profile. */
#ifndef TOOLS_HEAP_REPORT_H
#define TOOLS_HEAP_REPORT_H

#include <stdio.h>

#include "tools/heap_acct.h"
#include "tools/pprof.h"

/* tool_heap_alloc_frames returns how many leading frames of a site are the
 * allocation function itself (malloc, calloc, ..., operator new, strdup):
 * at most nframes - 1, so a site always keeps a frame when it has one. */
unsigned tool_heap_alloc_frames(const struct tool_sites *s, uint32_t site);

/* tool_heap_report prints the text report: totals, peak, the top `top` sites
 * by live bytes at the end (leaks), by allocated bytes and by allocation
 * count (top = 0: every site). name is the trace's name for the heading. */
void tool_heap_report(FILE *out, const struct tool_heap *h, const char *name, unsigned top);

/* tool_heap_pprof builds the pprof profile (uncompressed) into p, which the
 * caller has not initialised; the Profile message is p->out. Its one
 * mapping is called `name` (pprof shows it as "File:"). Sample types
 * alloc_objects/count, alloc_space/bytes, inuse_objects/count,
 * inuse_space/bytes (default inuse_space); one sample per site, labelled
 * with the allocation function ("allocator") and, when every object of the
 * site had the same size, "bytes". Returns 0, or -1 when out of memory
 * (p is then freed). */
int tool_heap_pprof(const struct tool_heap *h, const char *name, struct tool_pprof *p);

#endif
