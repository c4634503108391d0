/* spans.c — the table of mappings seen made, and their events (spans.h). */
#include "spans.h"

#include <errno.h>
#include <string.h>

#include "clock.h"
#include "lock.h"
#include "region.h"
#include "section.h"
#include "stack.h"
#include "tracer.h"

#define PAGE ((uintptr_t)GT_SPAN_PAGE)

/* The table: spans sorted by base, never overlapping. lo/hi bound them all
 * (read without the lock by gt_span_maybe: a stale answer only costs a
 * look under the lock, or misses a span being made by another thread at
 * that very moment, which the next snapshot states). */
static struct {
	gt_lock_t lock;
	struct gt_span *v;
	size_t n, cap;
	_Atomic uintptr_t lo, hi;
} tab;

int gt_spans_on(void)
{
	return gt.malloc_events && atomic_load_explicit(&gt.on, memory_order_relaxed);
}

void gt_spans_lock(void) { gt_lock(&tab.lock); }
void gt_spans_unlock(void) { gt_unlock(&tab.lock); }
void gt_spans_after_fork(void) { gt_lock_reset(&tab.lock); }

int gt_span_maybe(uintptr_t base, size_t len)
{
	return atomic_load_explicit(&tab.lo, memory_order_relaxed) < base + len &&
	       base < atomic_load_explicit(&tab.hi, memory_order_relaxed);
}

