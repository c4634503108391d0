/* spans.c — the events of mappings made and unmade (spans.h); the tables
 * they keep are core/spantab.c's. */
#include "spans.h"

#include <errno.h>
#include <string.h>

#include "clock.h"
#include "lock.h"
#include "region.h"
#include "section.h"
#include "spantab.h"
#include "hash.h"
#include "heapsite.h"
#include "stack.h"
#include "tracer.h"

#define PAGE ((uintptr_t)GT_SPAN_PAGE)

/* The tables (core/spantab.h): spans written, and reservations. */
static struct gt_spantab *const tab = &gt_spantab_spans, *const res = &gt_spantab_res;

int gt_spans_on(void)
{
	return gt.malloc_events && atomic_load_explicit(&gt.on, memory_order_relaxed);
}


/* unreserve takes [lo, hi) out of the reservations (no event). */
static void unreserve(uintptr_t lo, uintptr_t hi)
{
	if (!gt_spantab_maybe(res, lo, hi - lo))
		return;
	struct gt_span_cut c;
	gt_lock(&res->lock);
	while (gt_spantab_cut_one(res, lo, hi, &c))
		;
	gt_unlock(&res->lock);
}

/* kindclass: s's class and site in generation gen (the site put in gen's
 * stack table again when it was written in another one). In a section of
 * gen. */
static uint64_t kindclass(const struct gt_span *s, uint64_t gen)
{
	uint64_t site = s->site_gen == gen ? s->site : gt_heapsite_stack_id(s->site_ref, gen);
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
		struct gt_span_cut c;
		gt_lock(&tab->lock);
		int any = gt_spantab_cut_one(tab, lo, hi, &c);
		gt_unlock(&tab->lock);
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
	if (gt_spantab_maybe(tab, lo, hi - lo))
		unmap_range(t, lo, hi);
}

int gt_span_class_at(uintptr_t base, size_t len)
{
	int cls = -1;
	gt_lock(&tab->lock);
	size_t i = gt_spantab_first_after(tab, base);
	if (i < tab->n && tab->v[i].base <= base && base + len <= tab->v[i].base + tab->v[i].len)
		cls = tab->v[i].cls;
	gt_unlock(&tab->lock);
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
		sp.site_ref = gt_heapsite_get(st->pcs, st->n, gt_hash_words(st->pcs, st->n));
	} else if (ref) {
		uint64_t id = gt_heapsite_stack_id(ref, s.gen);
		sp.site = id <= UINT32_MAX ? (uint32_t)id : 0;
		sp.site_ref = ref;
	}
	/* In the table inside the section: the flusher's snapshot of the next
	 * generation (taken after this section was waited for) sees it. A
	 * span another thread wrote there first (two threads making the same
	 * reserved pages accessible) stays, and this one is not written. */
	gt_lock(&tab->lock);
	size_t i = gt_spantab_first_after(tab, base);
	int room = !(i < tab->n && tab->v[i].base < base + len) && gt_spantab_insert_at(tab, i, &sp) == 0;
	gt_unlock(&tab->lock);
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
	if (gt_spantab_maybe(tab, base, hi - base))
		unmap_range(t, base, hi); /* MAP_FIXED over known spans */
	struct gt_stack st;
	gt_stack_take_at(&st, site, ra, cfa);
	add(t, base, hi - base, cls, &st, 0, 0);
}

void gt_span_thread_stack(struct gt_thread *t, uintptr_t base, size_t len, uint32_t site_ref)
{
	struct gt_side *side = gt_thread_side(t);
	if (!side || !len || (base | len) & (PAGE - 1))
		return;
	side->stack_base = base;
	side->stack_len = len;
	if (gt_spantab_maybe(tab, base, len))
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

void gt_span_reserved(uintptr_t base, size_t len)
{
	uintptr_t hi = page_up(base + len);
	if (hi <= base)
		return;
	struct gt_span r = { .base = base, .len = hi - base };
	struct gt_span_cut c;
	gt_lock(&res->lock);
	while (gt_spantab_cut_one(res, base, hi, &c)) /* stale ones: unmapped unseen */
		;
	gt_spantab_insert_at(res, gt_spantab_first_after(res, base), &r);
	gt_unlock(&res->lock);
}

/* reserved_piece: the first part of [lo, hi) inside a reservation, or 0. */
static int reserved_piece(uintptr_t lo, uintptr_t hi, uintptr_t *plo, uintptr_t *phi)
{
	int found = 0;
	gt_lock(&res->lock);
	size_t i = gt_spantab_first_after(res, lo);
	if (i < res->n && res->v[i].base < hi) {
		*plo = res->v[i].base > lo ? res->v[i].base : lo;
		uintptr_t e = res->v[i].base + res->v[i].len;
		*phi = e < hi ? e : hi;
		found = 1;
	}
	gt_unlock(&res->lock);
	return found;
}

/* span_gap: the first part of [lo, hi) no span covers, or 0. */
static int span_gap(uintptr_t lo, uintptr_t hi, uintptr_t *glo, uintptr_t *ghi)
{
	int found = 0;
	gt_lock(&tab->lock);
	size_t i = gt_spantab_first_after(tab, lo);
	while (i < tab->n && tab->v[i].base <= lo && lo < hi) {
		lo = tab->v[i].base + tab->v[i].len;
		i++;
	}
	if (lo < hi) {
		*glo = lo;
		*ghi = i < tab->n && tab->v[i].base < hi ? tab->v[i].base : hi;
		found = 1;
	}
	gt_unlock(&tab->lock);
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
			if (gt_spantab_maybe(tab, plo, phi - plo))
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

void gt_span_brk_moved(struct gt_thread *t, uintptr_t old_end, uintptr_t new_end, uintptr_t site, uintptr_t ra,
		       uintptr_t cfa)
{
	uintptr_t start = atomic_load(&gt_span_brk_base);
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
