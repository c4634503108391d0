/* modules.c — building module tables with dl_iterate_phdr. */
#include "modules.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <string.h>

#include "region.h"

/* What one dl_iterate_phdr pass collects. */
struct collect {
	struct gt_modtab *t;
	uint32_t cap_mods, cap_ranges;
	uint32_t want_mods, want_ranges; /* counted, even past the capacity */
	const struct gt_modtab *prev;
	int mark_all;
	int first;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t module_key(const struct dl_phdr_info *info)
{
	uint64_t h = mix(mix(1, info->dlpi_addr), (uintptr_t)info->dlpi_phdr);
	if (info->dlpi_name)
		for (const char *p = info->dlpi_name; *p; p++)
			h = mix(h, (uint8_t)*p);
	return h;
}

static int was_permanent(const struct gt_modtab *prev, uint64_t key)
{
	if (!prev)
		return 0;
	for (uint32_t i = 0; i < prev->nmods; i++)
		if (prev->mods[i].key == key)
			return prev->mods[i].permanent;
	return 0;
}

/* fill_module describes the module at base with program headers ph[0..n)
 * in *m; with t, also appends its executable segments to t's ranges as
 * module index idx (room checked by the caller). */
static void fill_module(struct gt_module *m, uintptr_t base, const ElfW(Phdr) *ph, int n, struct gt_modtab *t,
			uint32_t idx)
{
	const ElfW(Phdr) *eh = NULL;
	m->base = base;
	for (int i = 0; i < n; i++) {
		uintptr_t lo = base + ph[i].p_vaddr, hi = lo + ph[i].p_memsz;
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			eh = &ph[i];
		if (ph[i].p_type != PT_LOAD || !ph[i].p_memsz || hi < lo)
			continue;
		if ((ph[i].p_flags & PF_R) && m->nseg < GT_MOD_SEGS) {
			m->seg[m->nseg].lo = lo;
			m->seg[m->nseg].hi = hi;
			m->nseg++;
		}
		if (t && (ph[i].p_flags & PF_X)) {
			struct gt_code_range *r = &t->ranges[t->nranges++];
			r->lo = lo;
			r->hi = hi;
			r->mod = idx;
		}
	}
	if (!eh)
		return;
	uintptr_t hdr = base + eh->p_vaddr;
	struct gt_cfi_src *s = &m->cfi;
	if (!gt_module_readable(m, hdr, eh->p_memsz) || gt_cfi_src_init(s, hdr, eh->p_memsz) != 0)
		return;
	for (unsigned k = 0; k < m->nseg; k++) {
		if (s->eh >= m->seg[k].lo && s->eh < m->seg[k].hi) {
			s->eh_lo = m->seg[k].lo;
			s->eh_hi = m->seg[k].hi;
			m->has_cfi = 1;
		}
	}
}

/* The C library loads gconv modules itself and may unload them again
 * without a dlclose we see: never read them. */
static int unloaded_behind_our_back(const char *name)
{
	return name && strstr(name, "/gconv/") != NULL;
}

static int one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct collect *c = arg;
	struct gt_modtab *t = c->t;
	if (c->first) {
		c->first = 0;
		if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
			t->adds = info->dlpi_adds;
			t->subs = info->dlpi_subs;
		}
	}
	if (unloaded_behind_our_back(info->dlpi_name))
		return 0;
	unsigned nexec = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_memsz)
			nexec++;
	}
	if (!nexec)
		return 0;
	c->want_mods++;
	c->want_ranges += nexec;
	if (t->nmods >= c->cap_mods || t->nranges + nexec > c->cap_ranges)
		return 0; /* counted: the caller retries with more room */
	struct gt_module *m = &t->mods[t->nmods];
	memset(m, 0, sizeof *m);
	m->key = module_key(info);
	m->permanent = c->mark_all || was_permanent(c->prev, m->key);
	fill_module(m, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, t, t->nmods);
	t->nmods++;
	return 0;
}

/* sort_ranges: shell sort by start (no malloc, no recursion), then drop
 * any range overlapping its predecessor so lookups stay unambiguous. */
static void sort_ranges(struct gt_modtab *t)
{
	struct gt_code_range *r = t->ranges;
	uint32_t n = t->nranges;
	for (uint32_t gap = n / 2; gap > 0; gap /= 2) {
		for (uint32_t i = gap; i < n; i++) {
			struct gt_code_range x = r[i];
			uint32_t j = i;
			while (j >= gap && r[j - gap].lo > x.lo) {
				r[j] = r[j - gap];
				j -= gap;
			}
			r[j] = x;
		}
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (k > 0 && r[i].lo < r[k - 1].hi)
			continue;
		r[k++] = r[i];
	}
	t->nranges = k;
}

