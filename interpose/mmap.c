/* mmap.c — anonymous mappings as AllocFree spans (core/spans.h,
 * docs/heap.md "Mapped memory").
 *
 * mmap, mmap64, munmap, mremap and mprotect make the system call with the
 * instruction itself, as glibc's thin wrappers do: resolving the next
 * definition with dlsym could run before the allocator is set up, from
 * inside it (jemalloc maps its first arena while its first malloc is being
 * served). What they record, with heap recording on:
 *
 * - an anonymous mapping with some access (not PROT_NONE: a reservation of
 *   address space is no memory) — SpanAlloc, with the mmap's stack as site,
 *   of class GT_SPAN_MALLOC when made inside a real allocator call of the
 *   malloc family (`inside` is exactly GT_INSIDE_ALLOC: the
 *   program's allocator working for it, jemalloc's or tcmalloc's arenas),
 *   else GT_SPAN_ANON;
 * - MAP_FIXED over known spans (a mapping of any kind replacing them), and
 *   munmap — SpanFree of each known span the range touches, written before
 *   the real call (so another thread cannot map the range first), then
 *   SpanAlloc of the parts of them left outside the range (a partial
 *   munmap: jemalloc trims its over-sized mappings to alignment so);
 * - an anonymous PROT_NONE mapping: a reservation, no span; pages of it an
 *   mprotect makes accessible are spans (site: the mprotect), made
 *   PROT_NONE again they are freed (V8 reserves its heap and code spaces
 *   and commits them so; a JVM commits with MAP_FIXED mappings, above);
 * - the program's own sbrk/brk: the brk heap's span again, at its new size
 *   (these two call the real functions, which keep libc's idea of the
 *   break);
 * - mremap of a known span — its SpanFree, then the new range's SpanAlloc
 *   with the same class and the mremap's stack (on failure, the old range
 *   again).
 *
 * Anything else passes through at the cost of the call and a test or two:
 * file mappings, reservations, ranges the table does not know (made by
 * calls that bypass these wrappers, as glibc malloc's own mmap: the
 * generation snapshots state them, core/gen_spans.c), calls made inside
 * the tracer or in a signal handler that interrupted it. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>

#include "../core/spans.h"
#include "../core/sys.h"
#include "interpose.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

/* recording_class: the class of a mapping the calling thread makes now, or
 * -1 when its calls pass through (tracer work, a handler inside it or
 * inside a call pending in the kernel, a thread past its end, spans off). */
static inline int recording_class(const struct gt_thread *t)
{
	if (!gt_spans_on() || t->quiet)
		return -1; /* and a handler inside a call pending in the kernel: as malloc's */
	if (t->inside == 0)
		return GT_SPAN_ANON;
	return t->inside == GT_INSIDE_ALLOC ? GT_SPAN_MALLOC : -1;
}

enum map_fn { F_MMAP, F_MMAP64, F_MREMAP, F_MPROTECT };

static uintptr_t site_of(enum map_fn f, uintptr_t ra, uintptr_t cfa)
{
	switch (f) {
	case F_MMAP: return GT_SITE_AT(mmap, ra, cfa);
	case F_MMAP64: return GT_SITE_AT(mmap64, ra, cfa);
	case F_MREMAP: return GT_SITE_AT(mremap, ra, cfa);
	default: return GT_SITE_AT(mprotect, ra, cfa);
	}
}

/* mapped_slow: p is an anonymous mapping, or a MAP_FIXED one. */
static GT_SLOW void *mapped_slow(void *p, size_t len, int prot, int flags, enum map_fn f, uintptr_t ra, uintptr_t cfa)
{
	struct gt_thread *t = &gt_self;
	int cls = recording_class(t);
	if (cls < 0)
		return p;
	int saved = errno;
	t->inside++;
	if ((flags & MAP_ANONYMOUS) && prot != PROT_NONE) {
		gt_span_mapped(t, (uintptr_t)p, len, (unsigned)cls, site_of(f, ra, cfa), ra, cfa);
	} else {
		if (flags & MAP_FIXED)
			gt_span_unmapping(t, (uintptr_t)p, len);
		if (flags & MAP_ANONYMOUS) /* PROT_NONE: a reservation */
			gt_span_reserved((uintptr_t)p, len);
	}
	t->inside--;
	errno = saved;
	return p;
}

/* MAPPED: the fast half's test after the real call. */
#define MAPPED(p, len, prot, flags, f)                                                              \
	do {                                                                                        \
		if (__builtin_expect((p) == MAP_FAILED, 0))                                         \
			return (p);                                                                 \
		int fixed_ = ((flags) & (MAP_FIXED | MAP_FIXED_NOREPLACE)) == MAP_FIXED;            \
		if (__builtin_expect(!fixed_ && !((flags) & MAP_ANONYMOUS), 1))                     \
			return (p);                                                                 \
		if (__builtin_expect(!gt.malloc_events, 0)) /* spans off: one load */               \
			return (p);                                                                 \
		return mapped_slow((p), (len), (prot), (flags), (f), GT_RA(), GT_CFA());            \
	} while (0)

GT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = gt_sys_mmap(addr, len, prot, flags, fd, off);
	MAPPED(p, len, prot, flags, F_MMAP);
}

