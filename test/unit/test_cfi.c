/* test_cfi.c — the CFI reader (core/cfi.c) and the module table
 * (core/modules.c): real CFI of this binary and libc, and hand-built CFA
 * programs for the operations compilers emit, the gcc realignment
 * expression, and what must stop the walk. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cfi.h"
#include "core/modules.h"
#include "core/unwind.h"

/* --- real CFI -------------------------------------------------------------- */

static struct gt_cfi_work work; /* the rule computation's working memory */

/* A function with a frame pointer: push rbp; mov rsp, rbp. */
__attribute__((noinline, optimize("no-omit-frame-pointer"))) int cfi_test_framed(int x)
{
	volatile char buf[64];
	buf[x & 63] = (char)x;
	__asm__ volatile("" ::: "memory");
	return buf[(x + 1) & 63];
}

static const struct gt_module *module_of(const struct gt_modtab *t, const void *fn)
{
	const struct gt_module *m = gt_modtab_find(t, (uintptr_t)fn);
	cr_assert_not_null(m, "no module holds %p", fn);
	cr_assert(m->has_cfi, "the module holding %p has no usable .eh_frame_hdr", fn);
	return m;
}

Test(cfi, finds_fdes_of_this_binary_and_libc)
{
	struct gt_modtab *t = gt_modtab_build(1, NULL, 1);
	cr_assert_not_null(t);
	cr_assert_gt(t->nmods, 2);
	cr_assert_gt(t->adds, 0, "dl_iterate_phdr gave no load counter");
	const void *fns[] = { (const void *)cfi_test_framed, (const void *)qsort, (const void *)malloc,
			      (const void *)memcpy };
	for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
		const struct gt_module *m = module_of(t, fns[i]);
		uintptr_t lo, hi, pc = (uintptr_t)fns[i];
		cr_assert_eq(gt_cfi_fde(&m->cfi, pc, &lo, &hi), 0, "no FDE for function %zu", i);
		cr_expect_eq(lo, pc, "function %zu: its FDE starts at %#lx, not at the function", i,
			     (unsigned long)lo);
		cr_expect_gt(hi, pc);
	}
	gt_modtab_free(t);
}

Test(cfi, rules_at_entry_and_in_a_framed_body)
{
	struct gt_modtab *t = gt_modtab_build(1, NULL, 1);
	const struct gt_module *m = module_of(t, (const void *)cfi_test_framed);
	uintptr_t fn = (uintptr_t)cfi_test_framed, lo, hi;
	cr_assert_eq(gt_cfi_fde(&m->cfi, fn, &lo, &hi), 0);
	/* At the first instruction: CFA = rsp + 8, return address at CFA - 8. */
	gt_rule_t r = gt_cfi_rule(&m->cfi, fn, &work);
	cr_assert_eq(gt_rule_kind(r), GT_RULE_CFI);
	cr_expect_eq(gt_rule_cfa_reg(r), 7);
	cr_expect_eq(gt_rule_cfa_off(r), 8);
	cr_expect_eq(gt_rule_ra_off(r), -8);
	cr_expect_eq(gt_rule_rbp(r), GT_RBP_SAME);
	/* In the body (just before the last instruction, the ret): CFA =
	 * rbp + 16, rbp saved at CFA - 16 — unless the epilogue already
	 * popped it. Look for a row with the frame pointer. */
	int framed = 0;
	for (uintptr_t pc = fn; pc < hi; pc++) {
		r = gt_cfi_rule(&m->cfi, pc, &work);
		cr_assert_eq(gt_rule_kind(r), GT_RULE_CFI, "no rule at %#lx", (unsigned long)(pc - fn));
		if (gt_rule_cfa_reg(r) == 6) {
			framed = 1;
			cr_expect_eq(gt_rule_cfa_off(r), 16);
			cr_expect_eq(gt_rule_rbp(r), GT_RBP_AT);
			cr_expect_eq(gt_rule_rbp_off(r), -16);
			cr_expect_eq(gt_rule_ra_off(r), -8);
		}
	}
	cr_expect(framed, "no row with CFA = rbp + 16 in a function built with a frame pointer");
	/* Past the function's FDE: no CFI there. */
	cr_expect_neq(gt_rule_kind(gt_cfi_rule(&m->cfi, 16, &work)), GT_RULE_CFI);
	gt_modtab_free(t);
}

