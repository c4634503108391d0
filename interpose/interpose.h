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
 * wrapper's caller and the caller's stack pointer at the call (the
 * wrapper's CFA), with which core/stack.c recognizes a stack it has unwound
 * before. Evaluate it in the exported wrapper itself, or use GT_SITE_AT in
 * a slow half the wrapper handed its return address and CFA to. */
static inline uintptr_t gt_site_at(uintptr_t site, uintptr_t ra, uintptr_t cfa)
{
	gt_self.site_ra = ra;
	gt_self.site_cfa = cfa;
	return site;
}
#define GT_RA() ((uintptr_t)__builtin_return_address(0))
#define GT_CFA() ((uintptr_t)__builtin_dwarf_cfa())
#define GT_SITE(fn) gt_site_at((uintptr_t)(fn), GT_RA(), GT_CFA())
#define GT_SITE_AT(fn, ra, cfa) gt_site_at((uintptr_t)(fn), (ra), (cfa))

/* Wrappers of calls that usually record nothing (a lock that is free, an
 * unlock nobody waits for) are split in two: a fast half, the exported
 * function, that makes the real call and returns, and a slow half
 * (GT_SLOW: out of line, away from the hot code) that it tail-calls with
 * its return address and CFA when there is something to record.
 *
 * GT_REAL_FN(field, ret, params, args) defines field##_fn, a pointer to the
 * real function that the fast half calls without a check: it starts at a
 * stub that resolves the real functions and stores the real pointer. */
#define GT_SLOW __attribute__((noinline, cold))
#define GT_REAL_FN(field, ret, params, args)                                 \
	static ret field##_first params;                                     \
	static ret(*field##_fn) params = field##_first;                      \
	static ret field##_first params                                      \
	{                                                                    \
		ret(*f) params = GT_REAL(field);                             \
		__atomic_store_n(&field##_fn, f, __ATOMIC_RELAXED);          \
		return f args;                                               \
	}

/* GT_RELEASE: the fast half of a release (unlock, post, signal): leaves a
 * wake record when a traced thread waits on key (one hash and one load
 * when none does). Called in the exported wrapper. */
#define GT_RELEASE(key, fn)                                                  \
	do {                                                                 \
		if (__builtin_expect(gt_has_waiters((uintptr_t)(key)), 0))   \
			gt_wake_release((uintptr_t)(key), (uintptr_t)(fn),   \
					GT_RA());                            \
	} while (0)

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
