/* ownheap.c — the tracer's own heap (ownheap.h). */
#include "ownheap.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "lock.h"
#include "ownmaps.h"
#include "sys.h"
#include "thread.h"

/* Until reserved: an empty region at the top of the address space, where
 * no user pointer is. A reader that sees the new length with the old
 * start still finds nothing own (p - start wraps to p + GT_OWN_SIZE). */
uintptr_t gt_own_lo = (uintptr_t)0 - GT_OWN_SIZE;
uintptr_t gt_own_len;

#define HDR 16
#define MIN_SHIFT 5                 /* the smallest block: 32 bytes */
#define NCLASS (4 * (32 - MIN_SHIFT) + 4)
#define GIVE_BACK ((size_t)1 << 20) /* freed blocks this big return their pages */

struct hdr {
	uint16_t cls;
	uint16_t magic;
	uint32_t off;  /* from the block's start to the pointer handed out */
	uint64_t size; /* asked */
};
#define MAGIC 0x6774 /* "gt" */

static gt_lock_t lock = GT_LOCK_INIT;
/* The thread holding the lock (its gt_self), so that a signal handler
 * interrupting it on the same thread (a malloc in a handler, while the
 * tracer allocates) does not wait for itself: it gets NULL (the real
 * allocator serves it) or, freeing, leaves the block unreused. */
static const void *volatile holder;

static int take(void)
{
	if (holder == (const void *)&gt_self)
		return 0;
	gt_lock(&lock);
	holder = &gt_self;
	return 1;
}

static void give(void)
{
	holder = NULL;
	gt_unlock(&lock);
}
static _Atomic int state; /* 0 not tried, 1 reserved, -1 refused */
static uintptr_t bump, end;
static void *free_list[NCLASS];

/* class_size: the block size of class c: (4 + c % 4) << (c / 4 + MIN_SHIFT - 2),
 * rounded up to 16 so that every block starts 16-aligned (the bump pointer
 * only ever advances by these). */
static size_t class_size(unsigned c)
{
	return (((size_t)(4 + c % 4) << (c / 4 + MIN_SHIFT - 2)) + 15) & ~(size_t)15;
}

/* class_of: the smallest class whose blocks hold n bytes. */
static int class_of(size_t n)
{
	if (n <= ((size_t)1 << MIN_SHIFT))
		return 0;
	unsigned k = 63 - (unsigned)__builtin_clzll(n - 1); /* 2^k < n <= 2^(k+1) */
	size_t step = ((n - 1) >> (k - 2)) & 3;             /* n - 1 in [2^k + step*2^(k-2), ...) */
	int c = (int)(4 * (k + 1 - MIN_SHIFT) + step - 3);
	if (c < 0)
		c = 0;
	while ((unsigned)c < NCLASS && class_size((unsigned)c) < n)
		c++;
	return (unsigned)c < NCLASS ? c : -1;
}

static int reserve(void)
{
	int s = atomic_load_explicit(&state, memory_order_acquire);
	if (s)
		return s;
	int saved = errno;
	size_t len = GT_OWN_SIZE;
	struct rlimit as;
	if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && as.rlim_cur / 16 < len)
		len = (size_t)(as.rlim_cur / 16) & ~(size_t)4095;
	void *p = len < ((size_t)16 << 20) ? MAP_FAILED
					   : gt_sys_mmap(NULL, len, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	errno = saved;
	if (p == MAP_FAILED) {
		atomic_store_explicit(&state, -1, memory_order_release);
		return -1;
	}
	gt_ownmaps_add(p, len); /* no memory of the program's (core/gen_spans.h) */
	bump = (uintptr_t)p;
	end = bump + len;
	/* The start first: a reader seeing the length sees the start. */
	__atomic_store_n(&gt_own_lo, (uintptr_t)p, __ATOMIC_RELEASE);
	__atomic_store_n(&gt_own_len, (uintptr_t)len, __ATOMIC_RELEASE);
	atomic_store_explicit(&state, 1, memory_order_release);
	return 1;
}

void *gt_own_alloc(size_t n, size_t align)
{
	if (align < HDR)
		align = HDR;
	if (n > GT_OWN_SIZE || align > GT_OWN_SIZE / 2)
		return NULL; /* also keeps n + align from wrapping */
	int c = class_of(n + HDR + (align - HDR));
	if (c < 0)
		return NULL;
	if (!take())
		return NULL;
	void *blk = NULL;
	if (reserve() == 1) {
		blk = free_list[c];
		if (blk) {
			free_list[c] = *(void **)blk;
		} else if (end - bump >= class_size((unsigned)c)) {
			blk = (void *)bump;
			bump += class_size((unsigned)c);
		}
	}
	give();
	if (!blk)
		return NULL;
	uintptr_t u = ((uintptr_t)blk + HDR + align - 1) & ~(uintptr_t)(align - 1);
	struct hdr *h = (struct hdr *)(u - HDR);
	h->cls = (uint16_t)c;
	h->magic = MAGIC;
	h->off = (uint32_t)(u - (uintptr_t)blk);
	h->size = n;
	return (void *)u;
}

void *gt_own_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = gt_own_alloc(n * size, HDR);
	/* A reused block may hold old bytes; fresh pages are zero already,
	 * but which is which is not tracked: clear it. */
	if (p)
		memset(p, 0, n * size);
	return p;
}

size_t gt_own_size(const void *p)
{
	return ((const struct hdr *)((uintptr_t)p - HDR))->size;
}

void gt_own_free(void *p)
{
	struct hdr *h = (struct hdr *)((uintptr_t)p - HDR);
	if (h->magic != MAGIC)
		return; /* not a block handed out: never put it on a list */
	unsigned c = h->cls;
	void *blk = (void *)((uintptr_t)p - h->off);
	h->magic = 0;
	if (class_size(c) >= GIVE_BACK) {
		int saved = errno;
		madvise(blk, class_size(c), MADV_DONTNEED);
		errno = saved;
	}
	if (!take())
		return;
	*(void **)blk = free_list[c];
	free_list[c] = blk;
	give();
}

void *gt_own_realloc(void *p, size_t n)
{
	struct hdr *h = (struct hdr *)((uintptr_t)p - HDR);
	size_t room = class_size(h->cls) - h->off;
	if (n <= room && h->off == HDR) {
		h->size = n;
		return p;
	}
	void *q = gt_own_alloc(n, HDR);
	if (!q)
		return NULL;
	memcpy(q, p, h->size < n ? h->size : n);
	gt_own_free(p);
	return q;
}

void gt_own_fork_prepare(void)
{
	gt_lock(&lock);
}

void gt_own_fork_parent(void)
{
	gt_unlock(&lock);
}

void gt_own_fork_child(void)
{
	holder = NULL;
	gt_lock_reset(&lock);
}
