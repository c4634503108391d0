/* symbols.c — the PC symbolizer: libdwfl over our own process, cached per PC.
 *
 * A lookup that misses the per-PC cache finds the module (re-reading the
 * process's modules if the loader changed them), names the real function
 * from a sorted index of the module's symbol table, and, where DWARF covers
 * the address, walks the chain of scopes from the enclosing function down to
 * the innermost inlined call to produce one frame per inline level.
 *
 * Invariants:
 *   1. Every string handed out lives in the intern table until gt_sym_close,
 *      never in libdwfl's memory. Otherwise a module dropped by a re-report
 *      (after dlclose) would leave frames pointing at freed ELF or DWARF.
 *   2. A cached entry holds the full frame list of a PC; gt_sym_lookup only
 *      copies a prefix of it. Otherwise the synthetic PCs of a PC would
 *      depend on the caller's max and one PC could name two frames.
 *   3. Modules are re-read (from dl_iterate_phdr) only when the loader's
 *      dlopen/dlclose counters moved since the last read. Otherwise every
 *      garbage PC would walk the loader's list, or a dlopen'ed module would
 *      never be seen.
 *   4. Per-module state (the module's file, its mappings, its alt DWARF,
 *      its indexes) hangs on the module's dwfl userdata slot. When libdwfl
 *      drops the module (dwfl_report_end's callback) or at gt_sym_close it
 *      moves to the dead list, and is freed and unmapped only after libdwfl
 *      has ended the module's Elf and Dwarf. Otherwise they would outlive
 *      (or be ended after) the memory they point into.
 *   5. libdwfl and libdw never open a file: find_elf hands libdwfl an Elf
 *      over a private mapping (core/symfile.c) with descriptor -1,
 *      find_debuginfo always fails, and a module's dwz alt file is
 *      dwarf_setalt() before any of its DIEs is read (dwarf_ready), so
 *      libdw's own alt lookup never runs. Otherwise descriptors would stay
 *      open for as long as the module, visible to the program. No stdio
 *      either: fopen takes stdio's list lock, which a signal handler may
 *      have interrupted the program holding. */
#include "symbols.h"

#include "hash.h"
#include "mem.h"
#include "modules.h"
#include "radix.h"
#include "symcu.h"
#include "symfile.h"
#include "sys.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The signature of libstdc++'s __cxa_demangle. */
typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

/* One cached PC: frames[first .. first+n) of the frame store. */
struct sym_entry {
	uint64_t pc;
	uint32_t first;
	uint16_t n;
	uint8_t is_ret;
	uint8_t used;
	uint32_t owner;  /* 0: the live modules; else an unloaded module's serial */
};

/* An unloaded module being named (gt_sym_lookup_gone): its own Dwfl. */
struct gone_dwfl {
	uint32_t serial;
	Dwfl *dwfl;
	Dwfl_Module *mod;   /* NULL: libdwfl would not take it */
};

/* One interned string (owned, NUL-terminated) and its hash. */
struct sym_str {
	uint64_t hash;
	char *str;
};

struct mod_info;

struct gt_symbolizer {
	Dwfl *dwfl;                 /* NULL if libdwfl could not start */
	Dwfl_Callbacks callbacks;   /* dwfl keeps a pointer: must outlive it */
	unsigned long long adds;    /* dl_iterate_phdr counters at the last read */
	unsigned long long subs;
	struct mod_info *dead;      /* dropped modules' state (invariant 4) */
	demangle_fn demangle;       /* NULL until libstdc++ is in the process */
	void *demangle_pin;         /* dlopen reference that keeps it mapped */

	struct sym_entry *cache;    /* open addressing, power-of-two capacity */
	size_t cache_cap, cache_len;
	struct gt_sym_frame *frames;
	size_t frames_len, frames_cap;
	struct sym_str *strs;       /* open addressing, power-of-two capacity */
	size_t strs_cap, strs_len;
	uint64_t self_lo, self_hi;  /* the tracer's own code (gt_sym_set_self) */
	struct gone_dwfl *gone;     /* unloaded modules being named */
	size_t ngone, gone_cap;
};

/* ---- hashing and the string table ---- */

#define mix64 gt_mix

static uint64_t str_hash(const char *p)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ULL;
	return h;
}

static bool strs_grow(struct gt_symbolizer *s)
{
	size_t cap = s->strs_cap ? s->strs_cap * 2 : 1024;
	struct sym_str *t = gt_mem_calloc(cap, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; i < s->strs_cap; i++) {
		if (!s->strs[i].str)
			continue;
		size_t j = s->strs[i].hash & (cap - 1);
		while (t[j].str)
			j = (j + 1) & (cap - 1);
		t[j] = s->strs[i];
	}
	gt_mem_free(s->strs);
	s->strs = t;
	s->strs_cap = cap;
	return true;
}

/* intern returns the symbolizer's copy of str; "" for NULL, empty, or when
 * memory runs out (a frame must always have a name, even a poor one). */
static const char *intern(struct gt_symbolizer *s, const char *str)
{
	if (!str || !*str)
		return "";
	if (s->strs_len * 2 >= s->strs_cap && !strs_grow(s))
		return "";
	uint64_t h = str_hash(str);
	size_t j = h & (s->strs_cap - 1);
	for (; s->strs[j].str; j = (j + 1) & (s->strs_cap - 1))
		if (s->strs[j].hash == h && strcmp(s->strs[j].str, str) == 0)
			return s->strs[j].str;
	char *copy = gt_mem_strdup(str);
	if (!copy)
		return "";
	s->strs[j].hash = h;
	s->strs[j].str = copy;
	s->strs_len++;
	return copy;
}

/* ---- demangling ---- */

static char *demangle_with(demangle_fn fn, const char *name)
{
	if (!fn || !name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	int status = -1;
	char *out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		gt_mem_free_returned(out);
		return NULL;
	}
	return out;
}

/* find_demangler looks for __cxa_demangle without loading anything: first in
 * an already-loaded libstdc++ (even one dlopen'ed RTLD_LOCAL), then in the
 * global scope (libc++abi, a static libstdc++ that exports it). *pin gets
 * the libstdc++ handle, whose reference keeps the function mapped until the
 * caller dlcloses it; NULL if the function came from the global scope. */
