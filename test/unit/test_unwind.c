/* test_unwind.c — the stack walk (core/unwind.c) against glibc's
 * backtrace() on real stacks of this binary: deep recursion, a libc
 * callback, a signal handler (on the thread's stack and on a sigaltstack),
 * realigned frames with alloca, frame pointers kept and omitted; code
 * without CFI ends the walk cleanly; reads stay inside the stack range; the
 * walk's own stack use; and where glibc puts a thread's descriptor (the
 * stack bounds core/stack.c relies on). */
#include <alloca.h>
#include <criterion/criterion.h>
#include <execinfo.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/modules.h"
#include "core/unwind.h"

#define MAXF 96

static struct gt_unwind_cache cache;
static struct gt_unwind_scratch scratch;

struct cap {
	uintptr_t ours[MAXF], slot[MAXF];
	unsigned n, flags;
	void *theirs[MAXF];
	int m;
	int bad_slot; /* first frame whose slot did not hold it at capture time, or -1 */
};

/* The context for the calling thread: its whole stack (from
 * pthread_getattr_np), the module table, and alt as given. */
static void context(struct gt_unwind_ctx *c, const struct gt_modtab *t)
{
	memset(c, 0, sizeof *c);
	c->mods = t;
	c->cache = &cache;
	c->scratch = &scratch;
	pthread_attr_t a;
	void *addr;
	size_t size;
	cr_assert_eq(pthread_getattr_np(pthread_self(), &a), 0);
	cr_assert_eq(pthread_attr_getstack(&a, &addr, &size), 0);
	pthread_attr_destroy(&a);
	c->stack.lo = (uintptr_t)addr;
	c->stack.hi = (uintptr_t)addr + size;
}

static struct gt_modtab *table;
static struct gt_unwind_ctx ctx; /* set by the test before capturing */

/* capture takes both stacks; from index 1 on (the caller of capture) they
 * must agree. Not inlined: its own return addresses differ. */
__attribute__((noinline)) static void capture(struct cap *k)
{
	k->m = backtrace(k->theirs, MAXF);
	struct gt_unwind_regs r;
	gt_unwind_here(&r);
	k->n = gt_unwind(&ctx, &r, k->ours, k->slot, MAXF, &k->flags);
	/* Frame 0's slot (gt_unwind_here's return address) is gone; the
	 * others are live until capture returns. */
	k->bad_slot = -1;
	for (unsigned i = 1; i < k->n && k->bad_slot < 0; i++)
		if (*(const uintptr_t *)k->slot[i] != k->ours[i] || k->slot[i] <= k->slot[i - 1])
			k->bad_slot = (int)i;
	__asm__ volatile("" ::: "memory");
}

static void setup(void)
{
	table = gt_modtab_build(1, NULL, 1);
	cr_assert_not_null(table);
	context(&ctx, table);
}

static void teardown(void)
{
	gt_modtab_free(table);
	table = NULL;
}

/* same_stack: ours[1..n) == theirs[1..m), every slot holds its return
 * address and the slots rise (unless a signal frame was crossed). */
static void same_stack(const struct cap *k, unsigned at_least)
{
	cr_assert_gt(k->m, 1);
	cr_assert_geq(k->n, at_least, "only %u frames (backtrace: %d)", k->n, k->m);
	for (int i = 1; i < k->m; i++) {
		cr_assert_lt((unsigned)i, k->n, "our walk stopped at frame %d of %d (%p)", i, k->m, k->theirs[i]);
		cr_assert_eq(k->ours[i], (uintptr_t)k->theirs[i], "frame %d: %#lx, backtrace says %p", i,
			     (unsigned long)k->ours[i], k->theirs[i]);
	}
	cr_expect_eq(k->n, (unsigned)k->m, "we found %u frames, backtrace %d", k->n, k->m);
	if (!(k->flags & GT_UNWIND_SIGNAL))
		cr_expect_eq(k->bad_slot, -1, "frame %d: its slot did not hold it, or slots did not rise",
			     k->bad_slot);
}

