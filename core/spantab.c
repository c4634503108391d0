/* spantab.c — the tables of mappings seen made (spantab.h). */
#include "spantab.h"

#include <string.h>

#include "region.h"

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
struct gt_spantab gt_spantab_spans, gt_spantab_res;

void gt_spans_lock(void) { gt_lock(&gt_spantab_spans.lock); }
void gt_spans_unlock(void) { gt_unlock(&gt_spantab_spans.lock); }
void gt_spans_after_fork(void)
{
	gt_lock_reset(&gt_spantab_spans.lock);
	gt_lock_reset(&gt_spantab_res.lock);
}

/* first_after: the index of the first range of t ending above a. */
size_t gt_spantab_first_after(struct gt_spantab *t, uintptr_t a)
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

static void bounds(struct gt_spantab *t)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	if (t->n) {
		lo = t->v[0].base;
		hi = t->v[t->n - 1].base + t->v[t->n - 1].len;
	}
	atomic_store_explicit(&t->lo, lo, memory_order_relaxed);
	atomic_store_explicit(&t->hi, hi, memory_order_relaxed);
}

int gt_spantab_insert_at(struct gt_spantab *t, size_t i, const struct gt_span *s)
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

void gt_spantab_remove_at(struct gt_spantab *t, size_t i)
{
	memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
	t->n--;
	bounds(t);
}

int gt_spantab_cut_one(struct gt_spantab *t, uintptr_t lo, uintptr_t hi, struct gt_span_cut *c)
{
	size_t i = gt_spantab_first_after(t, lo);
	if (i >= t->n || t->v[i].base >= hi)
		return 0;
	struct gt_span s = t->v[i];
	c->freed = s;
	c->nleft = 0;
	gt_spantab_remove_at(t, i);
	if (s.base < lo) {
		struct gt_span a = s;
		a.len = lo - s.base;
		c->left[c->nleft++] = a;
		gt_spantab_insert_at(t, i++, &a);
	}
	if (s.base + s.len > hi) {
		struct gt_span b = s;
		b.base = hi;
		b.len = s.base + s.len - hi;
		c->left[c->nleft++] = b;
		gt_spantab_insert_at(t, i, &b);
	}
	return 1;
}

void gt_spans_each(int (*fn)(void *ctx, struct gt_span *s), void *ctx)
{
	for (size_t i = 0; i < gt_spantab_spans.n;) {
		if (fn(ctx, &gt_spantab_spans.v[i]))
			gt_spantab_remove_at(&gt_spantab_spans, i);
		else
			i++;
	}
}

_Atomic uintptr_t gt_span_brk_base;

void gt_span_brk_start(uintptr_t start)
{
	uintptr_t z = 0;
	atomic_compare_exchange_strong(&gt_span_brk_base, &z, start);
}

