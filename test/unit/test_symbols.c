/* test_symbols.c — the symbolizer against this very binary, libc, and dlopen'ed libraries. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gelf.h>
#include <link.h>

#include "core/symbols.h"

/* The probes below are global (not static) and take no arguments so that
 * GCC keeps their names instead of making .constprop/.isra clones. The empty
 * asm after each call keeps the call from becoming a tail jump, so the
 * return address lies in the caller, on the call's line. */

__attribute__((noinline)) uint64_t sym_test_get_ra(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

static int plain_line;

__attribute__((noinline)) uint64_t sym_test_plain(void)
{
	plain_line = __LINE__ + 1;
	uint64_t ra = sym_test_get_ra();
	__asm__ volatile("" ::: "memory");
	return ra;
}

static int inner_line, outer_line;

static inline __attribute__((always_inline)) uint64_t sym_test_inlined(void)
{
	inner_line = __LINE__ + 1;
	uint64_t ra = sym_test_get_ra();
	__asm__ volatile("" ::: "memory");
	return ra;
}

__attribute__((noinline)) uint64_t sym_test_outer(void)
{
	outer_line = __LINE__ + 1;
	uint64_t ra = sym_test_inlined();
	__asm__ volatile("" ::: "memory");
	return ra;
}

static int deep_lines[3];

static inline __attribute__((always_inline)) uint64_t sym_test_deep2(void)
{
	deep_lines[0] = __LINE__ + 1;
	uint64_t ra = sym_test_get_ra();
	__asm__ volatile("" ::: "memory");
	return ra;
}

static inline __attribute__((always_inline)) uint64_t sym_test_deep1(void)
{
	deep_lines[1] = __LINE__ + 1;
	uint64_t ra = sym_test_deep2();
	__asm__ volatile("" ::: "memory");
	return ra;
}

__attribute__((noinline)) uint64_t sym_test_deep0(void)
{
	deep_lines[2] = __LINE__ + 1;
	uint64_t ra = sym_test_deep1();
	__asm__ volatile("" ::: "memory");
	return ra;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* looks_unknown: the "0x<hex>" or "<module>+0x<hex>" fallback names. */
static bool looks_unknown(const char *func)
{
	return strncmp(func, "0x", 2) == 0 || strstr(func, "+0x") != NULL;
}

Test(symbols, noinline_function_name_file_line)
{
	uint64_t ra = sym_test_plain();
	struct gt_symbolizer *s = gt_sym_open();
	cr_assert(s);
	struct gt_sym_frame f[8];
	size_t n = gt_sym_lookup(s, ra, true, f, 8);
	cr_assert_eq(n, 1);
	cr_expect_eq(f[0].pc, ra);
	cr_expect_str_eq(f[0].func, "sym_test_plain");
	cr_expect(ends_with(f[0].file, "test_symbols.c"), "file %s", f[0].file);
	cr_expect_eq(f[0].line, (uint32_t)plain_line);
	gt_sym_close(s);
}

Test(symbols, exact_address_is_the_function)
{
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	uint64_t pc = (uint64_t)(uintptr_t)&sym_test_plain;
	size_t n = gt_sym_lookup(s, pc, false, f, 8);
	cr_assert_eq(n, 1);
	cr_expect_eq(f[0].pc, pc);
	cr_expect_str_eq(f[0].func, "sym_test_plain");
	cr_expect(ends_with(f[0].file, "test_symbols.c"), "file %s", f[0].file);
	gt_sym_close(s);
}

Test(symbols, inlined_frames_are_expanded)
{
	uint64_t ra = sym_test_outer();
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	size_t n = gt_sym_lookup(s, ra, true, f, 8);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(f[0].func, "sym_test_inlined");
	cr_expect(ends_with(f[0].file, "test_symbols.c"), "file %s", f[0].file);
	cr_expect_eq(f[0].line, (uint32_t)inner_line);
	cr_expect_str_eq(f[1].func, "sym_test_outer");
	cr_expect(ends_with(f[1].file, "test_symbols.c"), "file %s", f[1].file);
	cr_expect_eq(f[1].line, (uint32_t)outer_line);
	/* The real function keeps the PC; the inlined one gets depth 1. */
	cr_expect_eq(f[1].pc, ra);
	cr_expect_eq(f[0].pc, ra | (1ULL << GT_SYM_DEPTH_SHIFT));
	cr_expect_neq(f[0].pc, f[1].pc);

	/* Too little room drops outer frames; the PCs do not change. */
	struct gt_sym_frame one;
	cr_assert_eq(gt_sym_lookup(s, ra, true, &one, 1), 1);
	cr_expect_eq(one.pc, f[0].pc);
	cr_expect_eq(one.func, f[0].func);
	cr_expect_eq(gt_sym_lookup(s, ra, true, &one, 0), 0);
	gt_sym_close(s);
}

Test(symbols, nested_inlines_are_all_expanded)
{
	/* Two inline levels: dwarf_getscopes alone would lose the middle one. */
	uint64_t ra = sym_test_deep0();
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	size_t n = gt_sym_lookup(s, ra, true, f, 8);
	cr_assert_eq(n, 3);
	const char *names[3] = { "sym_test_deep2", "sym_test_deep1", "sym_test_deep0" };
	for (size_t i = 0; i < 3; i++) {
		cr_expect_str_eq(f[i].func, names[i]);
		cr_expect_eq(f[i].line, (uint32_t)deep_lines[i], "frame %zu", i);
		cr_expect_eq(f[i].pc, ra | ((uint64_t)(2 - i) << GT_SYM_DEPTH_SHIFT), "frame %zu", i);
	}
	gt_sym_close(s);
}

Test(symbols, libc_function_by_dlsym)
{
	void *p = dlsym(RTLD_DEFAULT, "getpid");
	cr_assert(p);
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	size_t n = gt_sym_lookup(s, (uint64_t)(uintptr_t)p, false, f, 8);
	cr_assert_geq(n, 1);
	/* glibc's getpid is a weak alias of __getpid: the public name wins. */
	cr_expect_str_eq(f[n - 1].func, "getpid");
	gt_sym_close(s);
}

/* Libraries this binary does not link, with one function of each. */
static const char *const late_libs[][2] = {
	{ "libexpat.so.1", "XML_ExpatVersion" }, { "libuuid.so.1", "uuid_generate" },
	{ "libcap.so.2", "cap_init" },           { "libacl.so.1", "acl_init" },
	{ "libcrypt.so.1", "crypt_r" },          { "liblz4.so.1", "LZ4_versionNumber" },
};

/* load_fresh dlopens the first library from late_libs[from..] that is not
 * loaded yet, sets *fn to its function, and returns its index (or -1). */
static int load_fresh(int from, void **handle, void **fn)
{
	for (int i = from; i < (int)(sizeof late_libs / sizeof *late_libs); i++) {
		if (dlopen(late_libs[i][0], RTLD_NOW | RTLD_NOLOAD))
			continue; /* already loaded: would not test anything */
		*handle = dlopen(late_libs[i][0], RTLD_NOW | RTLD_LOCAL);
		if (!*handle)
			continue;
		*fn = dlsym(*handle, late_libs[i][1]);
		if (*fn)
			return i;
		dlclose(*handle);
	}
	return -1;
}

Test(symbols, module_loaded_after_open)
{
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	/* Warm up with a PC in no module. */
	cr_assert_geq(gt_sym_lookup(s, 16, false, f, 8), 1);

	void *h, *fn;
	int i = load_fresh(0, &h, &fn);
	if (i < 0)
		cr_skip_test("no library left to dlopen");
	size_t n = gt_sym_lookup(s, (uint64_t)(uintptr_t)fn, false, f, 8);
	cr_assert_geq(n, 1);
	cr_expect_str_eq(f[n - 1].func, late_libs[i][1]);
	gt_sym_close(s);
}

Test(symbols, module_unloaded_then_another_loaded)
{
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	void *h1, *fn1, *h2, *fn2;
	int i = load_fresh(0, &h1, &fn1);
	if (i < 0)
		cr_skip_test("no library left to dlopen");
	size_t n = gt_sym_lookup(s, (uint64_t)(uintptr_t)fn1, false, f, 8);
	cr_assert_geq(n, 1);
	const char *name1 = f[n - 1].func;
	cr_expect_str_eq(name1, late_libs[i][1]);

	/* The re-read drops the first module and its indexes; the strings
	 * handed out for it stay valid. */
	dlclose(h1);
	int j = load_fresh(i + 1, &h2, &fn2);
	if (j < 0)
		cr_skip_test("no second library left to dlopen");
	n = gt_sym_lookup(s, (uint64_t)(uintptr_t)fn2, false, f, 8);
	cr_assert_geq(n, 1);
	cr_expect_str_eq(f[n - 1].func, late_libs[j][1]);
	cr_expect_str_eq(name1, late_libs[i][1]);
	gt_sym_close(s);
}

Test(symbols, unloaded_module_is_named_from_its_file)
{
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	void *h, *fn;
	int i = load_fresh(0, &h, &fn);
	if (i < 0)
		cr_skip_test("no library left to dlopen");
	Dl_info di;
	cr_assert(dladdr(fn, &di) && di.dli_fname && di.dli_fbase);
	char path[4096];
	cr_assert(realpath(di.dli_fname, path));
	uint64_t pc = (uint64_t)(uintptr_t)fn, base = (uint64_t)(uintptr_t)di.dli_fbase;
	dlclose(h);
	if (dlopen(late_libs[i][0], RTLD_NOW | RTLD_NOLOAD))
		cr_skip_test("%s stayed loaded", late_libs[i][0]);

	/* Gone from the process: a live lookup finds no module there. */
	struct gt_sym_gone g = { 7, path, base, pc + 4096, NULL, 0 };
	size_t n = gt_sym_lookup_gone(s, &g, pc, false, f, 8, true);
	cr_expect_eq(n, 0, "not looked up yet: nothing cached");
	n = gt_sym_lookup_gone(s, &g, pc, false, f, 8, false);
	cr_assert_geq(n, 1);
	cr_expect_str_eq(f[n - 1].func, late_libs[i][1]);
	cr_expect_eq(f[n - 1].pc, pc);
	cr_expect_eq(gt_sym_lookup_gone(s, &g, pc, false, f, 8, true), n, "cached now");

	/* Its file gone (another serial): module+offset, as for unknown PCs. */
	struct gt_sym_gone h2 = { 8, "/nonexistent/dir/libgone.so.1", base, pc + 4096, NULL, 0 };
	n = gt_sym_lookup_gone(s, &h2, pc, false, f, 8, false);
	cr_assert_eq(n, 1);
	char want[64];
	snprintf(want, sizeof want, "libgone.so.1+0x%llx", (unsigned long long)(pc - base));
	cr_expect_str_eq(f[0].func, want);

	gt_sym_forget(s, 7);
	cr_expect_eq(gt_sym_lookup_gone(s, &g, pc, false, f, 8, true), 0, "forgotten");
	gt_sym_close(s);
}

static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1; /* the program is the first entry */
}

/* This binary's PLT: every entry of .plt (after PLT0) is named after the
 * .rela.plt symbol its push names; PLT0 is "@plt"; .plt.got entries after
 * their GLOB_DAT slot. */
Test(symbols, plt_entries_are_target_at_plt)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert(e);
	size_t shstrndx;
	cr_assert_eq(elf_getshdrstrndx(e, &shstrndx), 0);
	GElf_Shdr plt = { 0 }, pltsec = { 0 }, rela = { 0 };
	Elf_Scn *rela_scn = NULL;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (strcmp(nm, ".plt") == 0)
			plt = sh;
		else if (strcmp(nm, ".plt.sec") == 0)
			pltsec = sh;
		else if (strcmp(nm, ".rela.plt") == 0) {
			rela = sh;
			rela_scn = scn;
		}
	}
	if (!rela_scn || !plt.sh_size)
		cr_skip_test("no .plt");
	Elf_Data *rd = elf_getdata(rela_scn, NULL);
	Elf_Data *syms = elf_getdata(elf_getscn(e, rela.sh_link), NULL);
	GElf_Shdr symsh;
	gelf_getshdr(elf_getscn(e, rela.sh_link), &symsh);
	uint64_t bias = 0;
	dl_iterate_phdr(main_bias, &bias);
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	size_t n = gt_sym_lookup(s, bias + plt.sh_addr + 4, false, f, 8);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(f[0].func, "@plt");
	size_t count = rela.sh_size / rela.sh_entsize, checked = 0;
	for (size_t i = 0; i < count && checked < 8; i++) {
		GElf_Rela r;
		GElf_Sym y;
		gelf_getrela(rd, (int)i, &r);
		gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &y);
		const char *name = elf_strptr(e, symsh.sh_link, y.st_name);
		if (!name || !*name || strncmp(name, "_Z", 2) == 0)
			continue;
		uint64_t stub = pltsec.sh_size ? pltsec.sh_addr + 16 * i : plt.sh_addr + 16 * (i + 1);
		n = gt_sym_lookup(s, bias + stub + 2, false, f, 8);
		cr_assert_eq(n, 1);
		char want[256];
		snprintf(want, sizeof want, "%s@plt", name);
		cr_expect_str_eq(f[0].func, want, "entry %zu", i);
		checked++;
	}
	cr_expect_gt(checked, 0);
	gt_sym_close(s);
	elf_end(e);
	close(fd);
}