Test(cfi, every_libc_function_start_has_a_rule)
{
	struct gt_modtab *t = gt_modtab_build(1, NULL, 1);
	const struct gt_module *m = module_of(t, (const void *)qsort);
	/* Walk the whole binary search table: every FDE parses and gives a
	 * usable or a clean stop rule at its start, never garbage. */
	unsigned cfi = 0, stop = 0;
	uintptr_t prev = 0;
	for (uintptr_t pc = m->seg[0].lo; pc < m->seg[m->nseg - 1].hi && cfi + stop < 100000;) {
		uintptr_t lo, hi;
		if (gt_cfi_fde(&m->cfi, pc, &lo, &hi) != 0) {
			pc++;
			continue;
		}
		cr_assert_geq(lo, prev);
		prev = lo;
		gt_rule_t r = gt_cfi_rule(&m->cfi, lo, &work);
		if (gt_rule_kind(r) == GT_RULE_CFI) {
			cfi++;
			cr_expect_eq(gt_rule_ra_off(r), -8, "at %#lx", (unsigned long)lo);
		} else {
			cr_expect_eq(gt_rule_kind(r), GT_RULE_STOP, "at %#lx", (unsigned long)lo);
			stop++;
		}
		pc = hi > pc ? hi : pc + 1;
	}
	cr_expect_gt(cfi, 1000, "only %u libc functions with a rule", cfi);
	cr_expect_lt(stop, cfi / 20, "%u of %u libc functions stop the walk", stop, cfi + stop);
	gt_modtab_free(t);
}

static void nop_handler(int sig)
{
	(void)sig;
}

Test(cfi, sigreturn_trampoline_is_recognized)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = nop_handler;
	cr_assert_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	cr_assert_eq(sigaction(SIGUSR2, NULL, &old), 0);
	cr_assert_not_null(old.sa_restorer, "glibc set no restorer");
	cr_assert_eq(memcmp((const void *)old.sa_restorer, GT_SIGRETURN_CODE, GT_SIGRETURN_LEN), 0,
		     "glibc's __restore_rt is not mov $15, %%rax; syscall");
	struct gt_modtab *t = gt_modtab_build(1, NULL, 1);
	static struct gt_unwind_cache cache;
	static struct gt_unwind_scratch scratch;
	struct gt_unwind_ctx c = { .mods = t, .cache = &cache, .scratch = &scratch };
	cr_expect_eq(gt_rule_kind(gt_unwind_rule(&c, (uintptr_t)old.sa_restorer, 0)), GT_RULE_SIGRETURN);
	cr_expect_neq(gt_rule_kind(gt_unwind_rule(&c, (uintptr_t)qsort, 0)), GT_RULE_SIGRETURN);
	gt_modtab_free(t);
}

/* Libraries this binary does not link, with one function of each. */
static const char *const late_libs[][2] = {
	{ "libexpat.so.1", "XML_ExpatVersion" }, { "libuuid.so.1", "uuid_generate" },
	{ "libcap.so.2", "cap_init" },           { "libcrypt.so.1", "crypt_r" },
	{ "liblz4.so.1", "LZ4_versionNumber" },  { "libsqlite3.so.0", "sqlite3_libversion" },
};

