/* symfile.c — finds, maps and opens the ELF files the symbolizer reads;
 * never keeps a descriptor (see symfile.h).
 *
 * Invariant: every descriptor opened here is closed before the function
 * that opened it returns, whatever happens; what outlives the call is a
 * private copy-on-write mapping, which the symbolizer unmaps when libdwfl
 * drops the module. Otherwise a program that lists, closes or dup2s onto
 * its descriptors would meet ours.
 *
 * Invariant: the mapping is writable (PROT_WRITE, MAP_PRIVATE). elf_memory
 * treats its image as its own (ELF_C_READ_MMAP_PRIVATE) and libdw writes
 * into it: decompressing an SHF_COMPRESSED debug section rewrites that
 * section's header in place. Over a read-only mapping that write is a
 * SIGSEGV in the program (seen with libc6-dbg's compressed debug file, the
 * first time a PC needed its DWARF CFI). The pages written are copied for
 * this process only; the file is never changed. */
#include "symfile.h"
#include "mem.h"
#include "owntable.h"
#include "sys.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#define DEBUG_ROOT "/usr/lib/debug"

/* Bigger files are not mapped: nothing loadable is that large. */
#define FILE_MAX ((size_t)1 << 40)
/* A vDSO image is a few pages. */
#define VDSO_MAX ((size_t)1 << 20)

void gt_symmap_release(struct gt_symmap *m)
{
	if (m->addr)
		gt_sys_munmap(m->addr, m->len);
	m->addr = NULL;
	m->len = 0;
}

/* map_now's arguments and result, for a run in a table of the tracer's. */
struct map_job {
	const char *path;
	struct gt_symmap *m;
	struct stat *st;
};

/* map_now: 0 mapped, 1 failed, 2 no free descriptor (EMFILE, ENFILE). */
static int map_now(void *arg)
{
	struct map_job *j = arg;
	int fd = (int)gt_sys_call(SYS_openat, AT_FDCWD, j->path,
			      O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return errno == EMFILE || errno == ENFILE ? 2 : 1;
	void *p = MAP_FAILED;
	if (gt_sys_call(SYS_fstat, fd, j->st) == 0 && S_ISREG(j->st->st_mode) &&
	    j->st->st_size >= EI_NIDENT && (size_t)j->st->st_size < FILE_MAX)
		p = (void *)gt_sys_call(SYS_mmap, NULL, (size_t)j->st->st_size,
					    PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	gt_sys_call(SYS_close, fd);
	if (p == MAP_FAILED || (uintptr_t)p > (uintptr_t)-4096)
		return 1;
	j->m->addr = p;
	j->m->len = (size_t)j->st->st_size;
	return 0;
}

/* map_file maps path (private, copy-on-write) and closes it again. Direct system calls:
 * open/close are interposed by the tracer's own wrappers. O_NONBLOCK: a
 * FIFO at a module's path must not block the open. A program whose table
 * is full gets the file mapped by a task of the tracer's (core/owntable.h):
 * the mapping is ours, the descriptor never is. */
static bool map_file(const char *path, struct gt_symmap *m, struct stat *st)
{
	struct map_job j = { path, m, st };
	int r = map_now(&j);
	if (r == 2)
		r = gt_owntable_run(map_now, &j);
	return r == 0;
}

/* open_elf maps path and makes an Elf over the mapping: an ELF object of
 * our class, relocatable only if rel_ok (a loaded module never is; a dwz
 * alt file always is). On failure nothing stays mapped. */
static Elf *open_elf(const char *path, struct gt_symmap *m, struct stat *st, bool rel_ok)
{
	struct stat tmp;
	if (!map_file(path, m, st ? st : &tmp))
		return NULL;
	Elf *elf = elf_memory(m->addr, m->len);
	GElf_Ehdr eh;
	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
	    eh.e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
	    (rel_ok || eh.e_type != ET_REL))
		return elf;
	if (elf)
		elf_end(elf);
	gt_symmap_release(m);
	return NULL;
}

static void drop(Elf *elf, struct gt_symmap *m)
{
	if (elf)
		elf_end(elf);
	gt_symmap_release(m);
}

/* scan_sections tells whether elf carries DWARF (.debug_info with data)
 * and a full symbol table. */
static void scan_sections(Elf *elf, bool *dwarf, bool *symtab)
{
	*dwarf = *symtab = false;
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			*symtab = true;
			continue;
		}
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0))
			*dwarf = true;
	}
}

static bool same_id(Elf *elf, const uint8_t *id, size_t len)
{
	const void *fid;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &fid);
	return n > 0 && (size_t)n == len && memcmp(fid, id, len) == 0;
}

/* crc_matches computes the .gnu_debuglink CRC (zlib's CRC-32) of a mapped
 * file, then gives the pages it touched back (they stay in the page cache,
 * not in our resident set). */
