/* unwind.c — the stack walk and the per-PC rule cache (see unwind.h). */
#include "unwind.h"

#include <string.h>

/* gt_unwind_here: its return address is the caller's PC, rsp + 8 the
 * caller's stack pointer once the call returned, rbp is untouched. */
__asm__(".text\n"
	".globl gt_unwind_here\n"
	".hidden gt_unwind_here\n"
	".type gt_unwind_here, @function\n"
	"gt_unwind_here:\n"
	".cfi_startproc\n"
	"\tmovq (%rsp), %rax\n"
	"\tmovq %rax, 0(%rdi)\n"
	"\tleaq 8(%rsp), %rax\n"
	"\tmovq %rax, 8(%rdi)\n"
	"\tmovq %rbp, 16(%rdi)\n"
	"\tret\n"
	".cfi_endproc\n"
	".size gt_unwind_here, .-gt_unwind_here\n");

/* The ucontext a signal handler returns through, on x86-64 Linux: after
 * the handler's return (into __restore_rt) the stack pointer is at the
 * ucontext; its saved registers (mcontext gregs) start 40 bytes in. */
#define UC_GREGS 40
#define UC_RBP (UC_GREGS + 10 * 8)
#define UC_RSP (UC_GREGS + 15 * 8)
#define UC_RIP (UC_GREGS + 16 * 8)

/* is_sigreturn: the code at pc is glibc's rt_sigreturn trampoline (a
 * handler returns to its first byte). */
static int is_sigreturn(const struct gt_module *m, uintptr_t pc)
{
	return gt_module_readable(m, pc, GT_SIGRETURN_LEN) &&
	       memcmp((const void *)pc, GT_SIGRETURN_CODE, GT_SIGRETURN_LEN) == 0;
}

__attribute__((noinline)) static gt_rule_t compute(const struct gt_unwind_ctx *c, uintptr_t pc, int exact)
{
	/* A return address is looked up inside the call, at pc - 1. */
	uintptr_t at = exact ? pc : pc - 1;
	const struct gt_module *m = gt_modtab_find(c->mods, at);
	if (!m) {
		/* Loaded since the table was built (dlopen), maybe. */
		if (!c->mods || gt_modtab_object(c->mods, at, &c->scratch->late) != 0)
			return GT_RULE_NOCFI;
		m = &c->scratch->late;
	}
	if (is_sigreturn(m, pc))
		return GT_RULE_SIGRETURN;
	return m->has_cfi ? gt_cfi_rule(&m->cfi, at, &c->scratch->cfi) : GT_RULE_NOCFI;
}

/* salt_of: what keys of one module table differ by from another's. */
static inline uint64_t salt_of(const struct gt_unwind_ctx *c)
{
	return (c->mods ? c->mods->epoch : 0) * 0x9e3779b97f4a7c15ull;
}

/* lookup: two entries per index (one 32-byte line); a new rule goes in
 * front and the older one moves behind, so two PCs sharing an index do not
 * evict each other on every walk. Each entry checks itself: a torn copy
 * matches no key. */
static inline __attribute__((always_inline)) gt_rule_t lookup(const struct gt_unwind_ctx *c, uint64_t salt,
							      uintptr_t pc, int exact)
{
	uint64_t key = ((uint64_t)pc << 1 | (uint64_t)exact) ^ salt;
	_Atomic uint64_t *e = c->cache->e[((pc ^ (pc >> 13)) & (GT_UNWIND_CACHE / 2 - 1)) * 2];
	uint64_t x = atomic_load_explicit(&e[0], memory_order_relaxed);
	uint64_t rule = atomic_load_explicit(&e[1], memory_order_relaxed);
	if (__builtin_expect((x ^ rule) == key, 1))
		return rule; /* an empty entry matches no key but 0, whose rule 0 stops */
	uint64_t x1 = atomic_load_explicit(&e[2], memory_order_relaxed);
	uint64_t rule1 = atomic_load_explicit(&e[3], memory_order_relaxed);
	if ((x1 ^ rule1) == key)
		return rule1;
	gt_rule_t fresh = compute(c, pc, exact);
	atomic_store_explicit(&e[3], rule, memory_order_relaxed);
	atomic_store_explicit(&e[2], x, memory_order_relaxed);
	atomic_store_explicit(&e[1], fresh, memory_order_relaxed);
	atomic_store_explicit(&e[0], key ^ fresh, memory_order_relaxed);
	return fresh;
}