Test(cfi, module_loaded_after_the_table_is_found_through_the_loader)
{
	struct gt_modtab *t = gt_modtab_build(1, NULL, 1);
	void *h = NULL, *fn = NULL;
	for (size_t i = 0; i < sizeof late_libs / sizeof *late_libs && !fn; i++) {
		if (dlopen(late_libs[i][0], RTLD_NOW | RTLD_NOLOAD))
			continue;
		h = dlopen(late_libs[i][0], RTLD_NOW | RTLD_LOCAL);
		if (h && !(fn = dlsym(h, late_libs[i][1])))
			dlclose(h);
	}
	if (!fn)
		cr_skip_test("no library left to dlopen");
	cr_expect_null(gt_modtab_find(t, (uintptr_t)fn), "the table knows a module loaded after it");
	cr_expect(gt_modtab_changed(t), "the loader's counters did not move");
	if (!t->find_object)
		cr_skip_test("no _dl_find_object (glibc < 2.35)");
	struct gt_module m;
	cr_assert_eq(gt_modtab_object(t, (uintptr_t)fn, &m), 0);
	cr_expect(m.has_cfi);
	uintptr_t lo, hi;
	cr_expect_eq(gt_cfi_fde(&m.cfi, (uintptr_t)fn, &lo, &hi), 0);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&m.cfi, (uintptr_t)fn, &work)), GT_RULE_CFI);
	/* A table without the loader's help finds nothing there. */
	struct gt_modtab *p = gt_modtab_only_permanent(t, 2, 0);
	cr_assert_not_null(p);
	cr_expect_null(p->find_object);
	cr_expect_eq(gt_modtab_object(p, (uintptr_t)fn, &m), -1);
	cr_expect_eq(p->nmods, t->nmods);
	struct gt_modtab *n = gt_modtab_build(3, t, 0);
	cr_assert_not_null(n);
	const struct gt_module *late = gt_modtab_find(n, (uintptr_t)fn);
	cr_assert_not_null(late, "a rebuilt table misses the new module");
	cr_expect(!late->permanent, "a module loaded later counts as permanent");
	cr_expect(gt_modtab_find(n, (uintptr_t)qsort)->permanent);
	cr_expect(!gt_modtab_changed(n));
	gt_modtab_free(n);
	gt_modtab_free(p);
	gt_modtab_free(t);
	dlclose(h);
}

Test(cfi, only_permanent_drops_the_closed_module)
{
	struct gt_modtab *t = gt_modtab_build(1, NULL, 1);
	const struct gt_module *libc = module_of(t, (const void *)qsort);
	struct gt_modtab *p = gt_modtab_only_permanent(t, 2, libc->base);
	cr_assert_not_null(p);
	cr_expect_eq(p->nmods, t->nmods - 1);
	cr_expect_null(gt_modtab_find(p, (uintptr_t)qsort));
	cr_expect_not_null(gt_modtab_find(p, (uintptr_t)cfi_test_framed));
	gt_modtab_free(p);
	gt_modtab_free(t);
}

/* --- hand-built CFA programs ------------------------------------------------ */

/* A tiny .eh_frame_hdr + .eh_frame in one buffer: one CIE (code align 1,
 * data align -8, return address r16, CFA = rsp + 8, ra at CFA - 8) and
 * FDEs at fake code addresses, found through an absolute-address table. */
struct fake {
	uint8_t mem[4096];
	size_t len;
	size_t cie;
	uintptr_t fde_pc[16];
	size_t fde_at[16];
	unsigned nfde;
};

static void put(struct fake *f, const void *p, size_t n)
{
	cr_assert_leq(f->len + n, sizeof f->mem);
	memcpy(f->mem + f->len, p, n);
	f->len += n;
}

static void put32(struct fake *f, uint32_t v) { put(f, &v, 4); }
static void put64(struct fake *f, uint64_t v) { put(f, &v, 8); }

static void fake_cie(struct fake *f)
{
	static const uint8_t body[] = {
		0, 0, 0, 0,       /* CIE id */
		1,                /* version */
		'z', 'R', 0,      /* augmentation */
		1,                /* code alignment */
		0x78,             /* data alignment -8 */
		16,               /* return address register */
		1, 0x00,          /* augmentation data: FDE pointers absolute 8 bytes */
		0x0c, 7, 8,       /* def_cfa rsp 8 */
		0x90, 1,          /* offset r16 at cfa - 8 */
		0, 0,             /* nops to align */
	};
	f->cie = f->len;
	put32(f, sizeof body);
	put(f, body, sizeof body);
}

/* fake_fde adds an FDE for [pc, pc + range) running prog. */
static void fake_fde(struct fake *f, uintptr_t pc, uint64_t range, const uint8_t *prog, size_t n)
{
	size_t start = f->len;
	uint32_t len = (uint32_t)(4 + 8 + 8 + 1 + n);
	put32(f, len);
	put32(f, (uint32_t)(f->len - f->cie)); /* back to the CIE */
	put64(f, pc);
	put64(f, range);
	uint8_t zero = 0;
	put(f, &zero, 1); /* no augmentation data */
	put(f, prog, n);
	f->fde_pc[f->nfde] = pc;
	f->fde_at[f->nfde++] = start;
}