static bool crc_matches(struct gt_symmap *m, uint32_t want)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	const Bytef *p = m->addr;
	for (size_t left = m->len; left > 0;) {
		uInt n = left > (1u << 30) ? (1u << 30) : (uInt)left;
		crc = crc32(crc, p, n);
		p += n;
		left -= n;
	}
	madvise(m->addr, m->len, MADV_DONTNEED);
	return (uint32_t)crc == want;
}

/* cat joins up to four strings into a gt_mem_alloc'd path; NULL without memory. */
static char *cat(const char *a, const char *b, const char *c, const char *d)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c), ld = strlen(d);
	char *p = gt_mem_alloc(la + lb + lc + ld + 1);
	if (!p)
		return NULL;
	memcpy(p, a, la);
	memcpy(p + la, b, lb);
	memcpy(p + la + lb, c, lc);
	memcpy(p + la + lb + lc, d, ld + 1);
	return p;
}

/* build_id_path is /usr/lib/debug/.build-id/xx/yyyy.debug; NULL without
 * memory or for IDs libdw would not look up either. */
static char *build_id_path(const uint8_t *id, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	if (len < 3 || len > GT_BUILD_ID_MAX)
		return NULL;
	char name[3 + 2 * GT_BUILD_ID_MAX + sizeof ".debug"];
	size_t k = 0;
	for (size_t i = 0; i < len; i++) {
		name[k++] = hex[id[i] >> 4];
		name[k++] = hex[id[i] & 15];
		if (i == 0)
			name[k++] = '/';
	}
	memcpy(name + k, ".debug", sizeof ".debug");
	return cat(DEBUG_ROOT, "/.build-id/", name, "");
}

/* dir_of returns a gt_mem_alloc'd copy of path's directory ("." if none). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return cat(".", "", "", "");
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char *d = gt_mem_alloc(n + 1);
	if (d) {
		memcpy(d, path, n);
		d[n] = '\0';
	}
	return d;
}

/* try_debug maps one candidate debug file. It is taken only if it is not
 * the module file itself (mod_st), carries a symbol table or DWARF, and
 * matches: same build ID when one is known, else the debuglink CRC. */
static Elf *try_debug(const char *path, const uint8_t *id, size_t id_len, bool check_crc,
		      uint32_t crc, const struct stat *mod_st, struct gt_symmap *m)
{
	if (!path)
		return NULL;
	struct stat st;
	Elf *elf = open_elf(path, m, &st, false);
	if (!elf)
		return NULL;
	bool dwarf, symtab;
	scan_sections(elf, &dwarf, &symtab);
	bool ok = (dwarf || symtab) && !(mod_st && st.st_dev == mod_st->st_dev &&
					 st.st_ino == mod_st->st_ino);
	if (ok && id_len > 0)
		ok = same_id(elf, id, id_len);
	else if (ok && check_crc)
		ok = crc_matches(m, crc);
	if (ok)
		return elf;
	drop(elf, m);
	return NULL;
}

/* find_debug looks for the separate debug file of a module: by build ID,
 * then by .gnu_debuglink (mod_elf's, if the module file was usable). */
static Elf *find_debug(Elf *mod_elf, const struct stat *mod_st, const char *dir_path,
		       const uint8_t *id, size_t id_len, struct gt_symmap *m, char **chosen)
{
	char *path = build_id_path(id, id_len);
	Elf *elf = try_debug(path, id, id_len, false, 0, mod_st, m);
	if (elf) {
		*chosen = path;
		return elf;
	}
	gt_mem_free(path);

	GElf_Word crc = 0;
	const char *link = mod_elf ? dwelf_elf_gnu_debuglink(mod_elf, &crc) : NULL;
	char *dir = link && dir_path ? dir_of(dir_path) : NULL;
	if (!dir)
		return NULL;
	const char *slash = strcmp(dir, "/") == 0 ? "" : "/";
	for (int i = 0; i < 3 && !elf; i++) {
		if (i == 0)
			path = cat(dir, slash, link, "");
		else if (i == 1)
			path = cat(dir, slash, ".debug/", link);
		else
			path = dir[0] == '/' ? cat(DEBUG_ROOT, dir, slash, link) : NULL;
		elf = try_debug(path, id, id_len, id_len == 0, crc, mod_st, m);
		if (elf)
			*chosen = path;
		else
			gt_mem_free(path);
	}
	gt_mem_free(dir);
	return elf;
}

