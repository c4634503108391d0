/* stack.c — capturing raw stacks with the tracer's own unwinder
 * (core/unwind.h) and interning them.
 *
 * Stack use of the capture path (gcc 12.2 -O2 -fstack-usage, each frame
 * plus its return address): gt_stack_take_at or gt_stack_capture_slow 120
 * (take inlined) + remember 104 + walk 184 + gt_unwind 152 = 560 bytes when
 * every rule is cached; a rule not cached yet adds compute 40 + gt_cfi_rule
 * 56 + fde_at 232 + rd_ptr 64 = 952 bytes at the very worst (the rule's
 * working memory is the thread's side area, struct gt_unwind_scratch, not
 * the program's stack). The frames are written to the side area too
 * (struct gt_stack), not to an array on the stack. Callers add their own:
 * the malloc wrapper's path 344 bytes (malloc 40, allocated 88,
 * gt_heap_alloc 216). */
#include "stack.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hash.h"
#include "selfsym.h"
#include "modules.h"
#include "sys.h"
#include "thread.h"
#include "tracer.h"
#include "unwind.h"

static _Atomic uintptr_t std_entry;

uintptr_t gt_stack_std_entry(void)
{
	return atomic_load_explicit(&std_entry, memory_order_relaxed);
}

void gt_stack_set_std_entry(uintptr_t entry)
{
	atomic_store_explicit(&std_entry, entry, memory_order_relaxed);
}

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
		gt_selfsym_init(info);
		return 1;
	}
	return 0;
}

extern void *__libc_stack_end; /* ld.so: the initial stack pointer, roughly */

/* main_bounds: the main thread's stack is the kernel's stack mapping; it
 * extends from the page holding __libc_stack_end down to at most
 * RLIMIT_STACK (capped at 1 GiB), and the kernel keeps every other
 * non-fixed mapping below that (mmap_base leaves at least the limit, and
 * at least 128 MiB, under the stack top). */
static void main_bounds(struct gt_thread *t)
{
	uintptr_t hi = ((uintptr_t)__libc_stack_end | 4095) + 1;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	struct rlimit rl;
	uint64_t size = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0)
		size = rl.rlim_cur;
	if (size > (1ull << 30))
		size = 1ull << 30;
	if (!__libc_stack_end || sp >= hi || hi - sp > size)
		return; /* not on the main stack: unknown */
	t->bounds.lo = hi - size;
	t->bounds.hi = hi;
}

void gt_stack_init(void)
{
	dl_iterate_phdr(find_self, (void *)(uintptr_t)gt_stack_init);
	gt_modules_init();
	if (gt_gettid() == getpid())
		main_bounds(&gt_self);
}

void gt_stack_hint(const pthread_attr_t *attr, struct gt_stack_hint *h)
{
	pthread_attr_t def;
	const pthread_attr_t *a = attr;
	memset(h, 0, sizeof *h);
	if (!a) {
		if (pthread_getattr_default_np(&def) != 0)
			return;
		a = &def;
	}
	void *addr = NULL;
	size_t size = 0, guard = 0;
	/* glibc reports a stack the program did not set as top NULL, that is
	 * addr == -size. */
	if (pthread_attr_getstack(a, &addr, &size) != 0)
		addr = NULL, size = 0;
	uintptr_t top = (uintptr_t)addr + size;
	pthread_attr_getstacksize(a, &size); /* the default when none was set */
	pthread_attr_getguardsize(a, &guard);
	if (a == &def)
		pthread_attr_destroy(&def);
	h->user_top = top;
	h->size = size;
	h->guard = guard;
}

/* gt_stack_thread_start: glibc places every thread's descriptor (its TCB,
 * pthread_self()) at the top of the thread's stack block — the block it
 * mapped, or the top of a stack the program supplied — with the static TLS
 * right under it and the stack below that. So pthread_self() bounds the
 * stack from above, and [sp, pthread_self()) is mapped for any sp of the
 * thread's stack. From below: a stack the program supplied starts at its
 * address; glibc's own block is the requested size plus the guard, and
 * ends at the first page boundary above the descriptor (which takes
 * sizeof(struct pthread), 2304 bytes in glibc 2.36, rounded up to the
 * static TLS alignment: less than a page). A cached block glibc reuses may
 * be larger, never smaller: the range is then a little short, never too
 * long. test/unit/test_unwind.c checks these layouts against
 * pthread_getattr_np. No system call: the range is known from the start. */