/* fake_src builds the header after the frames and a source over both. */
static void fake_src(struct fake *f, struct gt_cfi_src *s)
{
	put32(f, 0); /* terminator */
	size_t hdr = f->len;
	uint8_t head[4] = { 1, 0x04, 0x03, 0x04 }; /* ptr udata8, count udata4, table udata8 */
	put(f, head, 4);
	put64(f, (uint64_t)(uintptr_t)f->mem);
	put32(f, f->nfde);
	for (unsigned i = 0; i < f->nfde; i++) {
		put64(f, f->fde_pc[i]);
		put64(f, (uint64_t)(uintptr_t)(f->mem + f->fde_at[i]));
	}
	cr_assert_eq(gt_cfi_src_init(s, (uintptr_t)(f->mem + hdr), f->len - hdr), 0);
	s->eh_lo = (uintptr_t)f->mem;
	s->eh_hi = (uintptr_t)(f->mem + hdr);
}

#define CFA_RSP(r, off)                                                                         \
	do {                                                                                    \
		cr_expect_eq(gt_rule_kind(r), GT_RULE_CFI);                                     \
		cr_expect_eq(gt_rule_cfa_reg(r), 7);                                            \
		cr_expect_eq(gt_rule_cfa_off(r), (off));                                        \
		cr_expect_eq(gt_rule_cfa_deref(r), 0);                                          \
	} while (0)

Test(cfi, cfa_programs)
{
	static struct fake f;
	memset(&f, 0, sizeof f);
	fake_cie(&f);
	/* A prologue and an epilogue with remember/restore_state. */
	static const uint8_t prologue[] = {
		0x41,             /* advance 1 */
		0x0e, 16,         /* def_cfa_offset 16 */
		0x86, 2,          /* rbp at cfa - 16 */
		0x43,             /* advance 3 */
		0x0d, 6,          /* def_cfa_register rbp */
		0x4a,             /* advance 10 (to 0x100e) */
		0x0a,             /* remember_state */
		0x0c, 7, 8,       /* def_cfa rsp 8 */
		0xc6,             /* restore rbp */
		0x41,             /* advance 1 (to 0x100f) */
		0x0b,             /* restore_state */
		0x2e, 32,         /* GNU_args_size: no effect here */
		0x02, 0x10,       /* advance_loc1 16 (to 0x101f) */
		0x12, 7, 0x7e,    /* def_cfa_sf rsp -2 * -8 = 16 */
		0x14, 6, 3,       /* val_offset rbp: rbp = cfa - 24 */
	};
	fake_fde(&f, 0x1000, 0x100, prologue, sizeof prologue);
	/* gcc's realigned frame: CFA = *(rbp - 8). */
	static const uint8_t realign[] = {
		0x41, 0x0f, 3, 0x76, 0x78, 0x06, /* def_cfa_expression breg6 -8; deref */
		0x10, 6, 2, 0x76, 0x00,          /* expression rbp: saved at rbp + 0 */
		0x41, 0x0f, 2, 0x77, 0x08,       /* def_cfa_expression breg7 8: not followed */
	};
	fake_fde(&f, 0x2000, 0x100, realign, sizeof realign);
	/* The outermost frame: return address undefined. */
	static const uint8_t outermost[] = { 0x07, 16 };
	fake_fde(&f, 0x3000, 0x100, outermost, sizeof outermost);
	/* An operation this reader does not know; a register rule through
	 * another register; restore_state with nothing remembered. */
	static const uint8_t unknown[] = { 0x41, 0x3f, 0x41 };
	fake_fde(&f, 0x4000, 0x100, unknown, sizeof unknown);
	static const uint8_t ra_in_reg[] = { 0x41, 0x09, 16, 3 };
	fake_fde(&f, 0x5000, 0x100, ra_in_reg, sizeof ra_in_reg);
	static const uint8_t underflow[] = { 0x41, 0x0b };
	fake_fde(&f, 0x6000, 0x100, underflow, sizeof underflow);
	/* A CFA in rbx (DRAP-like): not a register the walk knows. */
	static const uint8_t cfa_rbx[] = { 0x41, 0x0c, 3, 8 };
	fake_fde(&f, 0x7000, 0x100, cfa_rbx, sizeof cfa_rbx);
	/* An operand running past the end of the FDE. */
	static const uint8_t truncated[] = { 0x41, 0x0c, 7 };
	fake_fde(&f, 0x8000, 0x100, truncated, sizeof truncated);
	struct gt_cfi_src s;
	fake_src(&f, &s);

	gt_rule_t r = gt_cfi_rule(&s, 0x1000, &work);
	CFA_RSP(r, 8);
	cr_expect_eq(gt_rule_ra_off(r), -8);
	cr_expect_eq(gt_rule_rbp(r), GT_RBP_SAME);
	r = gt_cfi_rule(&s, 0x1001, &work);
	CFA_RSP(r, 16);
	cr_expect_eq(gt_rule_rbp(r), GT_RBP_AT);
	cr_expect_eq(gt_rule_rbp_off(r), -16);
	r = gt_cfi_rule(&s, 0x1003, &work);
	CFA_RSP(r, 16);
	r = gt_cfi_rule(&s, 0x1004, &work);
	cr_expect_eq(gt_rule_cfa_reg(r), 6);
	cr_expect_eq(gt_rule_cfa_off(r), 16);
	r = gt_cfi_rule(&s, 0x100d, &work);
	cr_expect_eq(gt_rule_cfa_reg(r), 6);
	r = gt_cfi_rule(&s, 0x100e, &work); /* after the epilogue's pops */
	CFA_RSP(r, 8);
	cr_expect_eq(gt_rule_rbp(r), GT_RBP_SAME);
	r = gt_cfi_rule(&s, 0x100f, &work); /* restored: the body's state again */
	cr_expect_eq(gt_rule_cfa_reg(r), 6);
	cr_expect_eq(gt_rule_cfa_off(r), 16);
	cr_expect_eq(gt_rule_rbp(r), GT_RBP_AT);
	r = gt_cfi_rule(&s, 0x101f, &work);
	CFA_RSP(r, 16);
	cr_expect_eq(gt_rule_rbp(r), GT_RBP_VAL);
	cr_expect_eq(gt_rule_rbp_off(r), -24);
	r = gt_cfi_rule(&s, 0x10ff, &work);
	CFA_RSP(r, 16);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x1100, &work)), GT_RULE_NOCFI);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x0fff, &work)), GT_RULE_NOCFI);

	r = gt_cfi_rule(&s, 0x2001, &work);
	cr_expect_eq(gt_rule_kind(r), GT_RULE_CFI);
	cr_expect_eq(gt_rule_cfa_reg(r), 6);
	cr_expect_eq(gt_rule_cfa_deref(r), 1);
	cr_expect_eq(gt_rule_cfa_off(r), -8);
	cr_expect_eq(gt_rule_rbp(r), GT_RBP_AT_RBP);
	cr_expect_eq(gt_rule_rbp_off(r), 0);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x2002, &work)), GT_RULE_STOP);

	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x3000, &work)), GT_RULE_STOP);
	CFA_RSP(gt_cfi_rule(&s, 0x4000, &work), 8); /* before the unknown operation */
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x4001, &work)), GT_RULE_STOP);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x5001, &work)), GT_RULE_STOP);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x6001, &work)), GT_RULE_STOP);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x7001, &work)), GT_RULE_STOP);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&s, 0x8001, &work)), GT_RULE_STOP);
}

