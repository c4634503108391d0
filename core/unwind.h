/* unwind.h — walking the calling thread's stack with CFI (x86-64).
 *
 * The walk makes no system call, takes no lock, allocates nothing and is
 * async-signal-safe. It never faults: stack memory is read only inside
 * [sp, hi) of a range known to be mapped from sp up to hi (the thread's
 * stack or its sigaltstack; otherwise only the page holding sp), module
 * memory only inside the module's readable segments of a table built
 * while it was loaded (core/modules.h). Frames must move strictly up the
 * stack (through a signal frame the stack may change, to a known range).
 *
 * Rules are cached per PC in a table of 16-byte entries shared by every
 * thread, two per index, written and read without a lock: an entry holds
 * (key ^ rule, rule), so a torn read never matches (the key check fails)
 * and costs only a recomputation. The key includes the module table's
 * epoch: a new table (modules loaded or unloaded, core/modlive.c) makes
 * every cached rule stale at once.
 *
 * Pure: the caller passes the module table, the cache and the thread's
 * stack ranges. */
#ifndef GT_UNWIND_H
#define GT_UNWIND_H

#include <stdatomic.h>
#include <stdint.h>

#include "cfi.h"
#include "modules.h"

#define GT_UNWIND_CACHE (1u << 13) /* entries, 128 KiB, two per index */

struct gt_unwind_cache {
	_Atomic uint64_t e[GT_UNWIND_CACHE][2]; /* key ^ rule, rule; all 0: empty */
} __attribute__((aligned(64)));

/* A stack range: any sp in [lo, hi) has [sp, hi) mapped. {0, 0}: none. */
struct gt_unwind_range {
	uintptr_t lo, hi;
};

/* The working memory of a rule's computation (a cache miss), one per
 * thread that unwinds: kept off the program's stack. */
struct gt_unwind_scratch {
	struct gt_module late; /* a module found through the loader */
	struct gt_cfi_work cfi;
};

struct gt_unwind_ctx {
	const struct gt_modtab *mods;  /* NULL: no CFI at all (frame pointers only) */
	struct gt_unwind_scratch *scratch; /* required with mods; the caller's alone */
	struct gt_unwind_cache *cache;
	uintptr_t self_lo, self_hi;    /* frames of the tracer ([0, 0): none) */
	uintptr_t ends_lo, ends_hi;    /* the tracer's start trampolines (main's, a thread's): a stack
					* ends at one; other tracer frames below the program's are skipped */
	struct gt_unwind_range stack;  /* the thread's stack */
	struct gt_unwind_range alt;    /* its alternate signal stack */
};

/* The caller's registers at the return from gt_unwind_here. */
struct gt_unwind_regs {
	uintptr_t pc; /* a return address into the caller */
	uintptr_t sp; /* the caller's stack pointer after the return */
	uintptr_t rbp;
};

/* gt_unwind_here fills r with its caller's state (assembly; its frame is
 * gone once it returns, so the walk starts in the caller). */
void gt_unwind_here(struct gt_unwind_regs *r);

/* gt_unwind_hi: the end of the readable range around sp. */
static inline uintptr_t gt_unwind_hi(const struct gt_unwind_ctx *c, uintptr_t sp)
{
	if (sp >= c->stack.lo && sp < c->stack.hi)
		return c->stack.hi;
	if (sp >= c->alt.lo && sp < c->alt.hi)
		return c->alt.hi;
	return (sp | 4095) + 1; /* the page holding sp: mapped, sp is live */
}

/* What a walk went through (flags). */
#define GT_UNWIND_SIGNAL 1u /* a signal frame: some frames are not
                             * return addresses read from CFA - 8 */
#define GT_UNWIND_FP 2u     /* a frame pointer through code without CFI */

/* gt_unwind walks up from r: skips the tracer's frames at the start, stops
 * at the first frame of the tracer after the program's (a start
 * trampoline), at the outermost frame, or where it cannot go on safely.
 * Writes up to max PCs to ip (return addresses; exact for the interrupted
 * frame of a signal) and, when slot is not NULL, the address each was read
 * from (CFA - 8 for a return address). Returns the count; *flags gets the
 * GT_UNWIND_* bits. Stack: see core/stack.c (the whole capture path). */
unsigned gt_unwind(const struct gt_unwind_ctx *c, const struct gt_unwind_regs *r, uintptr_t *ip, uintptr_t *slot,
		   unsigned max, unsigned *flags);

/* gt_unwind_interrupted: the same walk from the registers of an
 * interrupted context (a signal's ucontext: r->pc is the interrupted
 * instruction, exact, not a return address; sp and rbp its own). The
 * first PC written is r->pc unless it is the tracer's. No slots. */
unsigned gt_unwind_interrupted(const struct gt_unwind_ctx *c, const struct gt_unwind_regs *r, uintptr_t *ip,
			       unsigned max, unsigned *flags);

/* gt_unwind_rule: the (cached) rule for pc, exact or a return address.
 * For tests. */
gt_rule_t gt_unwind_rule(const struct gt_unwind_ctx *c, uintptr_t pc, int exact);

#endif