Test(symbols, garbage_pcs_are_safe)
{
	int on_stack = 0;
	void *on_heap = malloc(64);
	const uint64_t pcs[] = {
		0, 1, 2, 4096, 0x7fffffffe000ULL, 0x00007f0000000000ULL,
		0xffffffffff600000ULL, 0xffffffff81000000ULL, 0xffff800000000000ULL,
		UINT64_MAX, (uint64_t)(uintptr_t)&on_stack, (uint64_t)(uintptr_t)on_heap,
		(uint64_t)1 << 56, ((uint64_t)1 << 56) | 0x401000,
	};
	struct gt_symbolizer *s = gt_sym_open();
	for (size_t i = 0; i < sizeof pcs / sizeof *pcs; i++) {
		for (int ret = 0; ret < 2; ret++) {
			struct gt_sym_frame f[8];
			size_t n = gt_sym_lookup(s, pcs[i], ret, f, 8);
			cr_assert_geq(n, 1, "pc %#llx", (unsigned long long)pcs[i]);
			cr_expect_eq(f[n - 1].pc, pcs[i]);
			cr_expect(f[0].func && f[0].file, "pc %#llx", (unsigned long long)pcs[i]);
			cr_expect(looks_unknown(f[0].func), "pc %#llx: %s",
				  (unsigned long long)pcs[i], f[0].func);
		}
	}
	free(on_heap);
	gt_sym_close(s);
}

