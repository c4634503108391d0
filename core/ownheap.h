/* ownheap.h — the tracer's own heap: memory for the core's tables and for
 * everything the flusher thread allocates (libdw, libelf, the demangler),
 * kept out of the program's allocator.
 *
 * Why: the program's allocator must not see the tracer. A thread that
 * mallocs gets an arena of its own in glibc (64 MiB of address space) and
 * in jemalloc (redis: a new arena also starts a `jemalloc_bg_thd` thread);
 * allocator statistics the program reads (redis's used_memory, which
 * drives its eviction) would count the tracer's tables.
 *
 * One region of address space, reserved on first use (GT_OWN_SIZE,
 * readable and writable, MAP_NORESERVE: untouched pages cost nothing), cut
 * by a bump pointer into blocks of size classes (four per power of two,
 * 32 B .. the region), each freed block on its class's list for reuse; a
 * freed block of 1 MiB or more gives its pages back (MADV_DONTNEED). Each
 * block starts with a 16-byte header (class, offset of an aligned pointer,
 * size asked). One lock (core/lock.h): the tracer allocates rarely and
 * never in a signal handler that interrupted it (invariant 6: `inside`).
 * When the region is full (or cannot be reserved), gt_own_alloc returns
 * NULL and callers use the real allocator, so membership is decided by
 * address (gt_own_contains), never by who allocated. */
#ifndef GT_OWNHEAP_H
#define GT_OWNHEAP_H

#include <stddef.h>
#include <stdint.h>

/* At most this much address space (1 GiB), less under a finite
 * RLIMIT_AS (a sixteenth of it): the region must not take what the
 * program itself may map. */
#define GT_OWN_SIZE ((uintptr_t)1 << 30)

/* The region [gt_own_lo, gt_own_lo + gt_own_len); until it is reserved,
 * empty (so that gt_own_contains is one subtraction and one compare). */
extern uintptr_t gt_own_lo __attribute__((visibility("hidden")));
extern uintptr_t gt_own_len __attribute__((visibility("hidden")));

static inline int gt_own_contains(const void *p)
{
	return (uintptr_t)p - gt_own_lo < gt_own_len;
}

/* gt_own_alloc: n bytes aligned to align (a power of two; 16 at least is
 * given), or NULL (region full or not available: use the real allocator).
 * gt_own_calloc zeroes. Preserve errno. */
void *gt_own_alloc(size_t n, size_t align);
void *gt_own_calloc(size_t n, size_t size);
/* gt_own_realloc: p must be an own block (gt_own_contains). NULL when no
 * memory (p unchanged). */
void *gt_own_realloc(void *p, size_t n);
void gt_own_free(void *p);
/* gt_own_size: the size asked for own block p. */
size_t gt_own_size(const void *p);

/* Fork: the lock across fork (core/fork.c, last of the tracer's locks). */
void gt_own_fork_prepare(void);
void gt_own_fork_parent(void);
void gt_own_fork_child(void);

#endif
