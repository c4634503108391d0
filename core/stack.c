/* stack.c — capturing raw stacks with libunwind and interning them. */
#define UNW_LOCAL_ONLY
#include "stack.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <libunwind.h>
#include <string.h>

#include "hash.h"
#include "thread.h"
#include "tracer.h"

static int find_self(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uintptr_t probe = (uintptr_t)ctx;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (probe >= lo && probe < hi) {
		gt.self_lo = lo;
		gt.self_hi = hi;
		return 1;
	}
	return 0;
}

void gt_stack_init(void)
{
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	unw_set_cache_size(unw_local_addr_space, 1024, 0);
	dl_iterate_phdr(find_self, (void *)(uintptr_t)gt_stack_init);
}

/* unwind walks the stack with libunwind from here, skipping this library's
 * frames until the program's, and stopping at a start trampoline of ours.
 * Writes up to max return addresses to ip and, for each, the stack slot it
 * was read from (the caller's SP at the call, minus 8 on x86-64). */
static unsigned unwind(uintptr_t *ip, uintptr_t *slot, unsigned max)
{
	int saved = errno; /* libunwind may make failing system calls */
	unw_context_t uc;
	unw_cursor_t c;
	if (unw_getcontext(&uc) != 0 || unw_init_local(&c, &uc) != 0) {
		errno = saved;
		return 0;
	}
	unsigned n = 0;
	while (n < max && unw_step(&c) > 0) {
		unw_word_t pc = 0, sp = 0;
		unw_get_reg(&c, UNW_REG_IP, &pc);
		unw_get_reg(&c, UNW_REG_SP, &sp);
		if (pc == 0)
			break;
		if (pc >= gt.self_lo && pc < gt.self_hi) {
			if (n > 0)
				break; /* a start trampoline: the stack ends here */
			continue;
		}
		ip[n] = pc;
		slot[n] = sp - sizeof(uintptr_t);
		n++;
	}
	errno = saved;
	return n;
}

/* memo_valid: every remembered return address is still in its slot. By
 * induction from the same caller and SP, each frame's slot holds the same
 * return address only if the whole chain of callers is the same. */
static int memo_valid(const struct gt_stack_memo *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (*(const uintptr_t *)m->slot[i] != m->ip[i])
			return 0;
	return 1;
}

/* unwind_raw: the stack without remembering it (no wrapper site noted). */
static unsigned unwind_raw(uintptr_t *pcs, unsigned max)
{
	void *raw[GT_MAX_FRAMES + 16];
	unsigned cap = max - 1 + 16;
	if (cap > sizeof raw / sizeof raw[0])
		cap = sizeof raw / sizeof raw[0];
	int saved = errno;
	int got = unw_backtrace(raw, (int)cap);
	errno = saved;
	unsigned n = 1;
	for (int i = 0; i < got && n < max; i++) {
		uintptr_t pc = (uintptr_t)raw[i];
		if (pc >= gt.self_lo && pc < gt.self_hi) {
			/* Our frames: first the wrapper and the tracer (skipped);
			 * below the program's frames, a start trampoline (main's
			 * or a thread's): the stack ends at the start function. */
			if (n > 1)
				break;
			continue;
		}
		if (pc == 0)
			break;
		pcs[n++] = pc;
	}
	return n;
}

/* take captures the stack at site into pcs (pcs[0] = site): returns the
 * number of frames written, or 0 when a remembered stack matched (*memo:
 * its frames are there, not in pcs). *memo is the remembered stack the
 * frames are, if any. */
/* remember unwinds the stack above the wrapper called from ra0 with CFA
 * cfa0 into pcs + 1 and keeps it in set w (replacing the way used least
 * recently) when it checks out: it starts at the expected caller and every
 * slot holds its return address now (no signal frame or odd unwinding).
 * Returns the frames written, site included; *memo: the remembered stack. */
__attribute__((noinline)) static unsigned remember(uintptr_t *pcs, struct gt_side *side, struct gt_stack_memo *w,
						   uintptr_t ra0, uintptr_t cfa0, unsigned want,
						   struct gt_stack_memo **memo)
{
	uintptr_t slot[GT_MEMO_FRAMES];
	unsigned n = unwind(pcs + 1, slot, want);
	if (n > 0 && pcs[1] == ra0 && slot[0] == cfa0 - sizeof(uintptr_t)) {
		struct gt_stack_memo *m = w[0].stamp <= w[1].stamp ? &w[0] : &w[1];
		m->ra0 = ra0;
		m->cfa0 = cfa0;
		m->n = n;
		m->id_gen = 0;
		m->stamp = ++side->memo_tick;
		memcpy(m->ip, pcs + 1, n * sizeof *m->ip);
		memcpy(m->slot, slot, n * sizeof *slot);
		if (memo_valid(m))
			*memo = m;
		else
			m->n = 0;
	}
	return 1 + n;
}