gt_rule_t gt_unwind_rule(const struct gt_unwind_ctx *c, uintptr_t pc, int exact)
{
	return lookup(c, salt_of(c), pc, exact != 0);
}

/* The fast rule: kind CFI, CFA register rsp, no dereference, rbp same
 * (0) or saved (2), return address at CFA - 8. */
#define FAST_MASK (0xffull | 5ull << 8 | 0xffull << 26)
#define FAST_RULE (GT_RULE_CFI | 7ull << 3 | 0xffull << 26)

/* The walk's state: one frame, and the stack range it may read. */
struct walk {
	uintptr_t pc, sp, rbp;
	int rbp_ok; /* rbp holds the frame's real value */
	int exact;  /* pc is an interrupted instruction, not a return address */
	uintptr_t lo, hi; /* readable: [lo, hi), lo <= sp */
};

static inline int load(const struct walk *w, uintptr_t a, uintptr_t *v)
{
	if (a - w->lo > w->hi - 8 - w->lo) /* a < lo or a + 8 > hi */
		return 0;
	*v = *(const uintptr_t *)a;
	return 1;
}

/* step moves w to the caller's frame: 1, with *slot the address the new
 * pc was read from; 0 at the end of what can be walked. */
static inline __attribute__((always_inline)) int step(const struct gt_unwind_ctx *c, uint64_t salt, struct walk *w,
							uintptr_t *slot, unsigned *flags)
{
	gt_rule_t r = lookup(c, salt, w->pc, w->exact);
	uintptr_t cfa, ra, rbp = w->rbp;
	int rbp_ok = w->rbp_ok;
	/* Most frames: CFA = rsp + offset, the return address just below
	 * it, rbp kept or saved in the frame. */
	if (__builtin_expect((r & FAST_MASK) == FAST_RULE, 1)) {
		cfa = w->sp + (uintptr_t)gt_rule_cfa_off(r);
		if (cfa < w->sp + 8 || cfa > w->hi)
			return 0;
		ra = *(const uintptr_t *)(cfa - 8);
		if (gt_rule_rbp(r) == GT_RBP_AT)
			rbp_ok = load(w, cfa + (uintptr_t)gt_rule_rbp_off(r), &rbp);
		*slot = cfa - 8;
		w->pc = ra;
		w->sp = cfa;
		w->rbp = rbp;
		w->rbp_ok = rbp_ok;
		w->exact = 0;
		return ra != 0;
	}
	switch (gt_rule_kind(r)) {
	case GT_RULE_CFI: {
		uintptr_t base;
		if (gt_rule_cfa_reg(r) == 7) {
			base = w->sp;
		} else {
			if (!rbp_ok)
				return 0;
			base = rbp;
		}
		cfa = base + (uintptr_t)gt_rule_cfa_off(r);
		if (gt_rule_cfa_deref(r) && !load(w, cfa, &cfa))
			return 0;
		if (cfa <= w->sp || cfa > w->hi)
			return 0;
		uintptr_t at = cfa + (uintptr_t)gt_rule_ra_off(r);
		if (!load(w, at, &ra))
			return 0;
		switch (gt_rule_rbp(r)) {
		case GT_RBP_SAME:
			break;
		case GT_RBP_AT:
			rbp_ok = load(w, cfa + (uintptr_t)gt_rule_rbp_off(r), &rbp);
			break;
		case GT_RBP_VAL:
			rbp = cfa + (uintptr_t)gt_rule_rbp_off(r);
			rbp_ok = 1;
			break;
		case GT_RBP_AT_RBP:
			rbp_ok = rbp_ok && load(w, rbp + (uintptr_t)gt_rule_rbp_off(r), &rbp);
			break;
		default:
			rbp_ok = 0;
			break;
		}
		*slot = at;
		break;
	}
	case GT_RULE_NOCFI:
		/* Code without CFI (JIT, hand-written assembly): only a frame
		 * pointer that looks like one, pointing up this stack. */
		if (!rbp_ok || rbp < w->sp || (rbp & 7) || rbp > w->hi - 16)
			return 0;
		if (!load(w, rbp + 8, &ra) || !load(w, rbp, &rbp))
			return 0;
		cfa = w->rbp + 16;
		*slot = w->rbp + 8;
		*flags |= GT_UNWIND_FP;
		break;
	case GT_RULE_SIGRETURN: {
		/* A signal frame: the interrupted registers, if they point
		 * into a stack we know (or higher up this one). */
		uintptr_t uc = w->sp, sp;
		if (!load(w, uc + UC_RIP, &ra) || !load(w, uc + UC_RSP, &sp) || !load(w, uc + UC_RBP, &rbp))
			return 0;
		uintptr_t lo, hi;
		if (sp > uc && sp < w->hi) {
			lo = sp;
			hi = w->hi;
		} else if ((sp >= c->stack.lo && sp < c->stack.hi) || (sp >= c->alt.lo && sp < c->alt.hi)) {
			lo = sp;
			hi = gt_unwind_hi(c, sp);
		} else {
			return 0;
		}
		if (hi - lo < 8)
			return 0;
		*slot = uc + UC_RIP;
		*flags |= GT_UNWIND_SIGNAL;
		w->pc = ra;
		w->sp = sp;
		w->rbp = rbp;
		w->rbp_ok = 1;
		w->exact = 1;
		w->lo = lo;
		w->hi = hi;
		return ra != 0;
	}
	default:
		return 0;
	}
	w->pc = ra;
	w->sp = cfa;
	w->rbp = rbp;
	w->rbp_ok = rbp_ok;
	w->exact = 0;
	return ra != 0;
}

