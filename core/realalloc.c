/* realalloc.c — finding the real allocator of GT_ALLOC_TABLE
 * (core/real_table.h), and the bootstrap arena that serves allocations
 * while dlsym runs (core/realalloc.h). */
#include "realalloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "heapset.h"
#include "sys.h"

/* --- bootstrap arena ------------------------------------------------------ */

_Alignas(64) unsigned char gt_alloc_arena[GT_ARENA_SIZE];
static _Atomic size_t arena_used;

/* Each block: a 16-byte header holding its size, then the (zeroed) data.
 * Its address is marked in the free filter (core/heapset.h), so its free
 * takes the slow half, which recognizes it. */
static void *arena_alloc(size_t n, size_t align)
{
	if (align < 16)
		align = 16;
	size_t need = ((n + 15) & ~(size_t)15) + 16 + align;
	size_t at = atomic_fetch_add(&arena_used, need);
	if (at + need > GT_ARENA_SIZE)
		return NULL;
	uintptr_t p = ((uintptr_t)gt_alloc_arena + at + 16 + align - 1) & ~(uintptr_t)(align - 1);
	((size_t *)p)[-1] = n;
	gt_heapset_mark((void *)p);
	return (void *)p;
}

void *gt_alloc_arena_copy(void *q, const void *p, size_t n)
{
	size_t old = gt_alloc_arena_size(p);
	if (q)
		memcpy(q, p, old < n ? old : n);
	return q;
}

/* --- the pointers: stubs first --------------------------------------------- */

#define STUB(field, symbol, version, ret, params) static ret field##_first params;
#define STUB_WANT(field, symbol, version, ret, params, missing) STUB(field, symbol, version, ret, params)
GT_ALLOC_TABLE(STUB, STUB_WANT)
#undef STUB
#undef STUB_WANT

#define FIRST(field, symbol, version, ret, params) .field = field##_first,
#define FIRST_WANT(field, symbol, version, ret, params, missing) .field = field##_first,
struct gt_alloc gt_alloc = { GT_ALLOC_TABLE(FIRST, FIRST_WANT) };
#undef FIRST
#undef FIRST_WANT

/* The fallbacks of the optional rows: missing_<field>. */
#define NO_FALLBACK(field, symbol, version, ret, params)
#define FALLBACK(field, symbol, version, ret, params, missing) static ret missing_##field params missing
GT_ALLOC_TABLE(NO_FALLBACK, FALLBACK)
#undef NO_FALLBACK
#undef FALLBACK

/* --- resolution ------------------------------------------------------------ */

static _Atomic int resolving;
static _Atomic int resolved;

static void *lookup(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	return p ? p : dlsym(RTLD_NEXT, name);
}

/* No gt_warn here: formatting may allocate, and allocating is what failed. */
static void missing_required(void)
{
	static const char msg[] = "gotrace: cannot find the real malloc/free\n";
	(void)!gt_sys_call(SYS_write, 2, msg, sizeof msg - 1);
	abort();
}

int gt_alloc_resolve(void)
{
	if (atomic_load_explicit(&resolved, memory_order_acquire))
		return 1;
	if (atomic_exchange(&resolving, 1))
		return 0;
	struct gt_alloc r;
#define NEED(field, symbol, version, ret, params) r.field = (ret(*) params)lookup(symbol, version);
#define WANT(field, symbol, version, ret, params, missing) \
	r.field = (ret(*) params)lookup(symbol, version);  \
	if (!r.field)                                      \
		r.field = missing_##field;
	GT_ALLOC_TABLE(NEED, WANT)
#undef NEED
#undef WANT
	if (!r.malloc || !r.calloc || !r.realloc || !r.free)
		missing_required();
	void **dst = (void **)&gt_alloc, **src = (void **)&r;
	for (size_t i = 0; i < sizeof r / sizeof(void *); i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELEASE);
	atomic_store_explicit(&resolved, 1, memory_order_release);
	return 1;
}

/* --- the stubs: the real call once resolved, else the arena ------------------ */

static void *malloc_first(size_t n)
{
	return gt_alloc_resolve() ? GT_ALLOC(malloc)(n) : arena_alloc(n, 16);
}

static void *calloc_first(size_t n, size_t size)
{
	if (gt_alloc_resolve())
		return GT_ALLOC(calloc)(n, size);
	if (size && n > SIZE_MAX / size)
		return NULL;
	return arena_alloc(n * size, 16); /* static memory: already zero */
}

static void *realloc_first(void *p, size_t n)
{
	if (gt_alloc_resolve())
		return GT_ALLOC(realloc)(p, n);
	return p ? gt_alloc_arena_copy(GT_ALLOC(malloc)(n), p, n) : arena_alloc(n, 16);
}

static void free_first(void *p)
{
	if (gt_alloc_resolve())
		GT_ALLOC(free)(p);
	/* else: a block from before this library, freed while dlsym runs:
	 * kept */
}

static int posix_memalign_first(void **out, size_t align, size_t n)
{
	if (gt_alloc_resolve())
		return GT_ALLOC(posix_memalign)(out, align, n);
	void *p = arena_alloc(n, align);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static void *aligned_alloc_first(size_t align, size_t n)
{
	return gt_alloc_resolve() ? GT_ALLOC(aligned_alloc)(align, n) : arena_alloc(n, align);
}

static void *memalign_first(size_t align, size_t n)
{
	return gt_alloc_resolve() ? GT_ALLOC(memalign)(align, n) : arena_alloc(n, align);
}

static void *valloc_first(size_t n)
{
	return gt_alloc_resolve() ? GT_ALLOC(valloc)(n) : arena_alloc(n, 4096);
}

static void *pvalloc_first(size_t n)
{
	return gt_alloc_resolve() ? GT_ALLOC(pvalloc)(n) : arena_alloc(n, 4096);
}

static void free_sized_first(void *p, size_t n)
{
	if (gt_alloc_resolve())
		GT_ALLOC(free_sized)(p, n);
}

static void free_aligned_sized_first(void *p, size_t align, size_t n)
{
	if (gt_alloc_resolve())
		GT_ALLOC(free_aligned_sized)(p, align, n);
}

static size_t usable_first(void *p)
{
	return gt_alloc_resolve() ? GT_ALLOC(usable)(p) : 0;
}