Elf *gt_symfile_best(const char *open_path, const char *dir_path, const uint8_t *build_id,
		     size_t build_id_len, struct gt_symmap *map, char **chosen)
{
	*chosen = NULL;
	map->addr = NULL;
	map->len = 0;
	struct gt_symmap mod_map = { 0 };
	struct stat mod_st;
	Elf *mod = open_elf(open_path, &mod_map, &mod_st, false);
	/* A module file with another build ID than the loaded image was
	 * replaced on disk: its names would be wrong. */
	if (mod && build_id_len > 0 && !same_id(mod, build_id, build_id_len)) {
		drop(mod, &mod_map);
		mod = NULL;
	}
	bool dwarf = false, symtab = false;
	if (mod)
		scan_sections(mod, &dwarf, &symtab);
	if (mod && dwarf) {
		*map = mod_map;
		*chosen = cat(dir_path ? dir_path : open_path, "", "", "");
		return mod;
	}

	uint8_t file_id[GT_BUILD_ID_MAX];
	if (build_id_len == 0 && mod) {
		const void *fid;
		ssize_t n = dwelf_elf_gnu_build_id(mod, &fid);
		if (n > 0 && (size_t)n <= sizeof file_id) {
			memcpy(file_id, fid, (size_t)n);
			build_id = file_id;
			build_id_len = (size_t)n;
		}
	}
	Elf *debug = find_debug(mod, mod ? &mod_st : NULL, dir_path, build_id, build_id_len, map,
				chosen);
	if (debug) {
		drop(mod, &mod_map);
		return debug;
	}
	if (mod) {
		*map = mod_map;
		*chosen = cat(dir_path ? dir_path : open_path, "", "", "");
	}
	return mod;
}

Elf *gt_symfile_vdso(const void *ehdr, struct gt_symmap *map)
{
	map->addr = NULL;
	map->len = 0;
	const ElfW(Ehdr) *eh = ehdr;
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	/* The kernel maps the whole image: headers, segments and the section
	 * headers at its end. */
	size_t len = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	size_t ph_end = (size_t)eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize;
	if (ph_end > len)
		len = ph_end;
	if (ph_end <= VDSO_MAX) {
		const ElfW(Phdr) *ph = (const void *)((const char *)eh + eh->e_phoff);
		for (size_t i = 0; i < eh->e_phnum; i++)
			if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > len)
				len = ph[i].p_offset + ph[i].p_filesz;
	}
	if (len > VDSO_MAX || len < sizeof *eh)
		return NULL;
	void *copy = gt_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return NULL;
	memcpy(copy, ehdr, len);
	map->addr = copy;
	map->len = len;
	Elf *elf = elf_memory(copy, len);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		return elf;
	drop(elf, map);
	return NULL;
}

Dwarf *gt_symfile_alt(Dwarf *dw, const char *debug_path, Elf **elf, struct gt_symmap *map)
{
	*elf = NULL;
	map->addr = NULL;
	map->len = 0;
	const char *altname;
	const void *id;
	ssize_t n = dwelf_dwarf_gnu_debugaltlink(dw, &altname, &id);
	if (n <= 0)
		return NULL;
	for (int i = 0; i < 2; i++) {
		char *path;
		if (i == 0) {
			path = build_id_path(id, (size_t)n);
		} else if (altname[0] == '/' || !debug_path) {
			path = cat(altname, "", "", "");
		} else {
			char *dir = dir_of(debug_path);
			path = dir ? cat(dir, "/", altname, "") : NULL;
			gt_mem_free(dir);
		}
		if (!path)
			continue;
		Elf *e = open_elf(path, map, NULL, true);
		gt_mem_free(path);
		Dwarf *alt = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
		if (alt) {
			*elf = e;
			return alt;
		}
		drop(e, map);
	}
	return NULL;
}

size_t gt_build_id_in_memory(const ElfW(Phdr) *phdr, size_t phnum, ElfW(Addr) bias,
			     uint8_t *out, size_t cap)
{
	for (size_t i = 0; i < phnum; i++) {
		const ElfW(Phdr) *note = &phdr[i];
		if (note->p_type != PT_NOTE)
			continue;
		bool mapped = false; /* inside some segment's file image */
		for (size_t j = 0; j < phnum && !mapped; j++)
			mapped = phdr[j].p_type == PT_LOAD && note->p_vaddr >= phdr[j].p_vaddr &&
				 note->p_vaddr + note->p_filesz <= phdr[j].p_vaddr + phdr[j].p_filesz;
		if (!mapped)
			continue;
		size_t align = note->p_align == 8 ? 8 : 4;
		const unsigned char *p = (const unsigned char *)(bias + note->p_vaddr);
		size_t left = note->p_filesz;
		while (left >= sizeof(ElfW(Nhdr))) {
			ElfW(Nhdr) nh;
			memcpy(&nh, p, sizeof nh);
			size_t name_sz = (nh.n_namesz + align - 1) & ~(align - 1);
			size_t desc_sz = (nh.n_descsz + align - 1) & ~(align - 1);
			if (name_sz > left - sizeof nh || desc_sz > left - sizeof nh - name_sz)
				break;
			const unsigned char *name = p + sizeof nh;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0) {
				if (nh.n_descsz == 0 || nh.n_descsz > cap)
					return 0;
				memcpy(out, name + name_sz, nh.n_descsz);
				return nh.n_descsz;
			}
			p += sizeof nh + name_sz + desc_sz;
			left -= sizeof nh + name_sz + desc_sz;
		}
	}
	return 0;
}