Test(symbols, same_pc_gives_identical_frames)
{
	uint64_t pcs[] = { sym_test_outer(), sym_test_plain(), 12345 };
	struct gt_symbolizer *s = gt_sym_open();
	for (size_t i = 0; i < 3; i++) {
		struct gt_sym_frame a[8], b[8];
		size_t na = gt_sym_lookup(s, pcs[i], true, a, 8);
		size_t nb = gt_sym_lookup(s, pcs[i], true, b, 8);
		cr_assert_eq(na, nb);
		for (size_t k = 0; k < na; k++) {
			cr_expect_eq(a[k].pc, b[k].pc);
			cr_expect_eq(a[k].func, b[k].func); /* the same cached string */
			cr_expect_eq(a[k].file, b[k].file);
			cr_expect_eq(a[k].line, b[k].line);
		}
	}
	gt_sym_close(s);
}

Test(symbols, many_pcs_fill_the_cache)
{
	/* Forces several cache and string-table grows; each PC must still give
	 * back what it gave the first time. */
	struct gt_symbolizer *s = gt_sym_open();
	uint64_t base = (uint64_t)(uintptr_t)&sym_test_plain;
	static const char *first[5000];
	for (int i = 0; i < 5000; i++) {
		struct gt_sym_frame f;
		cr_assert_eq(gt_sym_lookup(s, 0x100000 + (uint64_t)i * 8, false, &f, 1), 1);
		first[i] = f.func;
	}
	for (int i = 0; i < 5000; i++) {
		struct gt_sym_frame f;
		gt_sym_lookup(s, 0x100000 + (uint64_t)i * 8, false, &f, 1);
		cr_assert_eq(f.func, first[i]);
	}
	struct gt_sym_frame f;
	gt_sym_lookup(s, base, false, &f, 1);
	cr_expect_str_eq(f.func, "sym_test_plain");
	gt_sym_close(s);
}