static demangle_fn find_demangler(void **pin)
{
	*pin = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (*pin) {
		demangle_fn fn = (demangle_fn)dlsym(*pin, "__cxa_demangle");
		if (fn)
			return fn;
		gt_modules_dlclose(*pin);
		*pin = NULL;
	}
	return (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
}

char *gt_sym_demangle(const char *name)
{
	void *pin;
	demangle_fn fn = find_demangler(&pin);
	char *out = demangle_with(fn, name);
	if (pin)
		gt_modules_dlclose(pin);
	return out;
}

/* std_thread_name shortens, in place, the function a std::thread runs its
 * callable in, std::thread::_State_impl<std::thread::_Invoker<std::tuple<
 * CALLABLE, ARGS...> > >::_M_run(), to std::thread<CALLABLE, ARGS...>: a
 * std::thread's goroutine starts there (interpose/thread.c), and the long
 * form hides the callable from every listing that cuts names. */
static void std_thread_name(char *d)
{
	static const char head[] = "std::thread::_State_impl<std::thread::_Invoker<std::tuple<";
	static const char tail[] = "> > >::_M_run()";
	size_t n = strlen(d), h = sizeof head - 1, t = sizeof tail - 1;
	if (n <= h + t || strncmp(d, head, h) != 0 || strcmp(d + n - t, tail) != 0)
		return;
	size_t inner = n - h - t;
	memcpy(d, "std::thread<", 12);
	memmove(d + 12, d + h, inner);
	size_t end = 12 + inner;
	if (end > 12 && d[end - 1] == ' ') /* "<X<Y> >": no space before our '>' */
		end--;
	d[end] = '>';
	d[end + 1] = '\0';
}

/* intern_plt interns "target@plt" with target demangled. */
static const char *intern_plt(struct gt_symbolizer *s, const char *name, const char *at)
{
	char plain[1024];
	size_t len = (size_t)(at - name);
	if (len >= sizeof plain)
		return intern(s, name);
	memcpy(plain, name, len);
	plain[len] = '\0';
	char *d = demangle_with(s->demangle, plain);
	if (!d)
		return intern(s, name);
	char *full = gt_mem_alloc(strlen(d) + 5);
	const char *r;
	if (full) {
		strcpy(full, d);
		strcat(full, "@plt");
		r = intern(s, full);
		gt_mem_free(full);
	} else {
		r = intern(s, name);
	}
	gt_mem_free(d);
	return r;
}

/* intern_name interns a function name without its symbol version
 * ("pthread_create@GLIBC_2.2.5", "glob64@@GLIBC_2.27": .symtab spells
 * versioned aliases that way), demangled when it is a C++ name. */
static const char *intern_name(struct gt_symbolizer *s, const char *name)
{
	char plain[1024];
	const char *at = name ? strchr(name, '@') : NULL;
	if (at && strcmp(at, "@plt") == 0)
		return intern_plt(s, name, at);
	if (at && at > name && (size_t)(at - name) < sizeof plain) {
		memcpy(plain, name, (size_t)(at - name));
		plain[at - name] = '\0';
		name = plain;
	}
	char *d = demangle_with(s->demangle, name);
	if (!d)
		return intern(s, name);
	std_thread_name(d);
	const char *r = intern(s, d);
	gt_mem_free_returned(d);
	return r;
}

/* ---- per-module indexes (invariant 4) ----
 *
 * dwfl_module_addrinfo scans the whole symbol table on every call (about
 * 140 us per PC in libc with its debuginfo), and dwarf_getscopes walks a
 * whole compilation unit, so each module gets, lazily:
 *   - a sorted array of its function symbols, built on its first lookup;
 *   - per compilation unit, a sorted array of the address ranges of the
 *     unit's functions, built on the first lookup that lands in the unit.
 * Names and DIEs point into libdwfl's ELF and DWARF data; resolve() interns
 * every name before it escapes. */

struct sym_fn {
	uint64_t addr;
	uint64_t size;
	const char *name;
	uint32_t rank;   /* fn_rank_base: which of several aliases at one address wins */
	uint64_t limit;  /* size 0: the end of its section (nothing past it is its) */
};

/* One range of one function's code, in DWARF addresses (before bias). */
struct fn_range {
	uint64_t lo, hi;
	Dwarf_Die die;
};

struct cu_funcs {
	uint64_t cu_off;     /* the unit DIE's offset: the key */
	size_t n;
	struct fn_range *r;  /* sorted by lo; ranges do not overlap */
};

enum mod_kind { MOD_FILE, MOD_MAIN, MOD_VDSO };

struct mod_info {
	/* What report() learnt from the loader. */
	enum mod_kind kind;
	char *open_path;     /* the file to open: the module's, /proc/.../exe */
	char *dir_path;      /* its real path, for .gnu_debuglink (MOD_VDSO: NULL) */
	const void *vdso;    /* MOD_VDSO: the image's ELF header */
	uint8_t build_id[GT_BUILD_ID_MAX]; /* of the loaded image */
	size_t build_id_len;
	/* The files under the module's Elf and alt Dwarf (invariant 5). */
	struct gt_symmap map;
	bool dwarf_checked;  /* dwarf_ready ran */
	Dwarf *alt;          /* the dwz alt file's DWARF, ours to end */
	Elf *alt_elf;
	struct gt_symmap alt_map;
	struct mod_info *next_dead;

	bool syms_built;
	bool syms_oom;       /* no memory for fn: use dwfl_module_addrinfo */
	char **plt_names;    /* the "target@plt" names of fn, ours to free */
	size_t nplt_names;
	struct sym_fn *fn;   /* sorted by addr, best alias only; NULL if none */
	size_t nfn;
	struct cu_funcs **cus; /* open addressing by cu_off */
	size_t cus_cap, cus_len;
	struct gt_cuindex cuix; /* units by address, where libdw has none */
};

/* mod_info_free frees a module's state; libdwfl must have ended the
 * module's Elf and Dwarf already (invariant 4). */
static void mod_info_free(struct mod_info *mi)
{
	if (!mi)
		return;
	if (mi->alt)
		dwarf_end(mi->alt);
	if (mi->alt_elf)
		elf_end(mi->alt_elf);
	gt_symmap_release(&mi->alt_map);
	gt_symmap_release(&mi->map);
	gt_mem_free(mi->open_path);
	gt_mem_free(mi->dir_path);
	for (size_t i = 0; i < mi->cus_cap; i++) {
		if (mi->cus[i]) {
			gt_mem_free(mi->cus[i]->r);
			gt_mem_free(mi->cus[i]);
		}
	}
	gt_mem_free(mi->cus);
	gt_cuindex_free(&mi->cuix);
	gt_mem_free(mi->fn);
	for (size_t i = 0; i < mi->nplt_names; i++)
		gt_mem_free(mi->plt_names[i]);
	gt_mem_free(mi->plt_names);
	gt_mem_free(mi);
}

/* mod_info_bury moves a module's state to the dead list when gt_sym_close
 * walks the modules (a dwfl_getmodules callback; arg is the symbolizer). */
static int mod_info_bury(Dwfl_Module *mod, void **slot, const char *name, Dwarf_Addr base,
			 void *arg)
{
	(void)mod, (void)name, (void)base;
	struct gt_symbolizer *s = arg;
	struct mod_info *mi = *slot;
	if (mi) {
		mi->next_dead = s->dead;
		s->dead = mi;
	}
	*slot = NULL;
	return DWARF_CB_OK;
}

/* mod_info_removed does the same when a re-read drops the module (a
 * dwfl_report_end callback, called before libdwfl frees the module;
 * returning 0 lets libdwfl remove it). N.B. libdwfl passes the address of
 * the userdata slot, typed void *. */
static int mod_info_removed(Dwfl_Module *mod, void *slot, const char *name,
			    Dwarf_Addr base, void *arg)
{
	return mod_info_bury(mod, slot, name, base, arg);
}

/* free_dead frees the dead list, once libdwfl has let go of the modules. */
static void free_dead(struct gt_symbolizer *s)
{
	while (s->dead) {
		struct mod_info *mi = s->dead;
		s->dead = mi->next_dead;
		mod_info_free(mi);
	}
}

/* mod_info_of returns the module's index holder, creating it; NULL when
 * memory runs out. */
static struct mod_info *mod_info_of(Dwfl_Module *mod)
{
	void **slot;
	if (!dwfl_module_info(mod, &slot, NULL, NULL, NULL, NULL, NULL, NULL))
		return NULL;
	if (!*slot)
		*slot = gt_mem_calloc(1, sizeof(struct mod_info));
	return *slot;
}

/* fn_rank orders aliases at one address: sized over sizeless, functions
 * over untyped labels, exported (global or weak) over local, fewer leading
 * underscores (getpid over __getpid), then global over weak. In glibc that
 * picks the public name over its __ twin and the hidden __GI_ alias.
 * fn_rank_base is all of it but the underscores, which need the name:
 * fn_rank_named adds them, only where aliases share an address. */
static uint32_t fn_rank_base(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info);
	bool exported = bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE;
	return (uint32_t)(sym->st_size > 0) << 12 |
	       (uint32_t)(GELF_ST_TYPE(sym->st_info) != STT_NOTYPE) << 11 |
	       (uint32_t)exported << 10 | (uint32_t)(bind != STB_WEAK);
}

static uint32_t fn_rank_named(uint32_t base, const char *name)
{
	uint32_t under = 0;
	while (name[under] == '_' && under < 255)
		under++;
	return base | (255 - under) << 1;
}

/* sort_fns sorts fn[0..n) by address and keeps the best alias of each
 * address (the highest rank; of equals, the first in the symbol table),
 * in place; it returns how many are kept, or SIZE_MAX (fn untouched)
 * without memory. fn[i].rank holds fn_rank_base on entry; names are read
 * only where aliases share an address. */
static size_t sort_fns(struct sym_fn *fn, size_t n)
{
	if (n == 0)
		return 0;
	if (n > UINT32_MAX)
		return SIZE_MAX;
	struct gt_sortkey *keys = gt_mem_alloc(2 * n * sizeof *keys);
	struct sym_fn *best = gt_mem_alloc(n * sizeof *best);
	if (!keys || !best) {
		gt_mem_free(keys);
		gt_mem_free(best);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++)
		keys[i] = (struct gt_sortkey){ fn[i].addr, (uint32_t)i };
	gt_radix_sort_keys(keys, keys + n, n); /* stable: aliases stay in table order */
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && keys[j].key == keys[i].key)
			j++;
		const struct sym_fn *win = &fn[keys[i].index];
		if (j - i > 1) { /* aliases: the best rank, the first of equals */
			uint32_t top = fn_rank_named(win->rank, win->name);
			for (size_t m = i + 1; m < j; m++) {
				const struct sym_fn *f = &fn[keys[m].index];
				uint32_t r = fn_rank_named(f->rank, f->name);
				if (r > top) {
					top = r;
					win = f;
				}
			}
		}
		best[k++] = *win;
		i = j;
	}
	memcpy(fn, best, k * sizeof *fn);
	gt_mem_free(best);
	gt_mem_free(keys);
	return k;
}

