/* gen_chunks.c — a closed generation's event batches (gen_chunks.h). */
#include "gen_chunks.h"

#include <string.h>

#include "wake_ins.h"

void gt_gen_chunks_add(struct gt_gen_chunks *c, struct gt_chunk *ch)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct gt_chunk **v = gt_gen_alloc(cap * sizeof *v);
		if (!v) {
			gt_chunk_put(ch);
			return;
		}
		if (c->n)
			memcpy(v, c->v, c->n * sizeof *v);
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = ch;
}

void gt_gen_chunks_add_full(struct gt_gen_chunks *c, uint64_t gen)
{
	for (struct gt_chunk *ch = gt_chunk_take_full(gen), *next; ch; ch = next) {
		next = ch->next;
		gt_gen_chunks_add(c, ch);
	}
}

/* Writer order: serial, then index. A heap sort in place (qsort may
 * allocate). */
static int chunk_before(const struct gt_chunk *x, const struct gt_chunk *y)
{
	return x->serial != y->serial ? x->serial < y->serial : x->index < y->index;
}

static void sift(struct gt_chunk **v, size_t at, size_t n)
{
	for (;;) {
		size_t big = at, l = 2 * at + 1, r = l + 1;
		if (l < n && chunk_before(v[big], v[l]))
			big = l;
		if (r < n && chunk_before(v[big], v[r]))
			big = r;
		if (big == at)
			return;
		struct gt_chunk *t = v[at];
		v[at] = v[big];
		v[big] = t;
		at = big;
	}
}

static void sort_chunks(struct gt_chunk **v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (size_t end = n; end-- > 1;) {
		struct gt_chunk *t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift(v, 0, end);
	}
}

void gt_gen_chunks_write(struct gt_gen_chunks *c, struct gt_gen_out *o)
{
	sort_chunks(c->v, c->n);
	for (size_t i = 0; i < c->n; i++)
		gt_wake_ins_write(c->v[i], o); /* split around woken waiters' GoUnblocks */
}

void gt_gen_chunks_recycle(struct gt_gen_chunks *c)
{
	if (c->n)
		gt_wake_ins_reset(c->v[0]->gen); /* every insertion of it is written */
	for (size_t i = 0; i < c->n; i++)
		gt_chunk_put(c->v[i]);
}
