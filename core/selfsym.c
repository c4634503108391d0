/* selfsym.c — the library's own functions by name (selfsym.h). */
#include "selfsym.h"

#include <elf.h>
#include <string.h>

#include "tracer.h"

static const ElfW(Sym) *symtab;
static const char *strtab;
static uint32_t nsyms;
static uintptr_t base;

/* An address from .dynamic: glibc relocates the entries in place on x86-64;
 * an unrelocated one is below the load address. */
static uintptr_t dyn_addr(ElfW(Addr) v)
{
	return v < base ? base + v : v;
}

/* gnu_hash_count: the number of dynamic symbols, from DT_GNU_HASH (the
 * highest index any bucket's chain reaches, plus one). */
static uint32_t gnu_hash_count(const uint32_t *h)
{
	uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
	const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t last = 0;
	for (uint32_t i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	while (!(chain[last - symoffset] & 1))
		last++;
	return last + 1;
}

void gt_selfsym_init(const struct dl_phdr_info *info)
{
	base = info->dlpi_addr;
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(base + info->dlpi_phdr[i].p_vaddr);
	const uint32_t *gnu_hash = NULL, *sysv_hash = NULL;
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			symtab = (const ElfW(Sym) *)dyn_addr(dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			strtab = (const char *)dyn_addr(dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_GNU_HASH)
			gnu_hash = (const uint32_t *)dyn_addr(dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			sysv_hash = (const uint32_t *)dyn_addr(dyn->d_un.d_ptr);
	}
	if (sysv_hash)
		nsyms = sysv_hash[1];
	else if (gnu_hash)
		nsyms = gnu_hash_count(gnu_hash);
}

uintptr_t gt_own_fn(uintptr_t addr, const char *name)
{
	if ((addr >= gt.self_lo && addr < gt.self_hi) || !symtab || !strtab)
		return addr;
	for (uint32_t i = 1; i < nsyms; i++) {
		const ElfW(Sym) *s = &symtab[i];
		if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC)
			continue;
		if (strcmp(strtab + s->st_name, name) == 0)
			return base + s->st_value;
	}
	return addr;
}
