/* heap.c — writing HeapObjectAlloc / HeapObjectFree and the HeapAlloc
 * metric. */
#include "heap.h"

#include <errno.h>

#include "clock.h"
#include "hash.h"
#include "section.h"
#include "stack.h"

/* Live bytes (malloc_usable_size) of the objects recorded so far. Frees of
 * objects allocated before tracing began make it undercount, never below 0
 * on the wire. */
static _Alignas(64) _Atomic int64_t live_bytes;
static _Alignas(64) _Atomic uint64_t metric_ts;

/* Each thread keeps its own running difference and adds it to live_bytes
 * only when it grows past this (or when it writes the metric), so
 * allocating threads do not fight over one cache line. The metric is off by
 * at most this much per other thread. */
#define HEAP_DELTA_FLUSH (64 * 1024)

static inline void account(struct gt_thread *t, int64_t d)
{
	t->heap_delta += d;
	if (t->heap_delta > HEAP_DELTA_FLUSH || t->heap_delta < -HEAP_DELTA_FLUSH) {
		atomic_fetch_add_explicit(&live_bytes, t->heap_delta, memory_order_relaxed);
		t->heap_delta = 0;
	}
}

static uint64_t type_id(struct gt_thread *t, uint64_t gen, uint64_t size, uint64_t stack)
{
	uint64_t h = gt_mix(size * 0x9e3779b97f4a7c15ull ^ stack);
	struct gt_type_cache_entry *e = &t->type_cache[h & (GT_TYPE_CACHE - 1)];
	if (e->gen == gen && e->size == size && e->stack == stack)
		return e->id;
	int saved = errno; /* the shard's lock may sleep in futex */
	uint64_t id = gt_typetab_put(&gt.types[gen & 1], size, stack);
	errno = saved;
	if (id) {
		e->gen = gen;
		e->size = size;
		e->stack = stack;
		e->id = id;
	}
	return id;
}

/* metric writes HeapAlloc when the last one is old enough. */
static void metric(struct section *s, uint64_t ts)
{
	uint64_t last = atomic_load_explicit(&metric_ts, memory_order_relaxed);
	if (ts < last + GT_HEAP_METRIC_NS ||
	    !atomic_compare_exchange_strong_explicit(&metric_ts, &last, ts, memory_order_relaxed,
						     memory_order_relaxed))
		return;
	struct gt_thread *t = s->t;
	int64_t live = atomic_fetch_add_explicit(&live_bytes, t->heap_delta, memory_order_relaxed) + t->heap_delta;
	t->heap_delta = 0;
	ev1(s->b, GT_EV_HEAP_ALLOC, ts, live > 0 ? (uint64_t)live : 0);
}

void gt_heap_alloc(struct gt_thread *t, void *p, size_t size, size_t usable_size, uintptr_t site)
{
	t->inside++;
	account(t, (int64_t)usable_size);
	if (gt_announced(t) != 0)
		goto out;
	uintptr_t pcs[GT_MAX_FRAMES];
	unsigned n = gt_stack_capture(pcs, site);
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	uint64_t stk = gt_stack_id(t, s.gen, pcs, n);
	uint64_t ty = type_id(t, s.gen, size, stk);
	ev2(s.b, GT_EV_HEAP_OBJECT_ALLOC, ts, ((uintptr_t)p - GT_HEAP_MIN_ADDR) / GT_HEAP_ALIGN, ty);
	metric(&s, ts);
	section_close(&s);
out:
	t->inside--;
}

void gt_heap_free(struct gt_thread *t, void *p, size_t usable_size)
{
	t->inside++;
	account(t, -(int64_t)usable_size);
	if (gt_announced(t) != 0)
		goto out;
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		goto out;
	ev1(s.b, GT_EV_HEAP_OBJECT_FREE, ts, ((uintptr_t)p - GT_HEAP_MIN_ADDR) / GT_HEAP_ALIGN);
	metric(&s, ts);
	section_close(&s);
out:
	t->inside--;
}
