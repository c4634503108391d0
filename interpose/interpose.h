/* interpose.h — what every wrapper file needs: export, site and caller. */
#ifndef GT_INTERPOSE_H
#define GT_INTERPOSE_H

#include <errno.h>
#include <stdint.h>

#include "../core/emit.h"
#include "../core/fdkind.h"
#include "../core/real.h"

/* Wrappers are the only symbols the library exports. */
#define GT_EXPORT __attribute__((visibility("default")))

/* The frame a wrapper contributes to a stack: its own address, so stacks
 * read "pthread_mutex_lock ← your_function ← ...". It also notes the
 * wrapper's caller and frame, with which core/stack.c recognizes a stack it
 * has unwound before. Evaluate it in the exported wrapper itself (wrappers
 * are built with frame pointers). */
static inline uintptr_t gt_site_here(uintptr_t site, void *ra, void *frame)
{
	gt_self.site_ra = (uintptr_t)ra;
	gt_self.site_cfa = (uintptr_t)frame + 2 * sizeof(uintptr_t);
	return site;
}
#define GT_SITE(fn) gt_site_here((uintptr_t)(fn), __builtin_return_address(0), __builtin_frame_address(0))

/* The wrapper's caller, for a waker's two-frame stack. */
#define GT_CALLER() ((uintptr_t)__builtin_return_address(0))

/* A call that may wait in the kernel, recorded only when it did wait
 * (core/emit.h, gt_call_begin/end). */
#define GT_WAIT_CALL(kind, site, call)                                   \
	do {                                                             \
		struct gt_thread *t = gt_enter();                        \
		if (!t)                                                  \
			return call;                                     \
		gt_call_begin(t, (kind), GT_SITE(site), GT_CALLER());    \
		__typeof__(call) r_ = call;                              \
		gt_call_end(t);                                          \
		return r_;                                               \
	} while (0)

/* Reads and writes wait on the network when the descriptor is a socket,
 * in a system call otherwise (pipes, ttys, files). */
static inline int gt_fd_call_kind(int fd)
{
	return gt_fdkind(fd) == GT_FD_SOCKET ? GT_CALL_NETWORK : GT_CALL_SYSCALL;
}

#endif
