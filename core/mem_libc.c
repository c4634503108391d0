/* mem_libc.c — the core's calls into libc where there is no preloaded
 * library (the gotrace command): its allocations (core/mem.h) and the
 * symbolizer's unloads (core/modules.h) are plain libc's. Not linked into
 * the library (core/mem.c takes the real allocator, core/modlive.c keeps
 * the module table right around dlclose) nor into the unit tests. */
#include "mem.h"
#include "modules.h"

#include <dlfcn.h>

#include <stdlib.h>
#include <string.h>

void *gt_mem_alloc(size_t n) { return malloc(n); }
void *gt_mem_calloc(size_t n, size_t size) { return calloc(n, size); }
void *gt_mem_realloc(void *p, size_t n) { return realloc(p, n); }
void gt_mem_free(void *p) { free(p); }
void gt_mem_free_returned(void *p) { free(p); }
char *gt_mem_strdup(const char *s) { return strdup(s); }
char *gt_mem_handover_strdup(const char *s) { return strdup(s); }
void gt_mem_set_handover(void *(*alloc)(size_t)) { (void)alloc; }
int gt_modules_dlclose(void *handle) { return dlclose(handle); }