static inline __attribute__((always_inline)) unsigned unwind_from(const struct gt_unwind_ctx *c,
								   const struct gt_unwind_regs *r, int exact,
								   uintptr_t *ip, uintptr_t *slot, unsigned max,
								   unsigned *flags)
{
	struct walk w = { .pc = r->pc, .sp = r->sp, .rbp = r->rbp, .rbp_ok = 1, .exact = exact, .lo = r->sp };
	w.hi = gt_unwind_hi(c, r->sp);
	*flags = 0;
	if (w.hi - w.lo < 8)
		return 0;
	uintptr_t at = r->sp - 8; /* where gt_unwind_here's return address was */
	uint64_t salt = salt_of(c);
	unsigned n = 0;
	while (n < max) {
		if (w.pc >= c->self_lo && w.pc < c->self_hi) {
			/* The tracer's frames: first the wrapper and the tracer
			 * (skipped); below the program's frames, a start
			 * trampoline (main's or a thread's): the end; or a
			 * wrapper whose real call the program's frames above
			 * ran in (an allocation inside printf, inside
			 * pthread_create): skipped, and the walk goes on to
			 * the program's caller. */
			if (n > 0 && (c->ends_hi == 0 || (w.pc >= c->ends_lo && w.pc < c->ends_hi)))
				break;
		} else {
			ip[n] = w.pc;
			if (slot)
				slot[n] = at;
			n++;
			if (n == max)
				break;
		}
		if (!step(c, salt, &w, &at, flags))
			break;
	}
	return n;
}

unsigned gt_unwind(const struct gt_unwind_ctx *c, const struct gt_unwind_regs *r, uintptr_t *ip, uintptr_t *slot,
		   unsigned max, unsigned *flags)
{
	return unwind_from(c, r, 0, ip, slot, max, flags);
}

unsigned gt_unwind_interrupted(const struct gt_unwind_ctx *c, const struct gt_unwind_regs *r, uintptr_t *ip,
			       unsigned max, unsigned *flags)
{
	return unwind_from(c, r, 1, ip, NULL, max, flags);
}