/* raw_symbols reads the function symbols of the module's own file straight
 * from its ELF symbol table (.symtab, else .dynsym) into fn (room for the
 * table's size): no per-symbol library call and no name read, which for
 * node's 110,000 symbols was most of a generation's symbolization. Returns
 * the count, or -1 when libdwfl must do it (no table, a minidebuginfo
 * table beside .dynsym, extended section indexes, a foreign layout). */
static long plt_symbols(Elf *e, GElf_Addr bias, struct mod_info *mi, struct sym_fn **fn,
			size_t n);

static long raw_symbols(Dwfl_Module *mod, struct mod_info *mi, struct sym_fn **out)
{
	GElf_Addr bias;
	Elf *e = dwfl_module_getelf(mod, &bias);
	size_t shnum;
	if (!e || gelf_getclass(e) != ELFCLASS64 || elf_getshdrnum(e, &shnum) != 0 || shnum > 65535)
		return -1;
	uint8_t alloc[65536 / 8] = { 0 };
	Elf_Scn *tab = NULL, *dyn = NULL;
	bool minidebug = false;
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return -1;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return -1;
		size_t ndx = elf_ndxscn(scn);
		if (sh.sh_flags & SHF_ALLOC)
			alloc[ndx / 8] |= (uint8_t)(1u << (ndx % 8));
		if (sh.sh_type == SHT_SYMTAB)
			tab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dyn = scn;
		else if (sh.sh_type == SHT_SYMTAB_SHNDX)
			return -1;
		const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (nm && strcmp(nm, ".gnu_debugdata") == 0)
			minidebug = true;
	}
	if (!tab && (!dyn || minidebug))
		return -1;
	Elf_Scn *scn = tab ? tab : dyn;
	GElf_Shdr sh;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!gelf_getshdr(scn, &sh) || !d || d->d_type != ELF_T_SYM || !d->d_buf)
		return -1;
	Elf_Scn *strscn = elf_getscn(e, sh.sh_link);
	Elf_Data *sd = strscn ? elf_getdata(strscn, NULL) : NULL;
	if (!sd || !sd->d_buf || sd->d_size == 0)
		return -1;
	const Elf64_Sym *sym = d->d_buf;
	size_t nsym = d->d_size / sizeof *sym;
	const char *str = sd->d_buf;
	struct sym_fn *fn = gt_mem_alloc((nsym ? nsym : 1) * sizeof *fn);
	uint64_t *end = gt_mem_calloc(shnum ? shnum : 1, sizeof *end); /* section ends */
	if (!fn || !end) {
		gt_mem_free(fn);
		gt_mem_free(end);
		return -1;
	}
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr h;
		if (gelf_getshdr(scn, &h))
			end[elf_ndxscn(scn)] = h.sh_addr + h.sh_size + bias;
	}
	size_t n = 0;
	for (size_t i = 1; i < nsym; i++) {
		const Elf64_Sym *y = &sym[i];
		int type = ELF64_ST_TYPE(y->st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		unsigned shndx = y->st_shndx;
		if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE || !(alloc[shndx / 8] & (1u << (shndx % 8))))
			continue;
		if (y->st_name == 0 || y->st_name >= sd->d_size || str[y->st_name] == 0)
			continue;
		GElf_Sym g = { .st_info = y->st_info, .st_size = y->st_size };
		fn[n++] = (struct sym_fn){ y->st_value + bias, y->st_size, str + y->st_name, fn_rank_base(&g),
					   shndx < shnum ? end[shndx] : UINT64_MAX };
	}
	gt_mem_free(end);
	long all = plt_symbols(e, bias, mi, &fn, n);
	*out = fn;
	return all;
}

/* ---- PLT entries ----
 *
 * A PC in a PLT stub (a call through it that a signal interrupted, a
 * non-PIE executable's canonical address of an imported function used as
 * a thread's start routine) is named "target@plt", as objdump does:
 * .plt is a 16-byte PLT0 then 16-byte entries; .plt.sec (IBT) entries map
 * to .rela.plt; .plt.got entries jump through a GLOB_DAT slot. Each entry
 * is decoded: its `jmp *slot(%rip)` (ff 25, perhaps after bnd f2) names
 * the slot's symbol from .rela.plt (JUMP_SLOT) or .rela.dyn (GLOB_DAT),
 * else its `push $i` (68) names .rela.plt's i-th symbol; an entry neither
 * names (PLT0) is "@plt". Without the sections' bytes (a separate debug
 * file: the module's own file is not read for this) the stubs have no
 * symbol: "module+0xOFF". */

#define PLT_SLOTS_MAX (1u << 20)

struct plt_slot {
	uint64_t slot;   /* the GOT slot's address (unbiased) */
	const char *name;
};

struct plt_info {
	struct plt_slot *slots;
	size_t nslots;
	const char **jmprel;     /* .rela.plt's names, by index */
	size_t njmprel;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct plt_slot *x = a, *y = b;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* plt_relocs reads the named relocations of one SHT_RELA section. */
static void plt_relocs(Elf *e, Elf_Scn *rela, bool is_jmprel, struct plt_info *pi)
{
	GElf_Shdr sh, symsh;
	Elf_Data *d = elf_getdata(rela, NULL);
	Elf_Scn *symscn = gelf_getshdr(rela, &sh) ? elf_getscn(e, sh.sh_link) : NULL;
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !syms || !gelf_getshdr(symscn, &symsh) || sh.sh_entsize == 0)
		return;
	size_t n = d->d_size / sh.sh_entsize;
	if (n > PLT_SLOTS_MAX)
		return;
	struct plt_slot *s = gt_mem_realloc(pi->slots, (pi->nslots + n) * sizeof *s);
	if (!s)
		return;
	pi->slots = s;
	const char **j = NULL;
	if (is_jmprel && !pi->jmprel && (j = gt_mem_calloc(n ? n : 1, sizeof *j)) != NULL) {
		pi->jmprel = j;
		pi->njmprel = n;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym y;
		if (!gelf_getrela(d, (int)i, &r))
			continue;
		unsigned type = GELF_R_TYPE(r.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &y))
			continue;
		const char *name = elf_strptr(e, symsh.sh_link, y.st_name);
		if (!name || !*name)
			continue;
		pi->slots[pi->nslots++] = (struct plt_slot){ r.r_offset, name };
		if (j)
			j[i] = name;
	}
}