/* first_after: the index of the first span ending above a. */
static size_t first_after(uintptr_t a)
{
	size_t l = 0, r = tab.n;
	while (l < r) {
		size_t m = (l + r) / 2;
		if (tab.v[m].base + tab.v[m].len <= a)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

static void bounds(void)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	if (tab.n) {
		lo = tab.v[0].base;
		hi = tab.v[tab.n - 1].base + tab.v[tab.n - 1].len;
	}
	atomic_store_explicit(&tab.lo, lo, memory_order_relaxed);
	atomic_store_explicit(&tab.hi, hi, memory_order_relaxed);
}

/* insert_at puts s at index i (pre: the order holds). -1: no memory. */
static int insert_at(size_t i, const struct gt_span *s)
{
	if (tab.n == tab.cap) {
		size_t cap = tab.cap ? tab.cap * 2 : 1024;
		struct gt_span *v = gt_map(cap * sizeof *v);
		if (!v)
			return -1;
		if (tab.n)
			memcpy(v, tab.v, tab.n * sizeof *v);
		if (tab.v)
			gt_unmap(tab.v, tab.cap * sizeof *v);
		tab.v = v;
		tab.cap = cap;
	}
	memmove(&tab.v[i + 1], &tab.v[i], (tab.n - i) * sizeof *tab.v);
	tab.v[i] = *s;
	tab.n++;
	bounds();
	return 0;
}

static void remove_at(size_t i)
{
	memmove(&tab.v[i], &tab.v[i + 1], (tab.n - i - 1) * sizeof *tab.v);
	tab.n--;
	bounds();
}

/* What one step of an unmapping writes: the span freed, and the pieces of
 * it left outside the range (at most two). */
struct cut {
	struct gt_span freed;
	struct gt_span left[2];
	int nleft;
};

/* cut_one takes the first known span meeting [lo, hi) out of the table,
 * putting back its pieces outside the range. 0: none met. Under the lock. */
static int cut_one(uintptr_t lo, uintptr_t hi, struct cut *c)
{
	size_t i = first_after(lo);
	if (i >= tab.n || tab.v[i].base >= hi)
		return 0;
	struct gt_span s = tab.v[i];
	c->freed = s;
	c->nleft = 0;
	remove_at(i);
	if (s.base < lo) {
		struct gt_span a = s;
		a.len = lo - s.base;
		c->left[c->nleft++] = a;
		insert_at(i++, &a);
	}
	if (s.base + s.len > hi) {
		struct gt_span b = s;
		b.base = hi;
		b.len = s.base + s.len - hi;
		c->left[c->nleft++] = b;
		insert_at(i, &b);
	}
	return 1;
}

static inline uint64_t kindclass(const struct gt_span *s, uint64_t gen)
{
	return GT_SPAN_KINDCLASS(s->site_gen == gen ? s->site : 0, s->cls);
}

/* open_for: a write section on t for span events; 0 when nothing can be
 * written (errno kept: announcing may make system calls). */
static int open_for(struct section *s, struct gt_thread *t, uint64_t ts)
{
	int saved = errno;
	int ok = gt_announced(t) == 0 && gt_section_open(s, t, ts);
	errno = saved;
	return ok;
}

/* unmap_range writes the cuts of [lo, hi), one known span per section. */
static void unmap_range(struct gt_thread *t, uintptr_t lo, uintptr_t hi)
{
	for (;;) {
		struct cut c;
		gt_lock(&tab.lock);
		int any = cut_one(lo, hi, &c);
		gt_unlock(&tab.lock);
		if (!any)
			return;
		uint64_t ts = gt_now();
		struct section s;
		if (!open_for(&s, t, ts))
			continue; /* the table is right; the events are lost */
		ev1(s.b, GT_EV_SPAN_FREE, ts, c.freed.base / PAGE);
		for (int k = 0; k < c.nleft; k++)
			ev3(s.b, GT_EV_SPAN_ALLOC, ts, c.left[k].base / PAGE, c.left[k].len / PAGE,
			    kindclass(&c.left[k], s.gen));
		section_close(&s);
	}
}

static inline uintptr_t page_up(uintptr_t a) { return (a + PAGE - 1) & ~(PAGE - 1); }

void gt_span_unmapping(struct gt_thread *t, uintptr_t base, size_t len)
{
	uintptr_t lo = base & ~(PAGE - 1), hi = page_up(base + len);
	if (hi > lo && gt_span_maybe(lo, hi - lo))
		unmap_range(t, lo, hi);
}

int gt_span_class_at(uintptr_t base, size_t len)
{
	int cls = -1;
	gt_lock(&tab.lock);
	size_t i = first_after(base);
	if (i < tab.n && tab.v[i].base <= base && base + len <= tab.v[i].base + tab.v[i].len)
		cls = tab.v[i].cls;
	gt_unlock(&tab.lock);
	return cls;
}

/* add writes SpanAlloc of [base, base+len) with class cls and the stack
 * st (NULL: no site), and notes it in the table. */
static void add(struct gt_thread *t, uintptr_t base, size_t len, unsigned cls, struct gt_stack *st, int stack_ev)
{
	uint64_t ts = gt_now();
	struct section s;
	if (!open_for(&s, t, ts))
		return;
	struct gt_span sp = { .base = base, .len = len, .cls = (uint8_t)cls, .site_gen = s.gen };
	if (st) {
		uint64_t id = gt_stack_take_id(t, s.gen, st);
		sp.site = id <= UINT32_MAX ? (uint32_t)id : 0;
	}
	if (stack_ev)
		ev2(s.b, GT_EV_GOROUTINE_STACK_ALLOC, ts, base / PAGE, gt_span_stack_order(len));
	ev3(s.b, GT_EV_SPAN_ALLOC, ts, base / PAGE, len / PAGE, kindclass(&sp, s.gen));
	/* In the table inside the section: the flusher's snapshot of the next
	 * generation (taken after this section was waited for) sees it. */
	gt_lock(&tab.lock);
	size_t i = first_after(base);
	if (!(i < tab.n && tab.v[i].base < base + len)) /* a race left one there: keep it */
		insert_at(i, &sp);
	gt_unlock(&tab.lock);
	section_close(&s);
}

void gt_span_mapped(struct gt_thread *t, uintptr_t base, size_t len, unsigned cls, uintptr_t site, uintptr_t ra,
		    uintptr_t cfa)
{
	uintptr_t hi = page_up(base + len);
	if (gt_span_maybe(base, hi - base))
		unmap_range(t, base, hi); /* MAP_FIXED over known spans */
	struct gt_stack st;
	gt_stack_take_at(&st, site, ra, cfa);
	add(t, base, hi - base, cls, &st, 0);
}

void gt_span_thread_stack(struct gt_thread *t, uintptr_t base, size_t len)
{
	struct gt_side *side = gt_thread_side(t);
	if (!side || !len || (base | len) & (PAGE - 1))
		return;
	side->stack_base = base;
	side->stack_len = len;
	if (gt_span_maybe(base, len))
		unmap_range(t, base, base + len); /* a reused block's stale spans */
	add(t, base, len, GT_SPAN_STACK, NULL, 1);
}

void gt_span_thread_stack_end(struct gt_thread *t)
{
	struct gt_side *side = t->side;
	if (!side || !side->stack_len)
		return;
	uintptr_t base = side->stack_base;
	size_t len = side->stack_len;
	side->stack_len = 0;
	uint64_t ts = gt_now();
	struct section s;
	if (open_for(&s, t, ts)) {
		ev1(s.b, GT_EV_GOROUTINE_STACK_FREE, ts, base / PAGE);
		section_close(&s);
	}
	unmap_range(t, base, base + len);
}

void gt_spans_each(int (*fn)(void *ctx, struct gt_span *s), void *ctx)
{
	for (size_t i = 0; i < tab.n;) {
		if (fn(ctx, &tab.v[i]))
			remove_at(i);
		else
			i++;
	}
}