void gt_stack_thread_start(struct gt_thread *t, const struct gt_stack_hint *h)
{
	uintptr_t self = (uintptr_t)pthread_self();
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t lo;
	if (!h->size)
		return;
	if (h->user_top) {
		if (self > h->user_top || h->user_top < h->size)
			return;
		lo = h->user_top - h->size;
	} else {
		uintptr_t top = (self | 4095) + 1, len = h->size + h->guard;
		if (len < h->size || top < len)
			return;
		lo = top - len;
	}
	if (sp < lo || sp >= self)
		return; /* not where it should be: unknown */
	t->bounds.lo = lo;
	t->bounds.hi = self;
}

/* alt_range reads the sigaltstack range as interpose/altstack.c stores it
 * (end, start, end): a handler changing it between the reads leaves no
 * range rather than a mix of two. */
static inline void alt_range(const struct gt_thread *t, uintptr_t *lo, uintptr_t *hi)
{
	const volatile struct gt_stack_bounds *b = &t->bounds;
	uintptr_t h = b->alt_hi, l = b->alt_lo;
	if (b->alt_hi == h && l < h) {
		*lo = l;
		*hi = h;
	} else {
		*lo = *hi = 0;
	}
}

/* The start trampolines (interpose/start.c, interpose/thread.c) live in a
 * section of their own, GT_START_FRAME: its bounds, from the linker (weak:
 * absent where the interposers are not linked, as in the unit tests). */
extern const char __start_gt_start_frames[] __attribute__((weak, visibility("hidden")));
extern const char __stop_gt_start_frames[] __attribute__((weak, visibility("hidden")));

/* The rules of every PC, shared by all threads (core/unwind.h). */
static struct gt_unwind_cache rule_cache;

/* unwind_ctx: what an unwind of thread t reads — the shared rule cache,
 * the library's range, the start trampolines that end a stack, the thread's
 * stack and alternate stack. */
static void unwind_ctx(struct gt_thread *t, struct gt_unwind_ctx *c)
{
	*c = (struct gt_unwind_ctx){
		.cache = &rule_cache,
		.self_lo = gt.self_lo,
		.self_hi = gt.self_hi,
		.ends_lo = (uintptr_t)__start_gt_start_frames,
		.ends_hi = (uintptr_t)__stop_gt_start_frames,
		.stack = { t->bounds.lo, t->bounds.hi },
	};
	alt_range(t, &c->alt.lo, &c->alt.hi);
}

/* walk unwinds the calling thread's stack from here (see gt_unwind). */
__attribute__((noinline)) static unsigned walk(uintptr_t *ip, uintptr_t *slot, unsigned max, unsigned *flags)
{
	struct gt_thread *t = &gt_self;
	struct gt_unwind_ctx c;
	unwind_ctx(t, &c);
	/* Only a registered thread's hazard slot is seen by publishers; a
	 * rule's computation needs the thread's scratch memory. */
	*flags = 0;
	struct gt_side *side = gt_thread_side(t); /* mapped on the first capture */
	if (!t->registered || !side)
		return 0; /* unregistered: never the case for a thread that records events */
	c.scratch = &side->unwind;
	c.mods = gt_modules_enter(t);
	struct gt_unwind_regs r;
	gt_unwind_here(&r);
	unsigned n = gt_unwind(&c, &r, ip, slot, max, flags);
	gt_modules_leave(t);
	return n;
}

unsigned gt_stack_capture_regs(struct gt_thread *t, uintptr_t pc, uintptr_t sp, uintptr_t rbp, uintptr_t *pcs,
			       unsigned max)
{
	struct gt_side *side = t->side;
	if (!t->registered || !side || max == 0)
		return 0;
	if (max == 1) { /* GOTRACE_STACKS=0: the interrupted instruction only */
		pcs[0] = pc;
		return 1;
	}
	struct gt_unwind_ctx c;
	unwind_ctx(t, &c);
	c.scratch = &side->unwind;
	c.mods = gt_modules_enter(t);
	struct gt_unwind_regs r = { .pc = pc, .sp = sp, .rbp = rbp };
	unsigned flags;
	unsigned n = gt_unwind_interrupted(&c, &r, pcs, max, &flags);
	gt_modules_leave(t);
	return n;
}

/* unwind: the stack above the tracer's frames, with the stack slot each
 * return address was read from (the caller's SP at the call, minus 8). */
static unsigned unwind(uintptr_t *ip, uintptr_t *slot, unsigned max, unsigned *flags)
{
	return walk(ip, slot, max, flags);
}

/* readable_hi: the end of the stack range the thread may read from sp. */
static inline uintptr_t readable_hi(const struct gt_thread *t, uintptr_t sp)
{
	if (sp >= t->bounds.lo && sp < t->bounds.hi)
		return t->bounds.hi;
	uintptr_t lo, hi;
	alt_range(t, &lo, &hi);
	if (sp >= lo && sp < hi)
		return hi;
	return (sp | 4095) + 1;
}