GT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	void *p = gt_sys_mmap(addr, len, prot, flags, fd, off);
	MAPPED(p, len, prot, flags, F_MMAP64);
}

/* unmapping_slow: the range may meet known spans. An argument the kernel
 * refuses (EINVAL) is left to it, unrecorded. */
static GT_SLOW void unmapping_slow(void *addr, size_t len)
{
	struct gt_thread *t = &gt_self;
	if (recording_class(t) < 0 || len == 0 || ((uintptr_t)addr & (GT_SPAN_PAGE - 1)))
		return;
	int saved = errno;
	t->inside++;
	gt_span_unmapping(t, (uintptr_t)addr, len);
	t->inside--;
	errno = saved;
}

GT_EXPORT int munmap(void *addr, size_t len)
{
	if (__builtin_expect(gt.malloc_events && gt_span_maybe((uintptr_t)addr, len), 0))
		unmapping_slow(addr, len);
	return gt_sys_munmap(addr, len);
}

/* remap_slow: old is (in) a known span of class cls. */
static GT_SLOW void *remap_slow(struct gt_thread *t, int cls, void *old, size_t old_len, size_t new_len, int flags,
				void *to, uintptr_t ra, uintptr_t cfa)
{
	int saved = errno;
	t->inside++;
	gt_span_unmapping(t, (uintptr_t)old, old_len);
	long r = gt_sys_call(SYS_mremap, old, old_len, new_len, flags, to);
	int err = errno;
	uintptr_t site = site_of(F_MREMAP, ra, cfa);
	if (r == -1) {
		gt_span_mapped(t, (uintptr_t)old, old_len, (unsigned)cls, site, ra, cfa);
	} else {
		if ((flags & MREMAP_DONTUNMAP) && (void *)r != old)
			gt_span_mapped(t, (uintptr_t)old, old_len, (unsigned)cls, site, ra, cfa);
		gt_span_mapped(t, (uintptr_t)r, new_len, (unsigned)cls, site, ra, cfa);
	}
	t->inside--;
	errno = r == -1 ? err : saved;
	return r == -1 ? MAP_FAILED : (void *)r;
}

GT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *to = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	if (__builtin_expect(gt_span_maybe((uintptr_t)old, old_len) && old_len && new_len, 0)) {
		struct gt_thread *t = &gt_self;
		if (recording_class(t) >= 0) {
			int cls = gt_span_class_at((uintptr_t)old, old_len);
			if (cls >= 0)
				return remap_slow(t, cls, old, old_len, new_len, flags, to, GT_RA(), GT_CFA());
		}
	}
	long r = gt_sys_call(SYS_mremap, old, old_len, new_len, flags, to);
	return r == -1 ? MAP_FAILED : (void *)r;
}

/* protect_slow: [addr, addr+len) may meet a reservation; the call
 * succeeded. */
static GT_SLOW int protect_slow(void *addr, size_t len, int prot, uintptr_t ra, uintptr_t cfa)
{
	struct gt_thread *t = &gt_self;
	int cls = recording_class(t);
	if (cls < 0)
		return 0;
	int saved = errno;
	t->inside++;
	gt_span_protecting(t, (uintptr_t)addr, len, prot == PROT_NONE, (unsigned)cls, site_of(F_MPROTECT, ra, cfa),
			   ra, cfa);
	t->inside--;
	errno = saved;
	return 0;
}

/* mprotect: pages of a reservation made accessible are spans (V8 commits
 * its heap so), made PROT_NONE again they are not. Outside reservations
 * nothing is recorded: a span stays a span whatever its access (a JIT's
 * W^X flips, a thread's guard zone). */
GT_EXPORT int mprotect(void *addr, size_t len, int prot)
{
	int r = (int)gt_sys_call(SYS_mprotect, addr, len, prot);
	if (__builtin_expect(r == 0 && gt_span_reserved_maybe((uintptr_t)addr, len), 0))
		return protect_slow(addr, len, prot, GT_RA(), GT_CFA());
	return r;
}

/* brk_slow: the program's own call moved the break from old to now. */
static GT_SLOW void brk_slow(void *old, void *now, int is_sbrk, uintptr_t ra, uintptr_t cfa)
{
	struct gt_thread *t = &gt_self;
	if (recording_class(t) < 0)
		return;
	int saved = errno;
	t->inside++;
	uintptr_t site = is_sbrk ? GT_SITE_AT(sbrk, ra, cfa) : GT_SITE_AT(brk, ra, cfa);
	gt_span_brk_moved(t, (uintptr_t)old, (uintptr_t)now, site, ra, cfa);
	t->inside--;
	errno = saved;
}

/* sbrk and brk: the brk heap's span follows the program's own calls
 * (glibc's malloc calls its internal ones: the snapshots state those). */
GT_EXPORT void *sbrk(intptr_t incr)
{
	void *old = GT_REAL(sbrk)(incr);
	if (__builtin_expect(incr != 0 && old != (void *)-1, 0))
		brk_slow(old, (char *)old + incr, 1, GT_RA(), GT_CFA());
	return old;
}

GT_EXPORT int brk(void *addr)
{
	void *old = GT_REAL(sbrk)(0);
	int r = GT_REAL(brk)(addr);
	if (r == 0 && old != (void *)-1 && addr != old)
		brk_slow(old, addr, 0, GT_RA(), GT_CFA());
	return r;
}
