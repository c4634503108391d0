/* mem_libc.c — the core's allocations where there is no preloaded
 * library (the gotrace command, the unit tests): plain libc (core/mem.h).
 * Not linked into the library, whose core/mem.c takes the real allocator. */
#include "mem.h"

#include <stdlib.h>
#include <string.h>

void *gt_mem_alloc(size_t n) { return malloc(n); }
void *gt_mem_calloc(size_t n, size_t size) { return calloc(n, size); }
void *gt_mem_realloc(void *p, size_t n) { return realloc(p, n); }
void gt_mem_free(void *p) { free(p); }
char *gt_mem_strdup(const char *s) { return strdup(s); }