/* --- deep recursion, omitted and kept frame pointers ----------------------- */

__attribute__((noinline, optimize("omit-frame-pointer"))) int uw_recurse(struct cap *k, int d)
{
	if (d == 0) {
		capture(k);
		return 1;
	}
	int r = uw_recurse(k, d - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + 1;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) int uw_framed(struct cap *k, int d)
{
	volatile char pad[40];
	pad[d & 31] = 1;
	if (d == 0) {
		capture(k);
		return pad[0];
	}
	int r = uw_framed(k, d - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + pad[1];
}

Test(unwind, deep_recursion_matches_backtrace, .init = setup, .fini = teardown)
{
	static struct cap k;
	uw_recurse(&k, 60);
	same_stack(&k, 62);
	cr_expect_eq(k.flags & GT_UNWIND_FP, 0, "frame pointers were needed");
	/* Again, every rule now from the cache. */
	static struct cap k2;
	uw_recurse(&k2, 60);
	same_stack(&k2, 62);
}

Test(unwind, frame_pointer_functions_match_backtrace, .init = setup, .fini = teardown)
{
	static struct cap k;
	uw_framed(&k, 20);
	same_stack(&k, 22);
}

Test(unwind, stops_at_max, .init = setup, .fini = teardown)
{
	static struct cap k;
	uw_recurse(&k, 30);
	uintptr_t few[5], slots[5];
	struct gt_unwind_regs r;
	gt_unwind_here(&r);
	unsigned flags;
	cr_expect_eq(gt_unwind(&ctx, &r, few, slots, 5, &flags), 5);
}

/* --- a libc callback --------------------------------------------------------- */

static struct cap qsort_cap;
static int qsort_captured;

static int uw_compare(const void *a, const void *b)
{
	if (!qsort_captured++)
		capture(&qsort_cap);
	return *(const int *)a - *(const int *)b;
}

Test(unwind, through_a_qsort_comparator, .init = setup, .fini = teardown)
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort_captured = 0;
	qsort(v, 64, sizeof v[0], uw_compare);
	same_stack(&qsort_cap, 5);
	/* The comparator was called by libc: a frame of libc's qsort. */
	const struct gt_module *libc = gt_modtab_find(table, (uintptr_t)qsort);
	int in_libc = 0;
	for (unsigned i = 1; i < qsort_cap.n; i++)
		in_libc |= gt_modtab_find(table, qsort_cap.ours[i]) == libc;
	cr_expect(in_libc, "no libc frame between the comparator and the test");
}

/* --- signal handlers --------------------------------------------------------- */

static struct cap sig_cap;

static void uw_handler(int sig)
{
	(void)sig;
	capture(&sig_cap);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

/* A handler whose frame is larger than a page: the signal frame lies
 * outside the page holding sp. */
static void uw_big_handler(int sig)
{
	volatile char pad[6000];
	pad[sig] = 1;
	capture(&sig_cap);
	__asm__ volatile("" : : "r"(pad) : "memory");
}

__attribute__((noinline)) int uw_raise(int d)
{
	if (d == 0)
		return raise(SIGUSR1);
	int r = uw_raise(d - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r;
}

static int frame_index(const struct cap *k, uintptr_t lo, uintptr_t hi)
{
	for (unsigned i = 0; i < k->n; i++)
		if (k->ours[i] >= lo && k->ours[i] < hi)
			return (int)i;
	return -1;
}

static void check_signal_stack(void)
{
	same_stack(&sig_cap, 8);
	cr_expect(sig_cap.flags & GT_UNWIND_SIGNAL, "no signal frame crossed");
	/* The walk went on below raise into the test's recursion. */
	uintptr_t lo, hi;
	const struct gt_module *m = gt_modtab_find(table, (uintptr_t)uw_raise);
	cr_assert_eq(gt_cfi_fde(&m->cfi, (uintptr_t)uw_raise, &lo, &hi), 0);
	cr_expect_geq(frame_index(&sig_cap, lo, hi), 0, "uw_raise is not on the stack");
}

Test(unwind, through_a_signal_frame, .init = setup, .fini = teardown)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = uw_handler;
	cr_assert_eq(sigaction(SIGUSR1, &sa, &old), 0);
	memset(&sig_cap, 0, sizeof sig_cap);
	uw_raise(5);
	sigaction(SIGUSR1, &old, NULL);
	check_signal_stack();
}

Test(unwind, from_a_sigaltstack_through_the_signal_frame, .init = setup, .fini = teardown)
{
	size_t size = 64 * 1024;
	void *alt = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(alt, MAP_FAILED);
	stack_t ss = { .ss_sp = alt, .ss_size = size }, oss;
	cr_assert_eq(sigaltstack(&ss, &oss), 0);
	ctx.alt.lo = (uintptr_t)alt;
	ctx.alt.hi = (uintptr_t)alt + size;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = uw_handler;
	sa.sa_flags = SA_ONSTACK;
	cr_assert_eq(sigaction(SIGUSR1, &sa, &old), 0);
	memset(&sig_cap, 0, sizeof sig_cap);
	uw_raise(5);
	sigaction(SIGUSR1, &old, NULL);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	cr_expect_geq(sig_cap.slot[0], (uintptr_t)alt, "the handler did not run on the alternate stack");
	cr_expect_lt(sig_cap.slot[0], (uintptr_t)alt + size);
	check_signal_stack();
	/* Without the alternate stack's range only the page holding sp may
	 * be read: the walk stops early, without a fault. */
	ctx.alt.lo = ctx.alt.hi = 0;
	cr_assert_eq(sigaltstack(&(stack_t){ .ss_sp = alt, .ss_size = size }, NULL), 0);
	sa.sa_handler = uw_big_handler;
	cr_assert_eq(sigaction(SIGUSR1, &sa, &old), 0);
	memset(&sig_cap, 0, sizeof sig_cap);
	uw_raise(5);
	sigaction(SIGUSR1, &old, NULL);
	sigaltstack(&ss, NULL);
	cr_expect_lt(sig_cap.n, (unsigned)sig_cap.m, "walked past the page of an unknown stack");
	cr_expect_eq(sig_cap.flags & GT_UNWIND_SIGNAL, 0);
	munmap(alt, size);
}

/* --- realigned frames, alloca ------------------------------------------------ */

__attribute__((noinline)) int uw_realigned(struct cap *k, int n)
{
	/* A 64-byte aligned local and a variable-size one: gcc realigns the
	 * stack through a DRAP register, whose CFA is *(rbp - 8). */
	char big[100] __attribute__((aligned(64)));
	char *v = alloca((size_t)n);
	memset(big, n, sizeof big);
	memset(v, n, (size_t)n);
	__asm__ volatile("" : : "r"(big), "r"(v) : "memory");
	capture(k);
	__asm__ volatile("" : : "r"(big), "r"(v) : "memory");
	return big[n & 63] + v[0];
}

__attribute__((noinline)) int uw_alloca(struct cap *k, int n)
{
	char *v = alloca((size_t)n);
	memset(v, 1, (size_t)n);
	__asm__ volatile("" : : "r"(v) : "memory");
	int r = uw_realigned(k, n + 3);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + v[n - 1];
}

Test(unwind, realigned_and_alloca_frames, .init = setup, .fini = teardown)
{
	static struct cap k;
	uw_alloca(&k, 200);
	same_stack(&k, 5);
	/* The rule for the realigned function's call site uses the
	 * expression (this compiler) or a frame pointer; either way it is a
	 * CFI rule, not a frame-pointer guess. */
	gt_rule_t r = gt_unwind_rule(&ctx, k.ours[1], 0);
	cr_expect_eq(gt_rule_kind(r), GT_RULE_CFI);
	cr_expect_eq(k.flags & GT_UNWIND_FP, 0);
}

/* --- code without CFI --------------------------------------------------------- */

/* uw_nocfi(fn, arg, rbp): calls fn(arg) with rbp set to the given value;
 * it has no CFI and keeps no frame pointer. */
__asm__(".text\n"
	".globl uw_nocfi\n"
	".type uw_nocfi, @function\n"
	"uw_nocfi:\n"
	"\tpushq %rbp\n"
	"\tpushq %rbx\n"
	"\tsubq $8, %rsp\n"
	"\tmovq %rdx, %rbp\n"
	"\tmovq %rdi, %rax\n"
	"\tmovq %rsi, %rdi\n"
	"\tcall *%rax\n"
	"\taddq $8, %rsp\n"
	"\tpopq %rbx\n"
	"\tpopq %rbp\n"
	"\tret\n"
	".size uw_nocfi, .-uw_nocfi\n");
void uw_nocfi(void (*fn)(void *), void *arg, uintptr_t rbp);

static void uw_capture_cb(void *k)
{
	capture(k);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

Test(unwind, code_without_cfi_stops_cleanly, .init = setup, .fini = teardown)
{
	uintptr_t page = 4096;
	uintptr_t bad[] = { 0, 8, 0xdead0000, (uintptr_t)&page /* on this stack, garbage above */,
			    ctx.stack.hi - 8, ctx.stack.hi + 4096, UINTPTR_MAX - 7 };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		static struct cap k;
		memset(&k, 0, sizeof k);
		uw_nocfi(uw_capture_cb, &k, bad[i]);
		/* capture, the callback, the return address into uw_nocfi;
		 * then a frame pointer check that either stops or walks a
		 * chain that stays inside the stack and rises. */
		cr_assert_geq(k.n, 3, "rbp %#lx: %u frames", (unsigned long)bad[i], k.n);
		cr_expect(k.ours[2] - (uintptr_t)uw_nocfi < 64, "frame 2 is not in uw_nocfi");
		for (unsigned f = 3; f < k.n; f++)
			cr_expect(k.slot[f] > k.slot[f - 1] && k.slot[f] < ctx.stack.hi);
	}
}

/* --- bounds ------------------------------------------------------------------- */

__attribute__((noinline)) int uw_big(struct cap *k, int d)
{
	volatile char pad[1000];
	pad[d] = 1;
	if (d == 0) {
		capture(k);
		return pad[0];
	}
	int r = uw_big(k, d - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + pad[d];
}

Test(unwind, reads_only_the_page_of_an_unknown_stack, .init = setup, .fini = teardown)
{
	static struct cap k;
	ctx.stack.lo = ctx.stack.hi = 0; /* the thread's stack unknown */
	uw_big(&k, 12);
	cr_assert_geq(k.n, 1);
	for (unsigned i = 0; i < k.n; i++)
		cr_expect_lt(k.slot[i], (k.slot[0] | 4095) + 1, "read outside the page of sp");
	cr_expect_lt(k.n, (unsigned)k.m);
}

Test(unwind, without_a_module_table_frame_pointers_only, .init = setup, .fini = teardown)
{
	static struct cap k;
	ctx.mods = NULL;
	uw_framed(&k, 10);
	cr_assert_geq(k.n, 1);
	for (unsigned i = 1; i < k.n; i++)
		cr_expect_gt(k.slot[i], k.slot[i - 1]);
}

/* --- the walk's own stack use ------------------------------------------------- */

#define PAINT 16384

__attribute__((noinline)) static void paint(void)
{
	uint8_t area[PAINT];
	memset(area, 0xa5, sizeof area);
	__asm__ volatile("" : : "r"(area) : "memory");
}

/* measure paints the stack below its own frame, runs one walk and returns
 * how deep below its stack pointer the walk wrote. */
__attribute__((noinline)) static size_t measure(int cold)
{
	static uintptr_t ip[MAXF];
	static struct gt_unwind_regs r;
	static unsigned flags;
	uintptr_t sp;
	if (cold)
		memset(&cache, 0, sizeof cache);
	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	paint();
	gt_unwind_here(&r);
	gt_unwind(&ctx, &r, ip, NULL, MAXF, &flags);
	const volatile uint8_t *p = (const volatile uint8_t *)(sp - PAINT + 64);
	for (size_t i = 0; i < PAINT - 64; i++)
		if (p[i] != 0xa5)
			return (size_t)(sp - (uintptr_t)&p[i]);
	return 0;
}

Test(unwind, uses_little_stack, .init = setup, .fini = teardown)
{
	size_t used[2];
	for (int i = 0; i < 2; i++) {
		/* One call site (no peeled first iteration): the second walk
		 * finds every rule cached. */
		__asm__ volatile("" : "+r"(i));
		used[i] = measure(i == 0);
	}
	size_t cold = used[0], warm = used[1];
	cr_log_info("stack used by a walk: %zu bytes with an empty rule cache, %zu cached", cold, warm);
	cr_expect_lt(cold, 1024, "a walk with an empty cache used %zu bytes of stack", cold);
	cr_expect_lt(warm, 512, "a walk with cached rules used %zu bytes of stack", warm);
}

/* --- where glibc puts a thread's descriptor ---------------------------------- */

struct layout {
	uintptr_t sp, self, lo, hi, guard;
	size_t size;
};

static void *probe(void *arg)
{
	struct layout *l = arg;
	pthread_attr_t a;
	void *addr;
	l->sp = (uintptr_t)__builtin_frame_address(0);
	l->self = (uintptr_t)pthread_self();
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &addr, &l->size);
	pthread_attr_getguardsize(&a, &l->guard);
	pthread_attr_destroy(&a);
	l->lo = (uintptr_t)addr;
	l->hi = (uintptr_t)addr + l->size;
	return NULL;
}

/* core/stack.c, gt_stack_thread_start: the range it derives from the
 * creation attributes (size, guard; or the supplied stack) must lie inside
 * the thread's real stack block and hold sp, bounded by pthread_self(). */
static void check_layout(size_t size, void *user, size_t user_size)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	if (user)
		pthread_attr_setstack(&a, user, user_size);
	else if (size)
		pthread_attr_setstacksize(&a, size);
	size_t req = 0, guard = 0;
	pthread_attr_getstacksize(&a, &req);
	pthread_attr_getguardsize(&a, &guard);
	struct layout l;
	pthread_t th;
	cr_assert_eq(pthread_create(&th, &a, probe, &l), 0);
	pthread_join(th, NULL);
	pthread_attr_destroy(&a);
	cr_expect_gt(l.self, l.sp, "the descriptor is below the stack");
	cr_expect_leq(l.self, l.hi, "the descriptor is above the stack block");
	uintptr_t lo;
	if (user) {
		lo = (uintptr_t)user;
		cr_expect_leq(l.self, (uintptr_t)user + user_size);
	} else {
		/* glibc's block: guard then stack, [l.lo - guard, l.hi);
		 * pthread_getattr_np leaves the guard out. The block ends at the
		 * first page boundary above the descriptor. */
		cr_expect_eq(l.hi, (l.self | 4095) + 1, "descriptor %zu bytes under the block's top",
			     (size_t)(l.hi - l.self));
		lo = ((l.self | 4095) + 1) - (req + guard);
		cr_expect_geq(lo, l.lo - l.guard, "the derived range starts below the block");
	}
	cr_expect_leq(lo, l.sp, "sp below the derived range");
}

Test(unwind, thread_descriptor_bounds_the_stack)
{
	check_layout(0, NULL, 0);
	check_layout(PTHREAD_STACK_MIN, NULL, 0);
	check_layout(1 << 20, NULL, 0);
	size_t us = 256 * 1024;
	void *user = mmap(NULL, us, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(user, MAP_FAILED);
	check_layout(0, user, us);
	munmap(user, us);
}
