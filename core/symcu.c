/* symcu.c — a module's compilation units by address (symcu.h). */
#include "symcu.h"

#include <dwarf.h>

#include "mem.h"
#include "radix.h"

/* A unit with more ranges than this is indexed by its first ones only
 * (-ffunction-sections gives a unit a range per function; the cap only
 * bounds a corrupt file). */
#define RANGES_PER_UNIT_MAX 1000000

static bool push(struct gt_cu_range **r, size_t *n, size_t *cap, struct gt_cu_range v)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct gt_cu_range *nr = gt_mem_realloc(*r, nc * sizeof *nr);
		if (!nr)
			return false;
		*r = nr;
		*cap = nc;
	}
	(*r)[(*n)++] = v;
	return true;
}

/* collect appends every address range of every unit of dw with code:
 * compile units and skeletons (split DWARF); type and partial units have
 * none of their own. */
static bool collect(Dwarf *dw, struct gt_cu_range **r, size_t *n, size_t *cap)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Half version;
	uint8_t type;
	Dwarf_Die cudie, subdie;
	while (dwarf_get_units(dw, unit, &unit, &version, &type, &cudie, &subdie) == 0) {
		if (type != DW_UT_compile && type != DW_UT_skeleton)
			continue;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		size_t k = 0;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0 && k++ < RANGES_PER_UNIT_MAX) {
			if (hi > lo && !push(r, n, cap, (struct gt_cu_range){ lo, hi, dwarf_dieoffset(&cudie) }))
				return false;
		}
	}
	return true;
}

/* sort orders r[0..n) by lo (a radix sort: no allocation of libc's, no
 * comparison calls). */
static bool sort(struct gt_cu_range *r, size_t n)
{
	if (n < 2)
		return true;
	if (n > UINT32_MAX)
		return false;
	struct gt_sortkey *keys = gt_mem_alloc(2 * n * sizeof *keys);
	struct gt_cu_range *out = gt_mem_alloc(n * sizeof *out);
	if (!keys || !out) {
		gt_mem_free(keys);
		gt_mem_free(out);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		keys[i] = (struct gt_sortkey){ r[i].lo, (uint32_t)i };
	gt_radix_sort_keys(keys, keys + n, n);
	for (size_t i = 0; i < n; i++)
		out[i] = r[keys[i].index];
	for (size_t i = 0; i < n; i++)
		r[i] = out[i];
	gt_mem_free(keys);
	gt_mem_free(out);
	return true;
}

static void build(struct gt_cuindex *ix, Dwarf *dw)
{
	ix->built = true;
	struct gt_cu_range *r = NULL;
	size_t n = 0, cap = 0;
	if (!collect(dw, &r, &n, &cap) || !sort(r, n)) {
		gt_mem_free(r);
		return;
	}
	ix->r = r;
	ix->n = n;
}

bool gt_cuindex_find(struct gt_cuindex *ix, Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	if (!dw)
		return false;
	if (!ix->built)
		build(ix, dw);
	/* The last range starting at or below addr; ranges of different units
	 * do not overlap in a sane file, so a miss there is a miss. */
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= ix->r[lo - 1].hi)
		return false;
	return dwarf_offdie(dw, ix->r[lo - 1].off, cu) != NULL;
}

void gt_cuindex_free(struct gt_cuindex *ix)
{
	gt_mem_free(ix->r);
	*ix = (struct gt_cuindex){ 0 };
}