static const char *plt_slot_name(const struct plt_info *pi, uint64_t slot)
{
	size_t lo = 0, hi = pi->nslots;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pi->slots[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pi->nslots && pi->slots[lo].slot == slot ? pi->slots[lo].name : NULL;
}

/* plt_target names the stub at vaddr from its bytes b[0..len). */
static const char *plt_target(const struct plt_info *pi, uint64_t vaddr, const uint8_t *b,
			      size_t len)
{
	for (size_t k = 0; k + 6 <= len; k++) {
		if (b[k] == 0xff && b[k + 1] == 0x25) {
			int32_t disp;
			memcpy(&disp, b + k + 2, 4);
			const char *n = plt_slot_name(pi, vaddr + k + 6 + (int64_t)disp);
			if (n)
				return n;
			break;
		}
	}
	for (size_t k = 0; k + 5 <= len; k++) {
		if (b[k] == 0x68) {
			uint32_t i;
			memcpy(&i, b + k + 1, 4);
			if (i < pi->njmprel && pi->jmprel[i])
				return pi->jmprel[i];
			break;
		}
	}
	return NULL;
}

/* plt_name: "target@plt" (or "@plt"), kept in mi until the module goes. */
static const char *plt_name(struct mod_info *mi, const char *target)
{
	if (mi->nplt_names % 64 == 0) {
		char **t = gt_mem_realloc(mi->plt_names, (mi->nplt_names + 64) * sizeof *t);
		if (!t)
			return NULL;
		mi->plt_names = t;
	}
	size_t len = target ? strlen(target) : 0;
	char *name = gt_mem_alloc(len + 5);
	if (!name)
		return NULL;
	memcpy(name, target ? target : "", len);
	memcpy(name + len, "@plt", 5);
	mi->plt_names[mi->nplt_names++] = name;
	return name;
}

/* plt_symbols appends a sized symbol for every PLT entry to (*fn)[0..n)
 * and returns the new count (n when there are none). */
static long plt_symbols(Elf *e, GElf_Addr bias, struct mod_info *mi, struct sym_fn **fn, size_t n)
{
	size_t shstrndx;
	if (!mi || elf_getshdrstrndx(e, &shstrndx) != 0)
		return (long)n;
	struct plt_info pi = { 0 };
	Elf_Scn *plt[3] = { NULL, NULL, NULL }; /* .plt, .plt.sec, .plt.got */
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (!nm)
			continue;
		if (sh.sh_type == SHT_RELA && (strcmp(nm, ".rela.plt") == 0 || strcmp(nm, ".rela.dyn") == 0))
			plt_relocs(e, scn, strcmp(nm, ".rela.plt") == 0, &pi);
		else if (sh.sh_type == SHT_PROGBITS && strcmp(nm, ".plt") == 0)
			plt[0] = scn;
		else if (sh.sh_type == SHT_PROGBITS && strcmp(nm, ".plt.sec") == 0)
			plt[1] = scn;
		else if (sh.sh_type == SHT_PROGBITS && strcmp(nm, ".plt.got") == 0)
			plt[2] = scn;
	}
	if (pi.nslots)
		qsort(pi.slots, pi.nslots, sizeof *pi.slots, slot_cmp);
	for (int k = 0; k < 3; k++) {
		GElf_Shdr sh;
		Elf_Data *d = plt[k] ? elf_getdata(plt[k], NULL) : NULL;
		if (!d || !d->d_buf || !gelf_getshdr(plt[k], &sh))
			continue;
		size_t ent = k == 2 && sh.sh_entsize ? sh.sh_entsize : 16;
		size_t cnt = d->d_size / ent;
		if (cnt == 0 || cnt > PLT_SLOTS_MAX)
			continue;
		struct sym_fn *t = gt_mem_realloc(*fn, (n + cnt) * sizeof *t);
		if (!t)
			break;
		*fn = t;
		for (size_t i = 0; i < cnt; i++) {
			uint64_t va = sh.sh_addr + i * ent;
			const uint8_t *b = (const uint8_t *)d->d_buf + i * ent;
			/* .plt's first entry is PLT0 (the lazy resolver's): unnamed. */
			const char *target = k == 0 && i == 0 ? NULL : plt_target(&pi, va, b, ent);
			const char *name = plt_name(mi, target);
			if (!name)
				break;
			GElf_Sym g = { .st_info = GELF_ST_INFO(STB_LOCAL, STT_FUNC), .st_size = ent };
			t[n++] = (struct sym_fn){ va + bias, ent, name, fn_rank_base(&g), UINT64_MAX };
		}
	}
	gt_mem_free(pi.slots);
	gt_mem_free(pi.jmprel);
	return (long)n;
}

/* syms_build fills mi->fn from the module's symbol table (.symtab, else
 * .dynsym): read raw when it can be (raw_symbols), else through libdwfl
 * (which adds minidebuginfo symbols). */
static void syms_build(struct mod_info *mi, Dwfl_Module *mod)
{
	mi->syms_built = true;
	struct sym_fn *fn = NULL;
	long raw = raw_symbols(mod, mi, &fn);
	size_t n = raw > 0 ? (size_t)raw : 0;
	int nsyms = raw >= 0 ? 0 : dwfl_module_getsymtab(mod);
	if (raw < 0 && nsyms > 1) {
		fn = gt_mem_alloc((size_t)nsyms * sizeof *fn);
		if (!fn) {
			mi->syms_oom = true;
			return;
		}
	}
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, NULL, NULL);
		if (!name || !*name || shndx == SHN_UNDEF || shndx == SHN_ABS ||
		    shndx == (GElf_Word)-1) /* -1: not in an allocated section */
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		fn[n++] = (struct sym_fn){ addr, sym.st_size, name, fn_rank_base(&sym), UINT64_MAX };
	}
	if (n == 0) {
		gt_mem_free(fn);
		return;
	}
	size_t k = sort_fns(fn, n);
	if (k == SIZE_MAX) { /* no memory for the sort: the slow way (func_symbol) */
		gt_mem_free(fn);
		mi->syms_oom = true;
		return;
	}
	mi->fn = fn;
	mi->nfn = k;
}

/* How far back syms_find looks for a sized function that still covers an
 * address past a closer symbol (a local label inside a function). */
#define FN_LOOKBACK 16

/* syms_find returns the function symbol covering addr: the nearest sized
 * symbol at or below addr that reaches past it, else the nearest symbol if
 * it has no size (hand-written assembly) and addr is in its section, else
 * NULL (padding, gaps, a function whose symbol was stripped). */
static const struct sym_fn *syms_find(const struct mod_info *mi, uint64_t addr)
{
	size_t lo = 0, hi = mi->nfn; /* find the first entry above addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (mi->fn[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	for (size_t i = lo, seen = 0; i > 0 && seen < FN_LOOKBACK; i--, seen++) {
		const struct sym_fn *f = &mi->fn[i - 1];
		if (f->size > 0 && addr - f->addr < f->size)
			return f;
	}
	const struct sym_fn *f = &mi->fn[lo - 1];
	return f->size == 0 && addr < f->limit ? f : NULL;
}

/* in_other_function: the CFI has a frame description covering addr that
 * starts after start, so addr is in another function than the one at
 * start (whose symbol has no size): a function stripped of its symbol. */
static bool runtime_library(const char *path);

static bool in_other_function(Dwfl_Module *mod, uint64_t start, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi) {
		/* No .eh_frame in the module's file (a separate debug file has
		 * it empty): .debug_frame is read with the module's whole
		 * DWARF, which a runtime library's never is (runtime_library:
		 * tens of MB). Its symbols of no size are trusted: libc's are
		 * its assembly entry points (__restore_rt, _start, ...). */
		const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		if (!modname || runtime_library(modname))
			return false;
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
	}
	Dwarf_Frame *fr = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &fr) != 0 || !fr)
		return false;
	Dwarf_Addr lo, hi;
	bool other = dwarf_frame_info(fr, &lo, &hi, NULL) >= 0 && lo + bias > start;
	gt_mem_free_returned(fr); /* libdw malloc'd it */
	return other;
}

/* func_symbol names the function at addr from the module's symbol table. */
static const char *func_symbol(Dwfl_Module *mod, uint64_t addr)
{
	struct mod_info *mi = mod_info_of(mod);
	if (mi && !mi->syms_built)
		syms_build(mi, mod);
	if (mi && !mi->syms_oom) {
		const struct sym_fn *f = syms_find(mi, addr);
		if (f && f->size == 0 && addr != f->addr && in_other_function(mod, f->addr, addr))
			return NULL;
		return f ? f->name : NULL;
	}
	/* Out of memory for the index: the slow way still works. */
	GElf_Off off;
	GElf_Sym sym;
	return dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
}

/* is_code_scope: DIE kinds whose address ranges nest the code inside them. */
static bool is_code_scope(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_entry_point:
		return true;
	}
	return false;
}

/* is_container: DIE kinds without ranges of their own that may hold
 * function definitions (C++ namespaces, in-class definitions). */
static bool is_container(int tag)
{
	switch (tag) {
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return true;
	}
	return false;
}

/* Deepest nesting of containers (and of scopes without ranges) followed. */
#define CONTAINER_DEPTH_MAX 16

struct range_vec {
	struct fn_range *r;
	size_t n, cap;
	bool oom;
};

/* collect_funcs appends every code range of the functions defined under
 * parent, looking through containers. */
static void collect_funcs(Dwarf_Die *parent, struct range_vec *v, int depth)
{
	Dwarf_Die child;
	if (depth > CONTAINER_DEPTH_MAX || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (v->n == v->cap) {
					size_t cap = v->cap ? v->cap * 2 : 64;
					struct fn_range *t = gt_mem_realloc(v->r, cap * sizeof *t);
					if (!t) {
						v->oom = true;
						return;
					}
					v->r = t;
					v->cap = cap;
				}
				v->r[v->n++] = (struct fn_range){ lo, hi, child };
			}
		} else if (is_container(tag) && dwarf_haschildren(&child) > 0) {
			collect_funcs(&child, v, depth + 1);
		}
	} while (!v->oom && dwarf_siblingof(&child, &child) == 0);
}

