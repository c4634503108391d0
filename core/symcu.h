/* symcu.h — a module's compilation units by address, for DWARF that has no
 * (or an incomplete) .debug_aranges.
 *
 * libdw 0.188 finds the unit of an address only through .debug_aranges
 * (dwfl_module_addrdie, dwfl_module_getsrc). GCC writes that section;
 * clang does not by default, so a program built with clang had no
 * file:line and no inlined frames. This index is built from the units
 * themselves (each unit DIE's DW_AT_low_pc/high_pc or DW_AT_ranges), once
 * per module, the first time libdw cannot place an address, and answers
 * with the unit DIE; its line table then gives file:line
 * (dwarf_getsrc_die).
 *
 * Memory: one {lo, hi, unit offset} per address range of a unit (24 B),
 * from the tracer's real allocator (core/mem.h). Used by the symbolizer
 * under its own lock only. */
#ifndef GT_SYMCU_H
#define GT_SYMCU_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_cu_range {
	uint64_t lo, hi; /* [lo, hi) in the DWARF's addresses (no bias) */
	Dwarf_Off off;   /* the unit DIE's offset in .debug_info */
};

struct gt_cuindex {
	bool built;               /* built (or tried: then r may be NULL) */
	struct gt_cu_range *r;    /* sorted by lo */
	size_t n;
};

/* gt_cuindex_find sets *cu to the unit DIE of dw whose ranges hold addr (a
 * DWARF address: the PC minus the module's bias) and returns true; false
 * when no unit holds it. Builds the index on first use; out of memory, it
 * stays empty. */
bool gt_cuindex_find(struct gt_cuindex *ix, Dwarf *dw, uint64_t addr, Dwarf_Die *cu);

/* gt_cuindex_free frees the index (the Dwarf it was built from may be gone). */
void gt_cuindex_free(struct gt_cuindex *ix);

#endif
