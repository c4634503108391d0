/* gen_out.c — a closed generation's bytes being put together (gen_out.h). */
#include "gen_out.h"

#include <string.h>

#include "region.h"

static struct gt_region mem;

void *gt_gen_alloc(size_t n)
{
	return gt_region_alloc(&mem, n);
}

void gt_gen_free_all(void)
{
	gt_region_reset(&mem);
}

void gt_gen_out_add(struct gt_gen_out *o, void *p, size_t len)
{
	if (len == 0)
		return;
	if (o->n == o->cap) {
		int cap = o->cap ? o->cap * 2 : 64;
		struct iovec *iov = gt_gen_alloc((size_t)cap * sizeof *iov);
		if (!iov)
			return;
		if (o->n)
			memcpy(iov, o->iov, (size_t)o->n * sizeof *iov);
		o->iov = iov;
		o->cap = cap;
	}
	o->iov[o->n].iov_base = p;
	o->iov[o->n].iov_len = len;
	o->n++;
}

void gt_gen_batch_close(struct gt_gen_batch *t)
{
	if (!t->open)
		return;
	size_t len = gt_batch_finish(&t->b);
	gt_gen_out_add(t->o, t->b.mem, len);
	t->open = 0;
}

int gt_gen_batch_room_slow(struct gt_gen_batch *t, size_t need)
{
	(void)need; /* more than the open batch has left; a new one has GT_MAX_BATCH */
	gt_gen_batch_close(t);
	uint8_t *mem = gt_gen_alloc(GT_GEN_BATCH_CAP);
	if (!mem)
		return -1;
	gt_batch_begin(&t->b, mem, GT_GEN_BATCH_CAP, t->gen, t->m, t->ts);
	if (t->section)
		gt_batch_byte(&t->b, t->section);
	t->open = 1;
	return 0;
}
