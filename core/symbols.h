/* symbols.h — turns captured PCs into (func, file, line) frames for the stack table.
 *
 * Backed by libdwfl over the current process's own modules, as the loader
 * lists them (dl_iterate_phdr; the vDSO from its image in memory). The real
 * function's name comes from the ELF symbol tables (.symtab, else .dynsym),
 * else from DWARF; it keeps GCC clone suffixes such as ".isra.0" or
 * ".cold". Inlined frames are named from DWARF (linkage name, else plain
 * name). C++ names are demangled when the process has __cxa_demangle.
 * file:line and the inlined calls come from DWARF when it exists, and agree
 * with `eu-addr2line -i` / `llvm-symbolizer --inlining`.
 *
 * Each module is read from one file (core/symfile.h): the module itself if
 * it has DWARF, else its separate debug file (build ID under
 * /usr/lib/debug/.build-id, or .gnu_debuglink) if there is one, else the
 * module. Never from the network: debuginfod is not used.
 *
 * No descriptor stays open: every file is opened, mmap'ed read-only and
 * closed at once (dwz alt files too), and libdwfl/libdw are never left to
 * open one themselves. No stdio (no fopen: its list lock may be held by
 * the code a signal interrupted). So a symbolizer may run on the program's
 * own thread, when nothing of the tracer's or of libc's malloc, loader or
 * stdio is interrupted on it.
 *
 * One thread at a time: a symbolizer has no lock, and calling it from two
 * threads at once corrupts its caches. It uses malloc, dl_iterate_phdr and
 * dlopen(RTLD_NOLOAD) freely, so the calling thread must not be inside the
 * tracer's own recording, and must not hold a lock that a thread inside
 * dlopen (holding the loader lock) may wait for.
 *
 * Synthetic PCs. The Go trace reader keeps one (func, file, line) per PC per
 * generation, so every frame needs its own PC:
 *   - the outermost (real, non-inlined) function of a PC keeps the PC exactly
 *     as given to gt_sym_lookup (for return addresses that is the return
 *     address itself, an identity rather than the call site);
 *   - the inlined frame at depth d (d = 1 is the call inlined directly into
 *     the real function, d = 2 the one inlined into that, ...) gets
 *     pc | (d << GT_SYM_DEPTH_SHIFT).
 * User-space addresses are below 2^56 (even with 5-level paging), so a
 * synthetic PC never equals a real one, two (pc, d) pairs never share a
 * synthetic PC, and the same PC always yields the same synthetic PCs.
 * PCs at or above 2^56 (kernel or garbage) are never expanded. */
#ifndef GT_SYMBOLS_H
#define GT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_SYM_DEPTH_SHIFT 56
/* At most this many inlined frames are expanded above the real function;
 * deeper (outer) inline levels are folded into the real function's frame. */
#define GT_SYM_MAX_INLINE 255

/* One frame of a symbolized PC. func and file are never NULL and are owned
 * by the symbolizer. Without DWARF for the PC, file is the module's path and
 * line is 0. */
struct gt_sym_frame {
	uint64_t pc;
	const char *func;
	const char *file;
	uint32_t line;
};

struct gt_symbolizer;

/* gt_sym_open creates a symbolizer for the current process and reports its
 * loaded modules. Returns NULL only when memory runs out; if libdwfl cannot
 * be set up, lookups still work and give "0x<hex>" names. */
struct gt_symbolizer *gt_sym_open(void);

/* gt_sym_set_self marks [lo, hi) as the tracer's own code, whose frames
 * stand for the call the program made: a PC there is named by its
 * function only, with the file of the library that defines the real
 * function of that name (dlsym(RTLD_NEXT), so call it from the tracer's
 * library), line 0 — as the C library's own frames read — and never by
 * the tracer's source file:line. Set it before the first lookup. */
void gt_sym_set_self(struct gt_symbolizer *s, uint64_t lo, uint64_t hi);