static struct gt_modtab *table_map(uint32_t cap_mods, uint32_t cap_ranges)
{
	size_t bytes = sizeof(struct gt_modtab) + (size_t)cap_mods * sizeof(struct gt_module) +
		       (size_t)cap_ranges * sizeof(struct gt_code_range);
	struct gt_modtab *t = gt_map(bytes); /* zeroed */
	if (!t)
		return NULL;
	t->bytes = bytes;
	t->mods = (struct gt_module *)(t + 1);
	t->ranges = (struct gt_code_range *)(t->mods + cap_mods);
	return t;
}

struct gt_modtab *gt_modtab_build(uint64_t epoch, const struct gt_modtab *prev, int mark_all)
{
	uint32_t cap_mods = 64, cap_ranges = 128;
	for (int attempt = 0; attempt < 4; attempt++) {
		struct gt_modtab *t = table_map(cap_mods, cap_ranges);
		if (!t)
			return NULL;
		struct collect c = { .t = t, .cap_mods = cap_mods, .cap_ranges = cap_ranges, .prev = prev,
				     .mark_all = mark_all, .first = 1 };
		dl_iterate_phdr(one, &c);
		if (c.want_mods <= cap_mods && c.want_ranges <= cap_ranges) {
			t->epoch = epoch;
			t->find_object = (int (*)(void *, void *))dlsym(RTLD_DEFAULT, "_dl_find_object");
			sort_ranges(t);
			return t;
		}
		gt_modtab_free(t);
		cap_mods = c.want_mods + c.want_mods / 2 + 16;
		cap_ranges = c.want_ranges + c.want_ranges / 2 + 32;
	}
	return NULL;
}

struct gt_modtab *gt_modtab_only_permanent(const struct gt_modtab *old, uint64_t epoch, uintptr_t base)
{
	struct gt_modtab *t = table_map(old->nmods, old->nranges);
	if (!t)
		return NULL;
	t->epoch = epoch;
	t->adds = old->adds;
	t->subs = old->subs;
	t->find_object = NULL; /* the module closing would still be found */
	/* Quadratic, but a dlclose is rare and tables hold hundreds of
	 * entries at most; no array on the program's stack. */
	for (uint32_t i = 0; i < old->nmods; i++) {
		const struct gt_module *m = &old->mods[i];
		if (!m->permanent || (base && m->base == base))
			continue;
		for (uint32_t k = 0; k < old->nranges; k++) {
			if (old->ranges[k].mod != i)
				continue;
			t->ranges[t->nranges] = old->ranges[k];
			t->ranges[t->nranges++].mod = t->nmods;
		}
		t->mods[t->nmods++] = *m;
	}
	sort_ranges(t);
	return t;
}

void gt_modtab_free(struct gt_modtab *t)
{
	if (t)
		gt_unmap(t, t->bytes);
}

static int counters(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *v = arg;
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
		v[0] = info->dlpi_adds;
		v[1] = info->dlpi_subs;
	}
	return 1; /* the counters are the same in every entry: one is enough */
}

int gt_modtab_changed(const struct gt_modtab *t)
{
	unsigned long long v[2] = { 0, 0 };
	dl_iterate_phdr(counters, v);
	return !t || v[0] != t->adds || v[1] != t->subs || (v[0] == 0 && v[1] == 0);
}

/* glibc's struct dl_find_object (<dlfcn.h>, 2.35), spelled out so this
 * builds against older headers too. */
struct find_object_result {
	unsigned long long flags;
	void *map_start, *map_end;
	struct link_map *map;
	void *eh_frame;
	unsigned long long reserved[7];
};

int gt_modtab_object(const struct gt_modtab *t, uintptr_t pc, struct gt_module *m)
{
	struct find_object_result r;
	if (!t || !t->find_object || t->find_object((void *)pc, &r) != 0 || !r.map || !r.eh_frame)
		return -1;
	if (unloaded_behind_our_back(r.map->l_name))
		return -1;
	uintptr_t start = (uintptr_t)r.map_start, end = (uintptr_t)r.map_end;
	/* The first segment starts at load address + 0: the ELF header and
	 * (checked below) the program headers are in its first page. */
	if (start != r.map->l_addr || end <= start || end - start < 4096 || (start & 4095))
		return -1;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)start;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff > 4096 ||
	    (4096 - eh->e_phoff) / sizeof(ElfW(Phdr)) < eh->e_phnum)
		return -1;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(start + eh->e_phoff);
	int first = 1;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (first && (ph[i].p_vaddr != 0 || ph[i].p_offset != 0 || !(ph[i].p_flags & PF_R)))
			return -1; /* not the layout read above */
		first = 0;
	}
	memset(m, 0, sizeof *m);
	fill_module(m, r.map->l_addr, ph, eh->e_phnum, NULL, 0);
	if (!m->has_cfi || m->cfi.hdr != (uintptr_t)r.eh_frame)
		m->has_cfi = 0;
	/* Code bytes (the sigreturn check) only inside the object. */
	return 0;
}