static int range_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static struct cu_funcs *cu_funcs_build(Dwarf_Die *cu, uint64_t cu_off)
{
	struct range_vec v = { 0 };
	collect_funcs(cu, &v, 0);
	struct cu_funcs *cf = gt_mem_alloc(sizeof *cf);
	if (v.oom || !cf) {
		gt_mem_free(v.r);
		gt_mem_free(cf);
		return NULL;
	}
	qsort(v.r, v.n, sizeof *v.r, range_cmp);
	*cf = (struct cu_funcs){ cu_off, v.n, v.r };
	return cf;
}

static bool cus_grow(struct mod_info *mi)
{
	size_t cap = mi->cus_cap ? mi->cus_cap * 2 : 64;
	struct cu_funcs **t = gt_mem_calloc(cap, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; i < mi->cus_cap; i++) {
		if (!mi->cus[i])
			continue;
		size_t j = mix64(mi->cus[i]->cu_off) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = mi->cus[i];
	}
	gt_mem_free(mi->cus);
	mi->cus = t;
	mi->cus_cap = cap;
	return true;
}

/* cu_funcs_of returns the function ranges of one unit, building them on the
 * first call; NULL when memory runs out. */
static struct cu_funcs *cu_funcs_of(struct mod_info *mi, Dwarf_Die *cu)
{
	uint64_t key = dwarf_dieoffset(cu);
	if ((mi->cus_len + 1) * 2 > mi->cus_cap && !cus_grow(mi))
		return NULL;
	size_t j = mix64(key) & (mi->cus_cap - 1);
	for (; mi->cus[j]; j = (j + 1) & (mi->cus_cap - 1))
		if (mi->cus[j]->cu_off == key)
			return mi->cus[j];
	struct cu_funcs *cf = cu_funcs_build(cu, key);
	if (cf) {
		mi->cus[j] = cf;
		mi->cus_len++;
	}
	return cf;
}

/* cu_funcs_find returns the function whose code range holds pc, or NULL. */
static const Dwarf_Die *cu_funcs_find(const struct cu_funcs *cf, Dwarf_Addr pc)
{
	size_t lo = 0, hi = cf->n; /* find the first range starting above pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cf->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= cf->r[lo - 1].hi)
		return NULL;
	return &cf->r[lo - 1].die;
}

/* ---- modules ---- */

struct phdr_counters {
	unsigned long long adds, subs;
};

/* has_counters: the loader's dl_phdr_info carries dlpi_adds/dlpi_subs. */
static bool has_counters(size_t size)
{
	return size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(unsigned long long);
}

static int read_counters(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_counters *c = arg;
	if (has_counters(size)) {
		c->adds = info->dlpi_adds;
		c->subs = info->dlpi_subs;
	}
	return 1; /* the counters are the same in every entry: stop */
}

/* One module as the loader lists it. */
struct loaded {
	enum mod_kind kind;
	char *name;          /* dlpi_name (MOD_FILE), else NULL */
	uint64_t lo, hi;
	uint8_t build_id[GT_BUILD_ID_MAX];
	size_t build_id_len;
};

struct loaded_list {
	struct loaded *v;
	size_t n, cap;
	size_t seen;              /* entries dl_iterate_phdr gave */
	const void *vdso;         /* getauxval(AT_SYSINFO_EHDR) */
	struct phdr_counters c;
};


int gt_sym_module_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
	const ElfW(Phdr) *first = NULL;
	uint64_t end = 0;
	for (size_t i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (!first)
			first = ph;
		if (ph->p_vaddr + ph->p_memsz > end)
			end = ph->p_vaddr + ph->p_memsz;
	}
	if (!first)
		return 0;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	*lo = info->dlpi_addr + (first->p_vaddr & -(uint64_t)first->p_align);
	*hi = (info->dlpi_addr + end + page - 1) & -page;
	return 1;
}

/* collect_module notes one module (a dl_iterate_phdr callback; it runs
 * under the loader's lock, so it only reads the module's headers in memory
 * and copies them out; libdwfl is told afterwards). Its address
 * range starts where libdwfl expects the module's first segment (p_vaddr
 * rounded down to p_align, as libdwfl computes the load bias from the
 * file's program headers) and ends at the page after its last segment. */
static int collect_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct loaded_list *l = arg;
	size_t index = l->seen++;
	if (index == 0 && has_counters(size)) {
		l->c.adds = info->dlpi_adds;
		l->c.subs = info->dlpi_subs;
	}
	uintptr_t lo, hi;
	if (!gt_sym_module_range(info, &lo, &hi))
		return 0;
	enum mod_kind kind = MOD_FILE;
	const ElfW(Ehdr) *vdso = l->vdso;
	if (vdso && (const char *)info->dlpi_phdr == (const char *)vdso + vdso->e_phoff)
		kind = MOD_VDSO;
	else if (!info->dlpi_name || !info->dlpi_name[0])
		kind = MOD_MAIN;
	if (kind == MOD_MAIN && index != 0)
		return 0; /* a nameless module that is not the program: no file */
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct loaded *t = gt_mem_realloc(l->v, cap * sizeof *t);
		if (!t)
			return 0;
		l->v = t;
		l->cap = cap;
	}
	struct loaded *m = &l->v[l->n];
	*m = (struct loaded){ .kind = kind };
	if (kind == MOD_FILE && !(m->name = gt_mem_strdup(info->dlpi_name)))
		return 0;
	m->lo = lo;
	m->hi = hi;
	if (kind != MOD_VDSO)
		m->build_id_len = gt_build_id_in_memory(info->dlpi_phdr, info->dlpi_phnum,
							info->dlpi_addr, m->build_id,
							sizeof m->build_id);
	l->n++;
	return 0;
}

/* exe_path returns the program's path, gt_mem_alloc'd (as /proc/self/maps names
 * it), and sets *link to the /proc link that opens the running file itself
 * (even if it was deleted or replaced since). The calling thread's link
 * first: /proc/self/exe is gone once the main thread has exited
 * (pthread_exit from main), and the final generation of such a process is
 * symbolized after that. Without /proc: AT_EXECFN. NULL if unknown. */
static char *exe_path(const char **link)
{
	static const char *const links[] = { "/proc/thread-self/exe", "/proc/self/exe" };
	char *buf = gt_mem_alloc(PATH_MAX);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
		long n = gt_sys_call(SYS_readlink, links[i], buf, PATH_MAX - 1);
		if (n > 0) {
			buf[n] = '\0';
			*link = links[i];
			return buf;
		}
	}
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	if (!execfn || !realpath(execfn, buf)) {
		gt_mem_free(buf);
		buf = NULL;
	}
	*link = buf;
	return buf;
}

/* real_path: realpath of name in a buffer of the core's (core/mem.h), or
 * NULL. */
static char *real_path(const char *name)
{
	char *buf = gt_mem_alloc(PATH_MAX);
	if (buf && !realpath(name, buf)) {
		gt_mem_free(buf);
		buf = NULL;
	}
	return buf;
}

/* report_one tells libdwfl about one module and, for a module it did not
 * know yet, records where its file is. The name is the module's real path
 * (what /proc/self/maps shows), "[vdso]" for the vDSO. */
static void report_one(struct gt_symbolizer *s, struct loaded *l, const void *vdso)
{
	char *path = NULL;
	const char *name, *open_path = NULL;
	if (l->kind == MOD_VDSO) {
		name = "[vdso]";
	} else if (l->kind == MOD_MAIN) {
		path = exe_path(&open_path);
		name = path ? path : "[exe]";
	} else {
		path = real_path(l->name);
		name = path ? path : l->name;
		open_path = name;
	}
	Dwfl_Module *m = dwfl_report_module(s->dwfl, name, l->lo, l->hi);
	struct mod_info *mi = m ? mod_info_of(m) : NULL;
	if (mi && !mi->open_path && !mi->vdso) {
		mi->kind = l->kind;
		mi->vdso = l->kind == MOD_VDSO ? vdso : NULL;
		if (open_path) {
			mi->open_path = gt_mem_strdup(open_path);
			mi->dir_path = gt_mem_strdup(name);
		}
		memcpy(mi->build_id, l->build_id, l->build_id_len);
		mi->build_id_len = l->build_id_len;
	}
	gt_mem_free(path);
}

