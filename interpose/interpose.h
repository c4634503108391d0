/* interpose.h — what every wrapper file needs: export, site and caller. */
#ifndef GT_INTERPOSE_H
#define GT_INTERPOSE_H

#include <errno.h>
#include <stdint.h>

#include "../core/emit.h"
#include "../core/real.h"

/* Wrappers are the only symbols the library exports. */
#define GT_EXPORT __attribute__((visibility("default")))

/* The frame a wrapper contributes to a stack: its own address, so stacks
 * read "pthread_mutex_lock ← your_function ← ...". */
#define GT_SITE(fn) ((uintptr_t)(fn))

/* The wrapper's caller, for a waker's two-frame stack. */
#define GT_CALLER() ((uintptr_t)__builtin_return_address(0))

#endif
