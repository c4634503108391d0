/* spans.c — the table of mappings seen made, and their events (spans.h). */
#include "spans.h"

#include <errno.h>
#include <string.h>

#include "clock.h"
#include "lock.h"
#include "region.h"
#include "section.h"
#include "hash.h"
#include "spansite.h"
#include "stack.h"
#include "tracer.h"

#define PAGE ((uintptr_t)GT_SPAN_PAGE)

/* A table: ranges sorted by base, never overlapping. lo/hi bound them all
 * (read without the lock by the maybe tests: a stale answer only costs a
 * look under the lock, or misses a range being made by another thread at
 * that very moment, which the next snapshot states).
 *
 * Two of them: `tab`, the spans written (SpanAlloc, no SpanFree yet), and
 * `res`, the anonymous PROT_NONE mappings seen made (reservations of
 * address space: V8's heap and code spaces, a JVM's heap), whose pages an
 * mprotect makes accessible (a span) or inaccessible again (no span). A
 * reservation stays while its pages are spans; it goes with munmap or a
 * mapping of another kind over it. Their locks are never held together. */
struct table {
	gt_lock_t lock;
	struct gt_span *v;
	size_t n, cap;
	_Atomic uintptr_t lo, hi;
};
static struct table tab, res;

int gt_spans_on(void)
{
	return gt.malloc_events && atomic_load_explicit(&gt.on, memory_order_relaxed);
}

void gt_spans_lock(void) { gt_lock(&tab.lock); }
void gt_spans_unlock(void) { gt_unlock(&tab.lock); }
void gt_spans_after_fork(void)
{
	gt_lock_reset(&tab.lock);
	gt_lock_reset(&res.lock);
}

static inline int maybe(struct table *t, uintptr_t base, size_t len)
{
	return atomic_load_explicit(&t->lo, memory_order_relaxed) < base + len &&
	       base < atomic_load_explicit(&t->hi, memory_order_relaxed);
}

int gt_span_maybe(uintptr_t base, size_t len)
{
	return maybe(&tab, base, len) || maybe(&res, base, len);
}

int gt_span_reserved_maybe(uintptr_t base, size_t len)
{
	return maybe(&res, base, len);
}

/* first_after: the index of the first range of t ending above a. */
static size_t first_after(struct table *t, uintptr_t a)
{
	size_t l = 0, r = t->n;
	while (l < r) {
		size_t m = (l + r) / 2;
		if (t->v[m].base + t->v[m].len <= a)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

static void bounds(struct table *t)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	if (t->n) {
		lo = t->v[0].base;
		hi = t->v[t->n - 1].base + t->v[t->n - 1].len;
	}
	atomic_store_explicit(&t->lo, lo, memory_order_relaxed);
	atomic_store_explicit(&t->hi, hi, memory_order_relaxed);
}

/* insert_at puts s at index i of t (pre: the order holds). -1: no memory. */
static int insert_at(struct table *t, size_t i, const struct gt_span *s)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct gt_span *v = gt_map(cap * sizeof *v);
		if (!v)
			return -1;
		if (t->n)
			memcpy(v, t->v, t->n * sizeof *v);
		if (t->v)
			gt_unmap(t->v, t->cap * sizeof *v);
		t->v = v;
		t->cap = cap;
	}
	memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof *t->v);
	t->v[i] = *s;
	t->n++;
	bounds(t);
	return 0;
}

static void remove_at(struct table *t, size_t i)
{
	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
	t->n--;
	bounds(t);
}

/* What one step of an unmapping writes: the span freed, and the pieces of
 * it left outside the range (at most two). */
struct cut {
	struct gt_span freed;
	struct gt_span left[2];
	int nleft;
};

/* cut_one takes the first range of t meeting [lo, hi) out of it, putting
 * back its pieces outside the range. 0: none met. Under t's lock. */
static int cut_one(struct table *t, uintptr_t lo, uintptr_t hi, struct cut *c)
{
	size_t i = first_after(t, lo);
	if (i >= t->n || t->v[i].base >= hi)
		return 0;
	struct gt_span s = t->v[i];
	c->freed = s;
	c->nleft = 0;
	remove_at(t, i);
	if (s.base < lo) {
		struct gt_span a = s;
		a.len = lo - s.base;
		c->left[c->nleft++] = a;
		insert_at(t, i++, &a);
	}
	if (s.base + s.len > hi) {
		struct gt_span b = s;
		b.base = hi;
		b.len = s.base + s.len - hi;
		c->left[c->nleft++] = b;
		insert_at(t, i, &b);
	}
	return 1;
}

