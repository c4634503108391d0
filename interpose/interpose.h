/* interpose.h — what every wrapper file needs: export, site and caller. */
#ifndef GT_INTERPOSE_H
#define GT_INTERPOSE_H

#include <errno.h>
#include <stdint.h>

#include "../core/emit.h"
#include "../core/fdkind.h"
#include "../core/real.h"
#include "../core/selfsym.h"

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
#define GT_SITE(fn) gt_site_at(GT_FN(fn), GT_RA(), GT_CFA())
#define GT_SITE_AT(fn, ra, cfa) gt_site_at(GT_FN(fn), (ra), (cfa))

/* GT_FN(fn): the address of this library's function fn, as the leaf frame of
 * a stack. Not `(uintptr_t)fn`: that is fn's canonical address, the
 * executable's PLT stub when a non-PIE program takes fn's address
 * (core/selfsym.h). Found once per use, then one load. */
#define GT_FN(fn)                                                                  \
	({                                                                         \
		static uintptr_t own_;                                             \
		uintptr_t a_ = __atomic_load_n(&own_, __ATOMIC_RELAXED);           \
		if (__builtin_expect(a_ == 0, 0)) {                                \
			a_ = gt_own_fn((uintptr_t)(fn), gt_fn_name(#fn));          \
			if (a_ >= gt.self_lo && a_ < gt.self_hi) /* else: too early */ \
				__atomic_store_n(&own_, a_, __ATOMIC_RELAXED);     \
		}                                                                  \
		a_;                                                                \
	})

/* The exported name of a wrapper whose C name differs (assembler names). */
static inline const char *gt_fn_name(const char *c_name)
{
	return __builtin_strcmp(c_name, "gt_pthread_yield") == 0 ? "pthread_yield"
	       : __builtin_strncmp(c_name, "gt___", 5) == 0 ? c_name + 3
							 : c_name;
}

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

/* GT_START_FRAME: a start trampoline (main's, a thread's), the outer end
 * of the program's stacks: in a section of its own, whose bounds the
 * unwinder knows (core/stack.c); other wrapper frames below the program's
 * are stepped over. */
#define GT_START_FRAME __attribute__((section("gt_start_frames")))
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
 * when none does). Called in the exported wrapper. When someone waits, the
 * wrapper's return address and CFA go along (gt_wake_release_at), so the
 * releaser's full stack is a remembered one after the first release from
 * a place (core/stack.h), not an unwind per release. */
#define GT_RELEASE(key, fn)                                                  \
	do {                                                                 \
		if (__builtin_expect(gt_has_waiters((uintptr_t)(key)), 0))   \
			gt_wake_release_at((uintptr_t)(key), GT_FN(fn),      \
					   GT_RA(), GT_CFA());               \
	} while (0)

/* The wrapper's caller, for a waker's two-frame stack. */
#define GT_CALLER() ((uintptr_t)__builtin_return_address(0))

/* A call that may wait in the kernel, recorded only when it did wait
 * (core/callwait.h, gt_call_begin/end). */
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

/* interpose/thread.c: finds std::thread's _M_start_thread (from the
 * constructor). */
void gt_thread_std_init(void);

/* gt_sample_filter (interpose/signal.c): set as the kernel gets it from a
 * program's mask or wait: without the CPU sampler's signal when set holds
 * every real-time signal (*stripped = 1; *buf is the copy), else set
 * itself (the sampler gives its signal back when set names it alone). */
#include <signal.h>
const sigset_t *gt_sample_filter(const sigset_t *set, sigset_t *buf, int *stripped);

#endif