Test(cfi, reads_stay_inside_the_given_ranges)
{
	static struct fake f;
	memset(&f, 0, sizeof f);
	fake_cie(&f);
	static const uint8_t prog[] = { 0x41, 0x0e, 16 };
	fake_fde(&f, 0x1000, 0x100, prog, sizeof prog);
	struct gt_cfi_src s;
	fake_src(&f, &s);
	CFA_RSP(gt_cfi_rule(&s, 0x1001, &work), 16);
	/* The FDE's last bytes outside the readable range: no rule. */
	struct gt_cfi_src cut = s;
	cut.eh_hi = (uintptr_t)(f.mem + f.fde_at[0] + 10);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&cut, 0x1001, &work)), GT_RULE_STOP);
	/* The CIE outside the range. */
	cut = s;
	cut.eh_lo = (uintptr_t)(f.mem + f.fde_at[0]);
	cr_expect_eq(gt_rule_kind(gt_cfi_rule(&cut, 0x1001, &work)), GT_RULE_STOP);
	/* A header shorter than its table: refused. */
	struct gt_cfi_src bad;
	cr_expect_eq(gt_cfi_src_init(&bad, s.hdr, 12 + 8), -1);
	/* A header of another version: refused. */
	uint8_t v2[32] = { 2, 0x04, 0x03, 0x04 };
	cr_expect_eq(gt_cfi_src_init(&bad, (uintptr_t)v2, sizeof v2), -1);
}