Test(symbols, cxx_names_are_demangled)
{
	cr_expect_null(gt_sym_demangle("main"));
	cr_expect_null(gt_sym_demangle(""));
	/* Opened first and libstdc++ loaded RTLD_LOCAL afterwards: the
	 * re-report must find the demangler outside the global scope. */
	struct gt_symbolizer *s = gt_sym_open();
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!h || !dlsym(h, "__cxa_demangle"))
		cr_skip_test("no libstdc++.so.6 to load");

	char *d = gt_sym_demangle("_ZN3foo3barEi");
	cr_assert(d);
	cr_expect_str_eq(d, "foo::bar(int)");
	free(d);
	cr_expect_null(gt_sym_demangle("_Znot a mangled name"));

	/* End to end: a libstdc++ function comes back demangled. */
	void *fn = dlsym(h, "_ZNSt9exceptionD2Ev");
	cr_assert(fn);
	struct gt_sym_frame f[8];
	size_t n = gt_sym_lookup(s, (uint64_t)(uintptr_t)fn, false, f, 8);
	cr_assert_geq(n, 1);
	cr_expect(strstr(f[n - 1].func, "exception::~exception") != NULL, "func %s", f[n - 1].func);
	gt_sym_close(s);
}

/* list_fds fills fds with the process's open descriptors, ascending, read
 * from /proc/self/fd with raw getdents64 (the listing's own descriptor
 * left out), and returns how many; at most max. */