/* unreserve takes [lo, hi) out of the reservations (no event). */
static void unreserve(uintptr_t lo, uintptr_t hi)
{
	if (!maybe(&res, lo, hi - lo))
		return;
	struct cut c;
	gt_lock(&res.lock);
	while (cut_one(&res, lo, hi, &c))
		;
	gt_unlock(&res.lock);
}

/* kindclass: s's class and site in generation gen (the site put in gen's
 * stack table again when it was written in another one). In a section of
 * gen. */
static uint64_t kindclass(const struct gt_span *s, uint64_t gen)
{
	uint64_t site = s->site_gen == gen ? s->site : gt_spansite_id(s->site_ref, gen);
	return GT_SPAN_KINDCLASS(site <= UINT32_MAX ? site : 0, s->cls);
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
		int any = cut_one(&tab, lo, hi, &c);
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
	if (hi <= lo)
		return;
	unreserve(lo, hi);
	if (maybe(&tab, lo, hi - lo))
		unmap_range(t, lo, hi);
}

int gt_span_class_at(uintptr_t base, size_t len)
{
	int cls = -1;
	gt_lock(&tab.lock);
	size_t i = first_after(&tab, base);
	if (i < tab.n && tab.v[i].base <= base && base + len <= tab.v[i].base + tab.v[i].len)
		cls = tab.v[i].cls;
	gt_unlock(&tab.lock);
	return cls;
}

/* add writes SpanAlloc of [base, base+len) with class cls and the stack
 * st (NULL: the kept site ref, or none), and notes it in the table. */
static void add(struct gt_thread *t, uintptr_t base, size_t len, unsigned cls, struct gt_stack *st, int stack_ev,
		uint32_t ref)
{
	uint64_t ts = gt_now();
	struct section s;
	if (!open_for(&s, t, ts))
		return;
	struct gt_span sp = { .base = base, .len = len, .cls = (uint8_t)cls, .site_gen = s.gen };
	if (st) {
		uint64_t id = gt_stack_take_id(t, s.gen, st);
		sp.site = id <= UINT32_MAX ? (uint32_t)id : 0;
		if (st->n == 0 && st->memo) { /* a remembered stack: its frames, as gt_stack_take_id_slow */
			st->pcs[0] = st->site;
			memcpy(st->pcs + 1, st->memo->ip, st->memo->n * sizeof *st->memo->ip);
			st->n = 1 + st->memo->n;
		}
		sp.site_ref = gt_spansite_keep(st->pcs, st->n, gt_hash_words(st->pcs, st->n));
	} else if (ref) {
		uint64_t id = gt_spansite_id(ref, s.gen);
		sp.site = id <= UINT32_MAX ? (uint32_t)id : 0;
		sp.site_ref = ref;
	}
	/* In the table inside the section: the flusher's snapshot of the next
	 * generation (taken after this section was waited for) sees it. A
	 * span another thread wrote there first (two threads making the same
	 * reserved pages accessible) stays, and this one is not written. */
	gt_lock(&tab.lock);
	size_t i = first_after(&tab, base);
	int room = !(i < tab.n && tab.v[i].base < base + len) && insert_at(&tab, i, &sp) == 0;
	gt_unlock(&tab.lock);
	if (room) {
		if (stack_ev)
			ev2(s.b, GT_EV_GOROUTINE_STACK_ALLOC, ts, base / PAGE, gt_span_stack_order(len));
		ev3(s.b, GT_EV_SPAN_ALLOC, ts, base / PAGE, len / PAGE, kindclass(&sp, s.gen));
	}
	section_close(&s);
}

void gt_span_mapped(struct gt_thread *t, uintptr_t base, size_t len, unsigned cls, uintptr_t site, uintptr_t ra,
		    uintptr_t cfa)
{
	uintptr_t hi = page_up(base + len);
	if (maybe(&tab, base, hi - base))
		unmap_range(t, base, hi); /* MAP_FIXED over known spans */
	struct gt_stack st;
	gt_stack_take_at(&st, site, ra, cfa);
	add(t, base, hi - base, cls, &st, 0, 0);
}

uint32_t gt_span_site_here(struct gt_thread *t, uintptr_t site)
{
	t->inside++;
	uint32_t ref = 0;
	struct gt_side *side = gt_thread_side(t);
	if (side) {
		unsigned n = gt_stack_capture(side->pcs, site);
		ref = gt_spansite_keep(side->pcs, n, gt_hash_words(side->pcs, n));
	}
	t->inside--;
	return ref;
}

