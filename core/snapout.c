/* snapout.c — a generation's restating batches (snapout.h). */
#include "snapout.h"

#include <string.h>

#include "../encoder/wire.h"
#include "region.h"

#define BLOCK GT_GEN_BATCH_CAP

/* need_blocks: at least n blocks mapped. */
static int need_blocks(struct gt_snapout *s, size_t n)
{
	if (n > s->capblocks) {
		size_t cap = s->capblocks ? s->capblocks * 2 : 64;
		while (cap < n)
			cap *= 2;
		uint8_t **nb = gt_map(cap * sizeof *nb);
		size_t *nl = gt_map(cap * sizeof *nl);
		if (!nb || !nl) {
			if (nb)
				gt_unmap(nb, cap * sizeof *nb);
			if (nl)
				gt_unmap(nl, cap * sizeof *nl);
			return -1;
		}
		if (s->blocks) {
			memcpy(nb, s->blocks, s->nblocks * sizeof *nb);
			memcpy(nl, s->lens, s->used * sizeof *nl);
			gt_unmap(s->blocks, s->capblocks * sizeof *s->blocks);
			gt_unmap(s->lens, s->capblocks * sizeof *s->lens);
		}
		s->blocks = nb;
		s->lens = nl;
		s->capblocks = cap;
	}
	while (s->nblocks < n) {
		uint8_t *m = gt_map(BLOCK);
		if (!m)
			return -1;
		s->blocks[s->nblocks++] = m;
	}
	return 0;
}

void gt_snapout_begin(struct gt_snapout *s, uint64_t gen, uint64_t ts)
{
	s->used = 0;
	s->open = 0;
	s->gen = gen;
	s->ts = ts;
}

int gt_snapout_next(struct gt_snapout *s)
{
	gt_snapout_end(s);
	if (need_blocks(s, s->used + 1) != 0)
		return -1;
	gt_batch_begin(&s->b, s->blocks[s->used], BLOCK, s->gen, GT_SNAPSHOT_M, s->ts);
	s->lens[s->used++] = 0;
	s->open = 1;
	return 0;
}

void gt_snapout_end(struct gt_snapout *s)
{
	if (!s->open)
		return;
	s->lens[s->used - 1] = gt_batch_finish(&s->b);
	s->open = 0;
}

size_t gt_snapout_bytes(const struct gt_snapout *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->used; i++)
		n += s->lens[i];
	return n;
}

void gt_snapout_write(const struct gt_snapout *s, struct gt_gen_out *o, uint64_t gen)
{
	if (!gen || s->gen != gen || s->open)
		return;
	for (size_t i = 0; i < s->used; i++)
		gt_gen_out_add(o, s->blocks[i], s->lens[i]);
}

void gt_snapout_done(struct gt_snapout *s)
{
	while (s->nblocks > 2 * s->used + 16)
		gt_unmap(s->blocks[--s->nblocks], BLOCK);
	gt_snapout_begin(s, 0, 0); /* holds none */
}

void gt_snapout_forget(struct gt_snapout *s)
{
	gt_snapout_begin(s, 0, 0);
}