/* memo_valid: every remembered return address is still in its slot. By
 * induction from the same caller and SP, each frame's slot holds the same
 * return address only if the whole chain of callers is the same. The slots
 * rise strictly (remember keeps no stack through a signal frame), so the
 * last one bounds them all: it must lie below the end of the stack the
 * thread runs on now (a stack since freed is never read). */
static int memo_valid(const struct gt_stack_memo *m, uintptr_t hi)
{
	if (m->slot[m->n - 1] > hi - sizeof(uintptr_t))
		return 0;
	for (uint32_t i = 0; i < m->n; i++)
		if (*(const uintptr_t *)m->slot[i] != m->ip[i])
			return 0;
	return 1;
}

/* unwind_raw: the stack without remembering it (no wrapper site noted). */
static unsigned unwind_raw(uintptr_t *pcs, unsigned max)
{
	unsigned flags;
	return 1 + walk(pcs + 1, NULL, max - 1, &flags);
}

/* remember unwinds the stack above the wrapper called from ra0 with CFA
 * cfa0 into pcs + 1 and keeps it in set w (replacing the way used least
 * recently) when it checks out: it starts at the expected caller and every
 * slot holds its return address now (no signal frame or odd unwinding).
 * Returns the frames written, site included; *memo: the remembered stack. */
__attribute__((noinline)) static unsigned remember(uintptr_t *pcs, struct gt_side *side, struct gt_stack_memo *w,
						   uintptr_t ra0, uintptr_t cfa0, unsigned want,
						   struct gt_stack_memo **memo)
{
	/* The way used least recently, unwound into directly (no copy of
	 * the slots on the program's stack): it is replaced either way. */
	struct gt_stack_memo *m = &w[0];
	for (int k = 1; k < GT_MEMO_WAYS; k++)
		if (w[k].stamp < m->stamp)
			m = &w[k];
	m->n = 0;
	unsigned flags;
	unsigned n = unwind(pcs + 1, m->slot, want, &flags);
	if (n > 0 && pcs[1] == ra0 && m->slot[0] == cfa0 - sizeof(uintptr_t) && !(flags & GT_UNWIND_SIGNAL)) {
		m->ra0 = ra0;
		m->cfa0 = cfa0;
		m->n = n;
		m->id_gen = 0;
		m->stamp = ++side->memo_tick;
		memcpy(m->ip, pcs + 1, n * sizeof *m->ip);
		if (memo_valid(m, readable_hi(&gt_self, cfa0)))
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
	uintptr_t hi = readable_hi(t, cfa0);
	/* The set: the top bits of a multiplicative hash of the pair. */
	unsigned set = (unsigned)(((ra0 ^ (cfa0 << 7)) * 0x9e3779b97f4a7c15ull) >> 59) & (GT_MEMO_SETS - 1);
	struct gt_stack_memo *w = &side->memo[GT_MEMO_WAYS * set];
	for (int k = 0; k < GT_MEMO_WAYS; k++) {
		struct gt_stack_memo *m = &w[k];
		if (m->ra0 == ra0 && m->cfa0 == cfa0 && m->n > 0 && m->n <= want && memo_valid(m, hi)) {
			m->stamp = ++side->memo_tick;
			*memo = m;
			return 0;
		}
	}
	return remember(pcs, side, w, ra0, cfa0, want, memo);
}

void gt_stack_take_at(struct gt_stack *s, uintptr_t site, uintptr_t ra, uintptr_t cfa)
{
	struct gt_side *side = gt_thread_side(&gt_self);
	s->site = site;
	if (__builtin_expect(!side, 0)) {
		s->pcs = s->own;
		s->pcs[0] = site;
		s->n = 1;
		s->memo = NULL;
		return;
	}
	s->pcs = side->pcs;
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
	for (unsigned i = 0; i < GT_MEMO_WAYS * GT_MEMO_SETS; i++) {
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
	int saved = errno; /* the table's lock may sleep in futex */
	uint64_t id = gt_stacktab_put(&gt.stacks[gen & 1], h, pcs, n);
	/* The cache is in the side area, mapped here on the thread's first
	 * stack id when no capture mapped it (GOTRACE_STACKS=0). */
	gt_thread_side(t);
	errno = saved;
	if (id && t->side) {
		struct gt_stack_cache_entry *e = &t->side->stack_cache[h & (GT_STACK_CACHE - 1)];
		e->hash = h;
		e->gen = gen;
		e->id = id;
	}
	return id;
}
