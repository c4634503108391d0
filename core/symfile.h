/* symfile.h — picks, maps and opens the ELF file that best names a loaded
 * module, for the symbolizer (core/symbols.c).
 *
 * Nothing here keeps a descriptor: every file is opened (O_CLOEXEC,
 * O_NONBLOCK), fstat'ed, mmap'ed copy-on-write (PROT_READ | PROT_WRITE,
 * MAP_PRIVATE: libdw writes into the image) and closed before the call
 * returns, and the Elf handed back is elf_memory() over the
 * mapping. Only direct system calls are used for files (no stdio, no
 * interposed libc wrapper), so the functions may run on the program's own
 * thread. A mapping costs resident memory only for the pages libelf/libdw
 * touch; the caller unmaps it with gt_symmap_release once every Elf and
 * Dwarf made from it has ended. */
#ifndef GT_SYMFILE_H
#define GT_SYMFILE_H

#include <elfutils/libdw.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest build ID kept; libdw handles 3 .. 64 bytes too. */
#define GT_BUILD_ID_MAX 64

/* One mapped file (or a private copy of the vDSO); empty when addr is NULL. */
struct gt_symmap {
	void *addr;
	size_t len;
};

/* gt_symmap_release unmaps m (if anything is mapped) and empties it. */
void gt_symmap_release(struct gt_symmap *m);

/* gt_build_id_in_memory copies the GNU build ID of a loaded module from its
 * PT_NOTE segments in memory (phdr/phnum/bias as dl_iterate_phdr gives
 * them) into out and returns its length; 0 when there is none or it is
 * longer than cap. Only notes inside a PT_LOAD segment's file image are
 * read, so no unmapped memory is touched. */
size_t gt_build_id_in_memory(const ElfW(Phdr) *phdr, size_t phnum, ElfW(Addr) bias,
			     uint8_t *out, size_t cap);

/* gt_symfile_best opens the file that gives a module the best names:
 *   1. the module file itself (open_path) if it carries DWARF;
 *   2. else its separate debug file, when one exists and matches: by build
 *      ID under /usr/lib/debug/.build-id/, then by .gnu_debuglink in the
 *      module's directory (dir_path's), its .debug/ subdirectory and
 *      /usr/lib/debug/<dir>; it has the same program headers, .symtab and
 *      DWARF;
 *   3. else the module file itself (.symtab, .dynsym, minidebuginfo).
 * open_path is the file to open for the module (/proc/self/exe for the
 * main program), dir_path the module's path for the .gnu_debuglink rule.
 * build_id (from memory: gt_build_id_in_memory) is authoritative when
 * build_id_len > 0: a module file or debug file with another ID is refused
 * (a library replaced on disk after it was loaded). Without it, a debug
 * file found by .gnu_debuglink must match the link's CRC.
 *
 * Returns the Elf (the caller, or libdwfl, ends it) and fills *map with
 * the mapping under it and *chosen with a gt_mem_alloc'd copy of the chosen
 * file's path (NULL if no memory); NULL when no usable file was found. */
Elf *gt_symfile_best(const char *open_path, const char *dir_path, const uint8_t *build_id,
		     size_t build_id_len, struct gt_symmap *map, char **chosen);

/* gt_symfile_vdso makes an Elf over a private copy of the vDSO image whose
 * ELF header is at ehdr (getauxval(AT_SYSINFO_EHDR)); NULL on failure. */
Elf *gt_symfile_vdso(const void *ehdr, struct gt_symmap *map);

/* gt_symfile_alt finds, maps and opens the DWARF multi-file ("dwz" alt
 * file, .gnu_debugaltlink) that dw refers to, exactly where libdw would
 * look for it itself (/usr/lib/debug/.build-id/xx/yyyy.debug, then the
 * link's path, absolute or relative to debug_path's directory), so that
 * the caller can dwarf_setalt() it before any DIE is read and libdw never
 * opens it itself. Returns the alt Dwarf and sets *elf and *map (the caller
 * ends both, alt Dwarf first, after dw has ended); NULL if dw has no link
 * or the file was not found. */
Dwarf *gt_symfile_alt(Dwarf *dw, const char *debug_path, Elf **elf, struct gt_symmap *map);

#endif
