/* modules.h — the table of loaded modules the unwinder reads: their code
 * ranges and where their CFI is (core/cfi.h).
 *
 * A table is built with dl_iterate_phdr (never on the hot path: it takes
 * the loader's lock), lives in its own mapping and is never changed once
 * built; core/modlive.c publishes the current one. Pure: no global state. */
#ifndef GT_MODULES_H
#define GT_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "cfi.h"

#define GT_MOD_SEGS 6 /* readable PT_LOAD segments kept per module */

struct gt_module {
	uint64_t key;         /* identity: load address, program headers, name */
	uintptr_t base;       /* dlpi_addr */
	int has_cfi;          /* cfi is usable */
	int permanent;        /* loaded before the tracer started: never unloaded */
	struct gt_cfi_src cfi;
	unsigned nseg;
	struct { uintptr_t lo, hi; } seg[GT_MOD_SEGS]; /* readable, mapped */
};

/* An executable segment, for finding the module of a PC. */
struct gt_code_range {
	uintptr_t lo, hi;
	uint32_t mod;
};

struct gt_modtab {
	size_t bytes;              /* the mapping, for gt_modtab_free */
	uint64_t epoch;            /* tells per-PC caches built on another table apart */
	/* glibc's _dl_find_object (2.35+, lock-free and async-signal-safe),
	 * for code loaded after the table was built; NULL while a dlclose
	 * may be unmapping a module (core/modlive.c) or on older glibc. */
	int (*find_object)(void *pc, void *result);
	unsigned long long adds, subs; /* the loader's load/unload counters when built */
	uint32_t nmods, nranges;
	struct gt_module *mods;
	struct gt_code_range *ranges; /* sorted, disjoint */
};

/* gt_modtab_build returns a new table of the modules loaded now, or NULL
 * (out of memory). Modules whose key is in permanent[0..npermanent) are
 * marked permanent; with mark_all, every module is. Modules the C library
 * loads and unloads by itself behind the program's back (gconv character
 * set converters) are left out: a stale entry could point at unmapped
 * memory. */
struct gt_modtab *gt_modtab_build(uint64_t epoch, const struct gt_modtab *permanent, int mark_all);

/* gt_modtab_object fills *m with the module holding pc that the table
 * does not know yet (loaded since it was built), found with
 * t->find_object: 0, or -1. The module's program headers are read where
 * the loader mapped its ELF header (the start of its first segment, at
 * load address + 0); a module laid out otherwise is not used. */
int gt_modtab_object(const struct gt_modtab *t, uintptr_t pc, struct gt_module *m);

/* gt_modtab_only_permanent returns a copy of t keeping only its permanent
 * modules other than the one loaded at base (0: none), or NULL. */
struct gt_modtab *gt_modtab_only_permanent(const struct gt_modtab *t, uint64_t epoch, uintptr_t base);

void gt_modtab_free(struct gt_modtab *t);

/* gt_modtab_changed: the loader's counters differ from the table's (one
 * dl_iterate_phdr step; not for the hot path). */
int gt_modtab_changed(const struct gt_modtab *t);

/* gt_modtab_find returns the module whose executable code holds pc, or
 * NULL. Lock-free, no system call. */
static inline const struct gt_module *gt_modtab_find(const struct gt_modtab *t, uintptr_t pc)
{
	if (!t)
		return NULL;
	uint32_t lo = 0, hi = t->nranges;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct gt_code_range *r = &t->ranges[mid];
		if (pc < r->lo)
			hi = mid;
		else if (pc >= r->hi)
			lo = mid + 1;
		else
			return &t->mods[r->mod];
	}
	return NULL;
}

/* gt_module_readable: [a, a + n) lies inside one readable segment of m. */
static inline int gt_module_readable(const struct gt_module *m, uintptr_t a, size_t n)
{
	for (unsigned i = 0; i < m->nseg; i++)
		if (a >= m->seg[i].lo && a <= m->seg[i].hi && m->seg[i].hi - a >= n)
			return 1;
	return 0;
}

/* The live table (core/modlive.c). */
struct gt_thread;

/* gt_modules_init publishes the first table: every module loaded now is
 * permanent. From the constructor. */
void gt_modules_init(void);

/* gt_modules_enter returns the table for one unwind (NULL: none) and
 * guards it from being unmapped until gt_modules_leave. Only for a
 * registered thread (its hazard slot is what publishers scan). Lock-free,
 * no system call. */
const struct gt_modtab *gt_modules_enter(struct gt_thread *t);
void gt_modules_leave(struct gt_thread *t);

/* gt_modules_refresh rebuilds the table when modules were loaded or
 * unloaded since it was built (the generation switch calls it; it calls
 * dl_iterate_phdr, so never from a signal handler). Never waits. */
void gt_modules_refresh(void);

/* gt_modules_dlclose is dlclose(handle) through the real function, the
 * table kept right around it: before the call it stops naming the modules
 * the call may unmap, after it a fresh table is built. The dlclose wrapper
 * (interpose/dl.c) and the symbolizer's own unloads (core/symbols.c) both
 * come here. In the gotrace command it is plain dlclose (core/mem_libc.c). */
int gt_modules_dlclose(void *handle);

#endif
