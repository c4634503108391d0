/* mem.h — the core's own allocations.
 *
 * The core never allocates through the library's exported malloc/free
 * (interpose/malloc.c): a module of the core does not call up into the
 * wrappers. Two definitions, one per kind of binary:
 *   - core/mem.c, in the library and the unit tests: the tracer's own heap
 *     (core/ownheap.h), or when it is full the real allocator's pointers
 *     (core/realalloc.h) with the thread's `inside` raised like every real
 *     allocator call (invariant 6), and never the real free of a
 *     bootstrap arena block;
 *   - core/mem_libc.c, in the gotrace command, which links some core
 *     modules without the library: plain libc.
 *
 * gt_mem_free_returned releases what a library the core calls returned as
 * malloc'd (libstdc++'s demangler): that allocation went through the
 * global scope's malloc — the exported one, which passes the core's calls
 * to the real allocator and records nothing, so the real free is its match;
 * or the program's own allocator when the program defines malloc
 * (Chromium's PartitionAlloc, core/heap.c), whose free is then the match:
 * the real free of such a block aborts ("double free or corruption"). */
#ifndef GT_MEM_H
#define GT_MEM_H

#include <stddef.h>

void *gt_mem_alloc(size_t n);
void *gt_mem_calloc(size_t n, size_t size);
void *gt_mem_realloc(void *p, size_t n);
void gt_mem_free(void *p);
void gt_mem_free_returned(void *p);
char *gt_mem_strdup(const char *s);
/* gt_mem_handover_strdup: a copy that a library will release with free()
 * (libdwfl's file names): from the process's malloc, the one whose free
 * the library calls. The preload layer names it (gt_mem_set_handover: the
 * library's exported malloc, which serves the tracer's own heap to tracer
 * work, and whose free releases own blocks); without it (the unit tests,
 * where free is libc's) the real allocator. */
char *gt_mem_handover_strdup(const char *s);
void gt_mem_set_handover(void *(*alloc)(size_t));

#endif