/* gt_sym_lookup writes the frames for one captured PC to out, innermost
 * first (inlined frames expanded, the real function last), at most max of
 * them, and returns how many it wrote: always >= 1 when max >= 1, 0 when
 * max == 0. With too little room the outer frames are dropped; the PCs of
 * the frames that remain do not depend on max.
 *
 * is_return_address: pc came from unwinding, so the call instruction is
 * looked up at pc-1; false for exact addresses such as a thread's start
 * routine or a signal-interrupted PC.
 *
 * Unknown names: "<module basename>+0x<offset>" (offset from the module's
 * load bias, as objdump/addr2line count it; file is the module path), or
 * "0x<hex pc>" with file "" when no module covers the PC. Any PC is safe,
 * including 0 and kernel addresses.
 *
 * Modules: an uncached lookup first asks the loader (one dl_iterate_phdr
 * step) whether anything was dlopen'ed or dlclose'd since the modules were
 * last read, and if so reads them again (dl_iterate_phdr), so modules
 * loaded after gt_sym_open are found. A module whose file on disk has
 * another build ID than the loaded image (replaced since) is read from its
 * debug file by build ID if there is one, else gets "<module>+0x" names. Results are cached per (pc, is_return_address): a
 * PC resolves to whatever was mapped there at its first lookup (until
 * gt_sym_unloaded drops its range), and cached
 * lookups never touch the loader. The cache grows with the number of
 * distinct PCs and strings seen; libdw's own memory grows with the debug
 * info it has had to read (tens of MiB once all of libc's is touched), and
 * the files it maps count as resident only for the pages read. All of it
 * is released by gt_sym_close (a dropped module's at the re-read that drops
 * it).
 *
 * Stack: an uncached lookup needs up to about 190 KiB of the caller's stack
 * (measured 182 KiB): libdw's dwarf_getsrclines keeps its first 2048 line
 * rows and 1024 file entries on the stack. Run it on a stack of at least
 * 256 KiB. */
size_t gt_sym_lookup(struct gt_symbolizer *s, uint64_t pc, bool is_return_address,
		     struct gt_sym_frame *out, size_t max);

/* gt_sym_lookup_cached is gt_sym_lookup for a PC already looked up: 0 for
 * any other. Allocates nothing, opens nothing (a final generation written
 * while the program's own allocator may be locked: core/gen_stacks.c). */
size_t gt_sym_lookup_cached(struct gt_symbolizer *s, uint64_t pc, bool is_return_address,
			    struct gt_sym_frame *out, size_t max);

/* A module the program unloaded (dlclose) whose PCs are still to be
 * named: where it was loaded ([lo, hi), as the loader had it), its file and
 * the build ID of the image that was loaded. serial (> 0) tells one
 * unloaded module from another: a later module loaded at the same
 * addresses is another serial (or the live modules). */
struct gt_sym_gone {
	uint32_t serial;
	const char *path;
	uint64_t lo, hi;
	const uint8_t *build_id;
	size_t build_id_len;
};

/* gt_sym_lookup_gone is gt_sym_lookup for a PC of unloaded module g: named
 * from g's file on disk as a loaded module would be (the same file choice;
 * a file whose build ID differs or that is gone gives
 * "<module basename>+0x<offset>"). Cached per (pc, serial); cached_only:
 * 0 for a PC not looked up before (gt_sym_lookup_cached's case). */
size_t gt_sym_lookup_gone(struct gt_symbolizer *s, const struct gt_sym_gone *g, uint64_t pc,
			  bool is_return_address, struct gt_sym_frame *out, size_t max,
			  bool cached_only);

/* gt_sym_unloaded forgets the cached names of live PCs in [lo, hi): a
 * module there was unloaded, and a module loaded there later must not get
 * its names. */
void gt_sym_unloaded(struct gt_symbolizer *s, uint64_t lo, uint64_t hi);

/* gt_sym_forget drops what gt_sym_lookup_gone kept for serial. */
void gt_sym_forget(struct gt_symbolizer *s, uint32_t serial);

/* gt_sym_close frees the symbolizer and every string it handed out. */
void gt_sym_close(struct gt_symbolizer *s);

/* gt_sym_demangle returns a malloc'd demangled form of a C++ mangled name
 * ("_Z..."), or NULL when name is not mangled, cannot be demangled, or the
 * process has no __cxa_demangle (libstdc++ is looked up at run time, never
 * linked or loaded). The caller frees the result (gt_mem_free_returned, core/mem.h).
 * A symbolizer looks the demangler up when it opens and again whenever it
 * re-reads the modules, and keeps a dlopen reference on libstdc++ from then
 * until gt_sym_close. */
char *gt_sym_demangle(const char *name);

/* gt_sym_module_range: the range a loaded module covers as the symbolizer
 * reports it: its first PT_LOAD segment rounded down to its alignment, up
 * to the page after its last. 0 when it has no PT_LOAD segment. */
struct dl_phdr_info;
int gt_sym_module_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi);

#endif