void gt_span_thread_stack(struct gt_thread *t, uintptr_t base, size_t len, uint32_t site_ref)
{
	struct gt_side *side = gt_thread_side(t);
	if (!side || !len || (base | len) & (PAGE - 1))
		return;
	side->stack_base = base;
	side->stack_len = len;
	if (maybe(&tab, base, len))
		unmap_range(t, base, base + len); /* a reused block's stale spans */
	add(t, base, len, GT_SPAN_STACK, NULL, 1, site_ref);
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
			remove_at(&tab, i);
		else
			i++;
	}
}

void gt_span_reserved(uintptr_t base, size_t len)
{
	uintptr_t hi = page_up(base + len);
	if (hi <= base)
		return;
	struct gt_span r = { .base = base, .len = hi - base };
	struct cut c;
	gt_lock(&res.lock);
	while (cut_one(&res, base, hi, &c)) /* stale ones: unmapped unseen */
		;
	insert_at(&res, first_after(&res, base), &r);
	gt_unlock(&res.lock);
}

/* reserved_piece: the first part of [lo, hi) inside a reservation, or 0. */
static int reserved_piece(uintptr_t lo, uintptr_t hi, uintptr_t *plo, uintptr_t *phi)
{
	int found = 0;
	gt_lock(&res.lock);
	size_t i = first_after(&res, lo);
	if (i < res.n && res.v[i].base < hi) {
		*plo = res.v[i].base > lo ? res.v[i].base : lo;
		uintptr_t e = res.v[i].base + res.v[i].len;
		*phi = e < hi ? e : hi;
		found = 1;
	}
	gt_unlock(&res.lock);
	return found;
}

/* span_gap: the first part of [lo, hi) no span covers, or 0. */
static int span_gap(uintptr_t lo, uintptr_t hi, uintptr_t *glo, uintptr_t *ghi)
{
	int found = 0;
	gt_lock(&tab.lock);
	size_t i = first_after(&tab, lo);
	while (i < tab.n && tab.v[i].base <= lo && lo < hi) {
		lo = tab.v[i].base + tab.v[i].len;
		i++;
	}
	if (lo < hi) {
		*glo = lo;
		*ghi = i < tab.n && tab.v[i].base < hi ? tab.v[i].base : hi;
		found = 1;
	}
	gt_unlock(&tab.lock);
	return found;
}

void gt_span_protecting(struct gt_thread *t, uintptr_t base, size_t len, int none, unsigned cls, uintptr_t site,
			uintptr_t ra, uintptr_t cfa)
{
	uintptr_t lo = base & ~(PAGE - 1), hi = page_up(base + len);
	uintptr_t plo, phi;
	int stack_taken = 0;
	struct gt_stack st;
	while (lo < hi && reserved_piece(lo, hi, &plo, &phi)) {
		if (none) {
			if (maybe(&tab, plo, phi - plo))
				unmap_range(t, plo, phi);
		} else {
			uintptr_t glo, ghi, at = plo;
			while (at < phi && span_gap(at, phi, &glo, &ghi)) {
				if (!stack_taken) {
					gt_stack_take_at(&st, site, ra, cfa);
					stack_taken = 1;
				}
				add(t, glo, ghi - glo, cls, &st, 0, 0);
				at = ghi;
			}
		}
		lo = phi;
	}
}

static _Atomic uintptr_t brk_start;

void gt_span_brk_start(uintptr_t start)
{
	uintptr_t z = 0;
	atomic_compare_exchange_strong(&brk_start, &z, start);
}

void gt_span_brk_moved(struct gt_thread *t, uintptr_t old_end, uintptr_t new_end, uintptr_t site, uintptr_t ra,
		       uintptr_t cfa)
{
	uintptr_t start = atomic_load(&brk_start);
	if (!start || old_end < start || new_end < start)
		return;
	uintptr_t was = page_up(old_end) - start, now = page_up(new_end) - start;
	if (was == now)
		return;
	struct gt_stack st;
	gt_stack_take_at(&st, site, ra, cfa);
	uint64_t ts = gt_now();
	struct section s;
	if (!open_for(&s, t, ts))
		return;
	if (was)
		ev1(s.b, GT_EV_SPAN_FREE, ts, start / PAGE);
	if (now) {
		uint64_t id = gt_stack_take_id(t, s.gen, &st);
		ev3(s.b, GT_EV_SPAN_ALLOC, ts, start / PAGE, now / PAGE,
		    GT_SPAN_KINDCLASS(id <= UINT32_MAX ? id : 0, GT_SPAN_BRK));
	}
	section_close(&s);
}