static size_t list_fds(int *fds, size_t max)
{
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dir, 0);
	size_t n = 0;
	char buf[4096];
	long got;
	while ((got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64 *e = (struct dirent64 *)(buf + off);
			off += e->d_reclen;
			if (e->d_name[0] == '.')
				continue;
			int fd = atoi(e->d_name);
			if (fd != dir && n < max)
				fds[n++] = fd;
		}
	}
	close(dir);
	/* getdents64 lists /proc/self/fd in ascending order already; sort to
	 * be sure. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
			int t = fds[j];
			fds[j] = fds[j - 1];
			fds[j - 1] = t;
		}
	return n;
}

static void expect_same_fds(const int *before, size_t nb, const char *when)
{
	int after[256];
	size_t na = list_fds(after, 256);
	cr_expect_eq(na, nb, "%s: %zu descriptors open, %zu before", when, na, nb);
	for (size_t i = 0; i < na && i < nb; i++)
		cr_expect_eq(after[i], before[i], "%s: descriptor %d open, %d before", when, after[i],
			     before[i]);
	for (size_t i = 0; i < na; i++) {
		char path[64], target[512] = "";
		snprintf(path, sizeof path, "/proc/self/fd/%d", after[i]);
		ssize_t k = readlink(path, target, sizeof target - 1);
		if (k > 0)
			target[k] = '\0';
		bool known = false;
		for (size_t j = 0; j < nb; j++)
			known |= before[j] == after[i];
		cr_expect(known, "%s: new descriptor %d -> %s", when, after[i], target);
	}
}

Test(symbols, no_descriptor_stays_open)
{
	/* A library this binary does not link, loaded first: dlopen's own
	 * descriptors are closed by the loader before the count. */
	void *h = NULL, *lib_fn = NULL;
	int lib = load_fresh(0, &h, &lib_fn);
	int before[256];
	size_t nb = list_fds(before, 256);

	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	/* This binary: DWARF, an inlined frame, file:line. */
	uint64_t ra = sym_test_outer();
	cr_assert_eq(gt_sym_lookup(s, ra, true, f, 8), 2);
	cr_expect_str_eq(f[0].func, "sym_test_inlined");
	cr_expect_eq(f[0].line, (uint32_t)inner_line);
	cr_expect_str_eq(f[1].func, "sym_test_outer");
	cr_expect(ends_with(f[1].file, "test_symbols.c"), "file %s", f[1].file);
	cr_expect_eq(f[1].line, (uint32_t)outer_line);
	/* libc: its symbol table (from its debug file when one is installed). */
	size_t n = gt_sym_lookup(s, (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid"), false, f, 8);
	cr_assert_geq(n, 1);
	cr_expect_str_eq(f[n - 1].func, "getpid");
	n = gt_sym_lookup(s, (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "qsort") + 1, true, f, 8);
	cr_assert_geq(n, 1);
	cr_expect(!looks_unknown(f[n - 1].func), "qsort+1: %s", f[n - 1].func);
	/* The dlopen'ed library. */
	if (lib >= 0) {
		n = gt_sym_lookup(s, (uint64_t)(uintptr_t)lib_fn, false, f, 8);
		cr_assert_geq(n, 1);
		cr_expect_str_eq(f[n - 1].func, late_libs[lib][1]);
	}
	expect_same_fds(before, nb, "symbolizer open");
	gt_sym_close(s);
	expect_same_fds(before, nb, "symbolizer closed");
}

Test(symbols, vdso_is_named_from_memory)
{
	void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	void *fn = vdso ? dlsym(vdso, "__vdso_clock_gettime") : NULL;
	if (!fn)
		cr_skip_test("no vDSO with __vdso_clock_gettime");
	struct gt_symbolizer *s = gt_sym_open();
	struct gt_sym_frame f[8];
	size_t n = gt_sym_lookup(s, (uint64_t)(uintptr_t)fn, false, f, 8);
	cr_assert_geq(n, 1);
	/* Both names are aliases of one address; either is right. */
	cr_expect(strcmp(f[n - 1].func, "__vdso_clock_gettime") == 0 ||
			  strcmp(f[n - 1].func, "clock_gettime") == 0,
		  "func %s", f[n - 1].func);
	cr_expect_str_eq(f[n - 1].file, "[vdso]");
	gt_sym_close(s);
}