/* report (re)reads the process's modules from the loader. Modules that are
 * still loaded keep their ELF, DWARF and indexes; dropped ones are freed
 * once libdwfl has let go of them. */
static void report(struct gt_symbolizer *s)
{
	/* One walk under the loader's lock gives the modules and the counters
	 * that go with them: a dlopen after it moves them again, and the next
	 * uncached lookup reads again. */
	struct loaded_list l = { .vdso = (const void *)getauxval(AT_SYSINFO_EHDR),
				 .c = { s->adds, s->subs } };
	dl_iterate_phdr(collect_module, &l);
	s->adds = l.c.adds;
	s->subs = l.c.subs;
	dwfl_report_begin(s->dwfl);
	for (size_t i = 0; i < l.n; i++) {
		report_one(s, &l.v[i], l.vdso);
		gt_mem_free(l.v[i].name);
	}
	gt_mem_free(l.v);
	dwfl_report_end(s->dwfl, mod_info_removed, s);
	free_dead(s);
	if (!s->demangle)
		s->demangle = find_demangler(&s->demangle_pin);
}

/* find_elf is libdwfl's find_elf callback: the Elf of the module's best
 * file (symfile.h), over a private mapping, and descriptor -1. libdwfl
 * ends the Elf when it drops the module; the mapping goes after it
 * (invariant 4). On failure neither an Elf nor a file name is handed
 * back, so libdwfl has nothing to open itself. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	(void)mod, (void)modname, (void)base;
	struct mod_info *mi = *userdata;
	*elfp = NULL;
	if (!mi || mi->map.addr)
		return -1;
	if (mi->kind == MOD_VDSO) {
		*elfp = gt_symfile_vdso(mi->vdso, &mi->map);
	} else if (mi->open_path) {
		char *chosen = NULL;
		*elfp = gt_symfile_best(mi->open_path, mi->dir_path, mi->build_id,
					mi->build_id_len, &mi->map, &chosen);
		if (*elfp && !*file_name && chosen)
			*file_name = gt_mem_handover_strdup(chosen); /* libdwfl frees it */
		gt_mem_free(chosen);
	}
	return -1;
}

/* find_debuginfo is libdwfl's find_debuginfo callback: find_elf already
 * chose the file with the debug information, and libdwfl must not open
 * one itself (invariant 5). Called for the dwz alt file too; that one is
 * set by dwarf_ready. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

/* dwarf_ready is called before any DIE of the module is read: the first
 * time, it opens the module's DWARF and sets its dwz alt file, if it has
 * one (invariant 5). False when the module has no state to keep the alt
 * file in (out of memory): then its DWARF must not be read. */
static bool dwarf_ready(Dwfl_Module *mod)
{
	struct mod_info *mi = mod_info_of(mod);
	if (!mi)
		return false;
	if (!mi->dwarf_checked) {
		mi->dwarf_checked = true;
		Dwarf_Addr bias;
		Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
		const char *file = NULL;
		dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &file, NULL);
		mi->alt = dw ? gt_symfile_alt(dw, file, &mi->alt_elf, &mi->alt_map) : NULL;
		if (mi->alt)
			dwarf_setalt(dw, mi->alt);
	}
	return true;
}

/* module_at is dwfl_addrmodule restricted to modules that really cover
 * addr: libdwfl 0.188 answers the highest module for any address above it
 * (the stack, the heap above it, [vsyscall]) and would charge those PCs
 * to that module. */
static Dwfl_Module *module_at(struct gt_symbolizer *s, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
	Dwarf_Addr lo, hi;
	if (!m || !dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL))
		return NULL;
	return addr >= lo && addr < hi ? m : NULL;
}

/* find_module returns the module covering addr. Before answering it re-reads
 * the modules if the loader's dlopen/dlclose counters moved since the last
 * read (invariant 3): so a module dlopen'ed after gt_sym_open is found, and
 * a PC in a library that replaced a dlclose'd one is not charged to the old
 * one. Checking costs one dl_iterate_phdr step, paid by uncached PCs only. */
static Dwfl_Module *find_module(struct gt_symbolizer *s, uint64_t addr)
{
	if (!s->dwfl || addr >= (1ULL << GT_SYM_DEPTH_SHIFT))
		return NULL; /* no user-space module lives up there */
	struct phdr_counters c = { s->adds, s->subs };
	dl_iterate_phdr(read_counters, &c);
	if (c.adds != s->adds || c.subs != s->subs)
		report(s);
	return module_at(s, addr);
}

/* ---- DWARF scopes ---- */

/* Deepest DIE nesting scope_chain follows; deeper code gives up on inlines. */
#define SCOPE_CHAIN_MAX 512

/* child_scope finds the code scope among parent's children (looking through
 * containers and through blocks that have no ranges at all) whose ranges
 * hold pc. Only the branch that holds pc is descended. */
static bool child_scope(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die child;
	if (depth > CONTAINER_DEPTH_MAX || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		if (is_code_scope(tag)) {
			if (dwarf_haspc(&child, pc) > 0) {
				*out = child;
				return true;
			}
			/* A subprogram without code is a declaration or an
			 * abstract instance: nothing concrete below it. */
			if (tag == DW_TAG_subprogram || dwarf_hasattr(&child, DW_AT_low_pc) ||
			    dwarf_hasattr(&child, DW_AT_ranges))
				continue;
		} else if (!is_container(tag)) {
			continue;
		}
		if (dwarf_haschildren(&child) > 0 && child_scope(&child, pc, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* scope_chain fills chain with the code scopes holding pc (a DWARF address
 * in unit cu), outermost (a subprogram) first, innermost last, and returns
 * how many; 0 when pc is in no function or the nesting is deeper than
 * SCOPE_CHAIN_MAX. This is the concrete chain `eu-addr2line -i` prints:
 * dwarf_getscopes alone leaves it after the innermost inlined call for the
 * abstract origin's scopes. mi may be NULL (no memory for the index). */
static int scope_chain(struct mod_info *mi, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain)
{
	int n = 0;
	Dwarf_Die *parent = cu;
	struct cu_funcs *cf = mi ? cu_funcs_of(mi, cu) : NULL;
	if (cf) {
		const Dwarf_Die *fn = cu_funcs_find(cf, pc);
		if (!fn)
			return 0;
		chain[n++] = *fn;
		parent = &chain[0];
	}
	while (child_scope(parent, pc, &chain[n], 0)) {
		parent = &chain[n];
		if (++n == SCOPE_CHAIN_MAX)
			return 0;
	}
	return n;
}

/* die_name is a DIE's linkage name if it has one (C++), else its plain name,
 * following DW_AT_abstract_origin and DW_AT_specification. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
	return n;
}

/* call_site gives the file and line an inlined_subroutine DIE was called
 * from: its DW_AT_call_file (an index into its unit's file table) and
 * DW_AT_call_line. */
static void call_site(Dwarf_Die *inl, const char **file, int *line)
{
	Dwarf_Attribute at;
	Dwarf_Word idx, ln;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &at), &ln) == 0)
		*line = (int)ln;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &at), &idx) == 0 &&
	    dwarf_diecu(inl, &cu, NULL, NULL) != NULL &&
	    dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 && idx < nfiles)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
}

/* ---- resolving one PC ---- */

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static uint32_t line_of(int line)
{
	return line > 0 ? (uint32_t)line : 0;
}

/* runtime_library: the C and C++ runtime (libc, libm, the loader,
 * libstdc++, libgcc_s) is named from its symbol table only, without
 * file:line or inlined frames. Its DWARF, when a -dbg package is installed,
 * is tens of MB to decompress: that took ~60 ms and ~17 MB in every traced
 * process, for frames users rarely need lines of. */