/* take captures the stack at site into pcs (pcs[0] = site): returns the
 * number of frames written, or 0 when a remembered stack matched (*memo:
 * its frames are there, not in pcs). *memo is the remembered stack the
 * frames are, if any. A remembered stack costs a hash, two compares and a
 * load and compare per frame; only the first sight of a call site unwinds. */
static inline __attribute__((always_inline)) unsigned take(uintptr_t *pcs, uintptr_t site, uintptr_t ra0,
							    uintptr_t cfa0, struct gt_stack_memo **memo)
{
	unsigned max = gt.max_frames;
	*memo = NULL;
	pcs[0] = site;
	if (max == 1)
		return 1;
	struct gt_thread *t = &gt_self;
	struct gt_side *side;
	if (__builtin_expect(!ra0 || max - 1 > GT_MEMO_FRAMES || !(side = gt_thread_side(t)), 0))
		return unwind_raw(pcs, max);
	unsigned want = max - 1;
	/* The set: the top bits of a multiplicative hash of the pair. */
	unsigned set = (unsigned)(((ra0 ^ (cfa0 << 7)) * 0x9e3779b97f4a7c15ull) >> 59) & (GT_MEMO_SETS - 1);
	struct gt_stack_memo *w = &side->memo[2 * set];
	for (int k = 0; k < 2; k++) {
		struct gt_stack_memo *m = &w[k];
		if (m->ra0 == ra0 && m->cfa0 == cfa0 && m->n > 0 && m->n <= want && memo_valid(m)) {
			m->stamp = ++side->memo_tick;
			*memo = m;
			return 0;
		}
	}
	return remember(pcs, side, w, ra0, cfa0, want, memo);
}

void gt_stack_take_at(struct gt_stack *s, uintptr_t site, uintptr_t ra, uintptr_t cfa)
{
	s->pcs = gt_self.side->scratch; /* registered: it has one */
	s->site = site;
	s->n = take(s->pcs, site, ra, cfa, &s->memo);
}

unsigned gt_stack_capture_slow(uintptr_t *pcs, uintptr_t site)
{
	struct gt_thread *t = &gt_self;
	uintptr_t ra0 = t->site_ra, cfa0 = t->site_cfa;
	t->site_ra = t->site_cfa = 0;
	struct gt_stack_memo *m;
	unsigned n = take(pcs, site, ra0, cfa0, &m);
	if (n == 0) {
		memcpy(pcs + 1, m->ip, m->n * sizeof *m->ip);
		n = 1 + m->n;
	}
	return n;
}

void gt_stack_forget_sizes(struct gt_side *side)
{
	for (unsigned i = 0; i < 2 * GT_MEMO_SETS; i++) {
		struct gt_stack_memo *m = &side->memo[i];
		if (m->sizes)
			memset(m->sizes, 0, GT_SIZES * sizeof *m->sizes);
		m->binding = 0;
	}
	side->bindings = 0;
}

uint64_t gt_stack_take_id_slow(struct gt_thread *t, uint64_t gen, struct gt_stack *s)
{
	struct gt_stack_memo *m = s->memo;
	if (s->n == 0) { /* a remembered stack: its frames, for the table */
		s->pcs[0] = s->site;
		memcpy(s->pcs + 1, m->ip, m->n * sizeof *m->ip);
		s->n = 1 + m->n;
	}
	uint64_t id = gt_stack_id(t, gen, s->pcs, s->n);
	if (m && id) {
		m->id_gen = gen;
		m->id_site = s->site;
		m->id = id;
		uint32_t b = ++t->side->bindings;
		if (b == 0) { /* wrapped: forget every size table first */
			gt_stack_forget_sizes(t->side);
			b = ++t->side->bindings;
		}
		m->binding = b;
	}
	return id;
}

uint64_t gt_stack_id_slow(struct gt_thread *t, uint64_t gen, const uintptr_t *pcs, unsigned n, uint64_t h)
{
	struct gt_stack_cache_entry *e = &t->stack_cache[h & (GT_STACK_CACHE - 1)];
	int saved = errno; /* the table's lock may sleep in futex */
	uint64_t id = gt_stacktab_put(&gt.stacks[gen & 1], h, pcs, n);
	errno = saved;
	if (id) {
		e->hash = h;
		e->gen = gen;
		e->id = id;
	}
	return id;
}