static bool runtime_library(const char *path)
{
	static const char *const names[] = { "libc.so", "libm.so", "ld-linux", "libstdc++.so", "libgcc_s.so",
					     "libpthread.so", "libdl.so", "librt.so" };
	const char *base = basename_of(path);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strncmp(base, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

/* resolve_self names a PC of the tracer's own code: a wrapper stands for
 * the call the program made, so its frame reads as the real function does
 * (its name; the file of the library the real function lives in, found
 * with dlsym(RTLD_NEXT); the C library for an exported name it has no
 * default version of), without a line, never as the tracer's source. The
 * annotation API (gotrace_*) and internal functions, which have no real
 * counterpart, name the tracer's library, without a line. */
static size_t resolve_self(struct gt_symbolizer *s, Dwfl_Module *mod, const char *modname,
			   uint64_t pc, uint64_t addr, struct gt_sym_frame *f)
{
	char buf[512];
	const char *name = func_symbol(mod, addr);
	const char *file = modname;
	if (name && *name) {
		char plain[256];
		const char *at = strchr(name, '@');
		size_t len = at ? (size_t)(at - name) : strlen(name);
		if (len < sizeof plain) {
			memcpy(plain, name, len);
			plain[len] = '\0';
			void *real = dlsym(RTLD_NEXT, plain);
			/* An exported wrapper of a name the libraries after us
			 * have no default version of (pthread_yield is a compat
			 * symbol since glibc 2.34): the C library's, unless it
			 * is the annotation API's own. */
			if (!real && strncmp(plain, "gotrace_", 8) != 0 && dlsym(RTLD_DEFAULT, plain))
				real = dlsym(RTLD_NEXT, "gnu_get_libc_version");
			Dwfl_Module *home = real ? module_at(s, (uint64_t)(uintptr_t)real) : NULL;
			const char *homename = home ? dwfl_module_info(home, NULL, NULL, NULL, NULL, NULL,
								       NULL, NULL)
						    : NULL;
			if (homename && *homename)
				file = homename;
		}
		f[0] = (struct gt_sym_frame){ pc, intern_name(s, name), intern(s, file), 0 };
		return 1;
	}
	snprintf(buf, sizeof buf, "%s+0x%llx", basename_of(modname),
		 (unsigned long long)(addr - s->self_lo));
	f[0] = (struct gt_sym_frame){ pc, intern(s, buf), intern(s, file), 0 };
	return 1;
}

/* resolve fills f with the full frame list of pc (innermost first) and
 * returns its length, 1 .. GT_SYM_MAX_INLINE+1. */
static size_t resolve_in(struct gt_symbolizer *s, Dwfl_Module *mod, bool live, uint64_t pc,
			 bool is_ret, struct gt_sym_frame *f);

static size_t resolve(struct gt_symbolizer *s, uint64_t pc, bool is_ret,
		      struct gt_sym_frame *f)
{
	uint64_t addr = (is_ret && pc > 0) ? pc - 1 : pc;
	return resolve_in(s, find_module(s, addr), true, pc, is_ret, f);
}

/* unit_by_index: the unit of the module's DWARF that covers addr, from the
 * index of its units' ranges (core/symcu.h), for DWARF that libdw cannot
 * place addresses in (no .debug_aranges); NULL when none covers it. */
static Dwarf_Die *unit_by_index(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias, Dwarf_Die *out)
{
	struct mod_info *mi = mod_info_of(mod);
	Dwarf *dw = mi ? dwfl_module_getdwarf(mod, bias) : NULL;
	if (!dw || !gt_cuindex_find(&mi->cuix, dw, addr - *bias, out))
		return NULL;
	return dwarf_haspc(out, addr - *bias) > 0 ? out : NULL;
}

/* resolve_in is resolve in module mod (NULL: none covers the PC); live:
 * mod is one of the loaded modules. */
static size_t resolve_in(struct gt_symbolizer *s, Dwfl_Module *mod, bool live, uint64_t pc,
			 bool is_ret, struct gt_sym_frame *f)
{
	char buf[512];
	uint64_t addr = (is_ret && pc > 0) ? pc - 1 : pc;

	if (!mod) {
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)pc);
		f[0] = (struct gt_sym_frame){ pc, intern(s, buf), "", 0 };
		return 1;
	}

	Dwarf_Addr start = 0;
	const char *modname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	if (!modname)
		modname = "";
	if (live && addr >= s->self_lo && addr < s->self_hi)
		return resolve_self(s, mod, modname, pc, addr, f);

	/* Innermost file:line from the line table, trusted only inside a unit
	 * that really covers addr: in the gaps (padding, _start, code built
	 * without -g) libdwfl 0.188 answers the preceding unit and its
	 * nearest line row. */
	Dwarf_Addr bias = 0;
	bool dwarf = !runtime_library(modname) && dwarf_ready(mod);
	Dwarf_Die *cu = dwarf ? dwfl_module_addrdie(mod, addr, &bias) : NULL;
	if (cu && dwarf_haspc(cu, addr - bias) <= 0)
		cu = NULL;
	const char *file = NULL;
	int line = 0;
	Dwarf_Die unit;
	if (!cu && dwarf && (cu = unit_by_index(mod, addr, &bias, &unit))) {
		/* libdw could not place addr (no .debug_aranges: clang) */
		Dwarf_Line *l = dwarf_getsrc_die(cu, addr - bias);
		if (l && (file = dwarf_linesrc(l, NULL, NULL)) && dwarf_lineno(l, &line) != 0)
			line = 0;
	} else {
		Dwfl_Line *dl = cu ? dwfl_module_getsrc(mod, addr) : NULL;
		if (dl)
			file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
	}

	/* Inlined frames, innermost first, up to the enclosing subprogram;
	 * each one moves file:line to its call site in the next outer frame.
	 * pc >= 2^56 cannot carry a depth (and is never user code anyway). */
	size_t n = 0;
	const char *dwarf_func = NULL;
	Dwarf_Die chain[SCOPE_CHAIN_MAX];
	int nchain = 0;
	if (cu && pc < (1ULL << GT_SYM_DEPTH_SHIFT))
		nchain = scope_chain(mod_info_of(mod), cu, addr - bias, chain);
	for (int i = nchain - 1; i >= 0; i--) {
		int tag = dwarf_tag(&chain[i]);
		if (tag == DW_TAG_subprogram) {
			dwarf_func = die_name(&chain[i]);
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		if (n < GT_SYM_MAX_INLINE) {
			const char *name = die_name(&chain[i]);
			f[n++] = (struct gt_sym_frame){ 0, intern_name(s, name ? name : "<inlined>"),
							intern(s, file), line_of(line) };
		}
		call_site(&chain[i], &file, &line);
	}
	/* Depth counts from the real function inwards: f[n-1] is depth 1. */
	for (size_t i = 0; i < n; i++)
		f[i].pc = pc | ((uint64_t)(n - i) << GT_SYM_DEPTH_SHIFT);

	/* The real function: symbol table first, then DWARF, then module+offset. */
	const char *name = func_symbol(mod, addr);
	if (!name || !*name)
		name = dwarf_func;
	const char *func;
	if (name && *name) {
		func = intern_name(s, name);
	} else {
		GElf_Addr elfbias;
		if (!dwfl_module_getelf(mod, &elfbias))
			elfbias = start;
		snprintf(buf, sizeof buf, "%s+0x%llx", basename_of(modname),
			 (unsigned long long)(pc - elfbias));
		func = intern(s, buf);
	}
	f[n++] = (struct gt_sym_frame){ pc, func, intern(s, file ? file : modname),
					line_of(line) };
	return n;
}

/* ---- the per-PC cache ---- */

static size_t cache_slot(const struct gt_symbolizer *s, uint64_t pc, bool is_ret,
			 uint32_t owner)
{
	size_t mask = s->cache_cap - 1;
	size_t j = mix64(pc ^ (is_ret ? 0x5bd1e995ULL : 0) ^ ((uint64_t)owner << 40)) & mask;
	while (s->cache[j].used && (s->cache[j].pc != pc || s->cache[j].is_ret != is_ret ||
				    s->cache[j].owner != owner))
		j = (j + 1) & mask;
	return j;
}

static bool cache_grow(struct gt_symbolizer *s)
{
	size_t cap = s->cache_cap ? s->cache_cap * 2 : 1024;
	struct sym_entry *old = s->cache;
	size_t oldcap = s->cache_cap;
	struct sym_entry *t = gt_mem_calloc(cap, sizeof *t);
	if (!t)
		return false;
	s->cache = t;
	s->cache_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			s->cache[cache_slot(s, old[i].pc, old[i].is_ret, old[i].owner)] = old[i];
	gt_mem_free(old);
	return true;
}

/* cache_put stores a resolved frame list; on failure the PC is simply
 * resolved again next time. */
static void cache_put(struct gt_symbolizer *s, uint64_t pc, bool is_ret, uint32_t owner,
		      const struct gt_sym_frame *f, size_t n)
{
	if (s->frames_len + n > UINT32_MAX)
		return;
	if (s->frames_len + n > s->frames_cap) {
		size_t cap = s->frames_cap ? s->frames_cap * 2 : 4096;
		while (cap < s->frames_len + n)
			cap *= 2;
		struct gt_sym_frame *t = gt_mem_realloc(s->frames, cap * sizeof *t);
		if (!t)
			return;
		s->frames = t;
		s->frames_cap = cap;
	}
	if ((s->cache_len + 1) * 2 > s->cache_cap && !cache_grow(s))
		return;
	size_t j = cache_slot(s, pc, is_ret, owner);
	s->cache[j] = (struct sym_entry){ pc, (uint32_t)s->frames_len, (uint16_t)n, is_ret, 1, owner };
	memcpy(s->frames + s->frames_len, f, n * sizeof *f);
	s->frames_len += n;
	s->cache_len++;
}

/* cache_drop removes the entries of owner whose PC lies in [lo, hi) (the
 * table is rebuilt without them); their frames stay in the store, unused.
 * On failure (no memory) the whole cache is emptied. */
static void cache_drop(struct gt_symbolizer *s, uint32_t owner, uint64_t lo, uint64_t hi)
{
	if (!s->cache_cap)
		return;
	struct sym_entry *old = s->cache;
	size_t oldcap = s->cache_cap;
	struct sym_entry *t = gt_mem_calloc(oldcap, sizeof *t);
	s->cache = t;
	s->cache_len = 0;
	if (!t)
		s->cache_cap = 0;
	for (size_t i = 0; t && i < oldcap; i++) {
		const struct sym_entry *e = &old[i];
		if (!e->used || (e->owner == owner && e->pc >= lo && e->pc <= hi))
			continue;
		s->cache[cache_slot(s, e->pc, e->is_ret, e->owner)] = *e;
		s->cache_len++;
	}
	gt_mem_free(old);
}

/* ---- API ---- */

struct gt_symbolizer *gt_sym_open(void)
{
	struct gt_symbolizer *s = gt_mem_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->callbacks.find_elf = find_elf;
	s->callbacks.find_debuginfo = find_debuginfo;
	elf_version(EV_CURRENT);
	s->dwfl = dwfl_begin(&s->callbacks);
	if (s->dwfl)
		report(s);
	else
		s->demangle = find_demangler(&s->demangle_pin);
	return s;
}

void gt_sym_set_self(struct gt_symbolizer *s, uint64_t lo, uint64_t hi)
{
	if (s) {
		s->self_lo = lo;
		s->self_hi = hi;
	}
}

size_t gt_sym_lookup_cached(struct gt_symbolizer *s, uint64_t pc, bool is_return_address,
			    struct gt_sym_frame *out, size_t max)
{
	if (!s || max == 0 || !s->cache_cap)
		return 0;
	const struct sym_entry *e = &s->cache[cache_slot(s, pc, is_return_address, 0)];
	if (!e->used)
		return 0;
	size_t n = e->n < max ? e->n : max;
	memcpy(out, s->frames + e->first, n * sizeof *out);
	return n;
}

size_t gt_sym_lookup(struct gt_symbolizer *s, uint64_t pc, bool is_return_address,
		     struct gt_sym_frame *out, size_t max)
{
	if (max == 0)
		return 0;
	if (s->cache_cap) {
		const struct sym_entry *e = &s->cache[cache_slot(s, pc, is_return_address, 0)];
		if (e->used) {
			size_t n = e->n < max ? e->n : max;
			memcpy(out, s->frames + e->first, n * sizeof *out);
			return n;
		}
	}
	struct gt_sym_frame f[GT_SYM_MAX_INLINE + 1];
	size_t n = resolve(s, pc, is_return_address, f);
	cache_put(s, pc, is_return_address, 0, f, n);
	if (n > max)
		n = max;
	memcpy(out, f, n * sizeof *out);
	return n;
}

/* gone_of returns the Dwfl naming unloaded module g, made on first use:
 * the module reported at the range it had, read from its file on disk
 * (find_elf: the same file choice and build-ID check as a loaded one). */
static struct gone_dwfl *gone_of(struct gt_symbolizer *s, const struct gt_sym_gone *g)
{
	for (size_t i = 0; i < s->ngone; i++)
		if (s->gone[i].serial == g->serial)
			return &s->gone[i];
	if (s->ngone == s->gone_cap) {
		size_t cap = s->gone_cap ? s->gone_cap * 2 : 8;
		struct gone_dwfl *t = gt_mem_realloc(s->gone, cap * sizeof *t);
		if (!t)
			return NULL;
		s->gone = t;
		s->gone_cap = cap;
	}
	struct gone_dwfl *gd = &s->gone[s->ngone];
	*gd = (struct gone_dwfl){ g->serial, dwfl_begin(&s->callbacks), NULL };
	if (!gd->dwfl)
		return NULL;
	s->ngone++;
	dwfl_report_begin(gd->dwfl);
	gd->mod = dwfl_report_module(gd->dwfl, g->path, g->lo, g->hi);
	struct mod_info *mi = gd->mod ? mod_info_of(gd->mod) : NULL;
	if (mi) {
		mi->kind = MOD_FILE;
		mi->open_path = gt_mem_strdup(g->path);
		mi->dir_path = gt_mem_strdup(g->path);
		size_t n = g->build_id_len < GT_BUILD_ID_MAX ? g->build_id_len : GT_BUILD_ID_MAX;
		memcpy(mi->build_id, g->build_id, n);
		mi->build_id_len = n;
	}
	dwfl_report_end(gd->dwfl, NULL, NULL);
	return gd;
}

size_t gt_sym_lookup_gone(struct gt_symbolizer *s, const struct gt_sym_gone *g, uint64_t pc,
			  bool is_return_address, struct gt_sym_frame *out, size_t max,
			  bool cached_only)
{
	if (!s || max == 0 || g->serial == 0)
		return 0;
	if (s->cache_cap) {
		const struct sym_entry *e = &s->cache[cache_slot(s, pc, is_return_address, g->serial)];
		if (e->used) {
			size_t n = e->n < max ? e->n : max;
			memcpy(out, s->frames + e->first, n * sizeof *out);
			return n;
		}
	}
	if (cached_only)
		return 0;
	struct gone_dwfl *gd = gone_of(s, g);
	uint64_t addr = (is_return_address && pc > 0) ? pc - 1 : pc;
	Dwfl_Module *mod = gd && gd->mod && addr >= g->lo && addr < g->hi ? gd->mod : NULL;
	struct gt_sym_frame f[GT_SYM_MAX_INLINE + 1];
	size_t n;
	if (mod) {
		n = resolve_in(s, mod, false, pc, is_return_address, f);
	} else { /* no memory for its Dwfl: still its name and offset */
		char buf[512];
		snprintf(buf, sizeof buf, "%s+0x%llx", basename_of(g->path),
			 (unsigned long long)(pc - g->lo));
		f[0] = (struct gt_sym_frame){ pc, intern(s, buf), intern(s, g->path), 0 };
		n = 1;
	}
	cache_put(s, pc, is_return_address, g->serial, f, n);
	if (n > max)
		n = max;
	memcpy(out, f, n * sizeof *out);
	return n;
}

void gt_sym_unloaded(struct gt_symbolizer *s, uint64_t lo, uint64_t hi)
{
	if (s)
		cache_drop(s, 0, lo, hi);
}

void gt_sym_forget(struct gt_symbolizer *s, uint32_t serial)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ngone; i++) {
		if (s->gone[i].serial != serial)
			continue;
		dwfl_getmodules(s->gone[i].dwfl, mod_info_bury, s, 0);
		dwfl_end(s->gone[i].dwfl);
		free_dead(s);
		s->gone[i] = s->gone[--s->ngone];
		break;
	}
	cache_drop(s, serial, 0, UINT64_MAX);
}

void gt_sym_close(struct gt_symbolizer *s)
{
	if (!s)
		return;
	while (s->ngone)
		gt_sym_forget(s, s->gone[s->ngone - 1].serial);
	gt_mem_free(s->gone);
	if (s->dwfl) {
		dwfl_getmodules(s->dwfl, mod_info_bury, s, 0);
		dwfl_end(s->dwfl);
		free_dead(s);
	}
	for (size_t i = 0; i < s->strs_cap; i++)
		gt_mem_free(s->strs[i].str);
	gt_mem_free(s->strs);
	gt_mem_free(s->cache);
	gt_mem_free(s->frames);
	if (s->demangle_pin)
		gt_modules_dlclose(s->demangle_pin);
	gt_mem_free(s);
}
