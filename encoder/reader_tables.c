/* reader_tables.c — cursors over string-table, stack-table and CPU-sample batches. */
#include "reader_pos.h"

typedef unsigned long long ull;

/* next_entry starts the next entry of a table section: 0 at the end, -1 on
 * an error, 1 with *at = the entry's file offset after stepping over its
 * type byte, which must be `type`. */
static int next_entry(struct gt_rpos *p, uint8_t type, uint64_t *at)
{
	if (p->failed)
		return -1;
	if (gt_rpos_done(p))
		return 0;
	*at = gt_rpos_offset(p);
	uint8_t got = p->data[p->pos++];
	if (got != type)
		return gt_rpos_fail(p, "expected %s event, got event %u at offset %llu",
				    gt_ev_name(type), got, (ull)*at);
	return 1;
}

int gt_strings_begin(struct gt_string_cursor *c, const struct gt_rbatch *b)
{
	gt_rpos_init(&c->at, b);
	return gt_rpos_marker(&c->at, GT_EV_STRINGS);
}

int gt_strings_next(struct gt_string_cursor *c, struct gt_string *s)
{
	struct gt_rpos *p = &c->at;
	uint64_t at, len;
	int r = next_entry(p, GT_EV_STRING, &at);
	if (r <= 0)
		return r;
	s->offset = at;
	if (gt_rpos_uvarint(p, "String", at, &s->id) || gt_rpos_uvarint(p, "String", at, &len))
		return -1;
	if (len > GT_MAX_STRING)
		return gt_rpos_fail(p, "invalid string size %llu, maximum is %d (String event at offset %llu)",
				    (ull)len, GT_MAX_STRING, (ull)at);
	if (len > p->len - p->pos)
		return gt_rpos_fail(p, "truncated String event at offset %llu: %llu bytes of data, %zu left in the batch",
				    (ull)at, (ull)len, p->len - p->pos);
	s->data = p->data + p->pos;
	s->len = (size_t)len;
	p->pos += s->len;
	return 1;
}

int gt_stacks_begin(struct gt_stack_cursor *c, const struct gt_rbatch *b)
{
	gt_rpos_init(&c->at, b);
	return gt_rpos_marker(&c->at, GT_EV_STACKS);
}

int gt_stacks_next(struct gt_stack_cursor *c, struct gt_stack *s)
{
	struct gt_rpos *p = &c->at;
	uint64_t at, n;
	int r = next_entry(p, GT_EV_STACK, &at);
	if (r <= 0)
		return r;
	s->offset = at;
	if (gt_rpos_uvarint(p, "Stack", at, &s->id) || gt_rpos_uvarint(p, "Stack", at, &n))
		return -1;
	if (n > GT_MAX_FRAMES)
		return gt_rpos_fail(p, "invalid stack size %llu, maximum is %d (Stack event at offset %llu)",
				    (ull)n, GT_MAX_FRAMES, (ull)at);
	s->nframes = (size_t)n;
	for (size_t i = 0; i < s->nframes; i++) {
		struct gt_frame *f = &s->frames[i];
		if (gt_rpos_uvarint(p, "Stack", at, &f->pc) || gt_rpos_uvarint(p, "Stack", at, &f->func) ||
		    gt_rpos_uvarint(p, "Stack", at, &f->file) || gt_rpos_uvarint(p, "Stack", at, &f->line))
			return -1;
	}
	return 1;
}

int gt_cpu_samples_begin(struct gt_cpu_sample_cursor *c, const struct gt_rbatch *b)
{
	gt_rpos_init(&c->at, b);
	return gt_rpos_marker(&c->at, GT_EV_CPU_SAMPLES);
}

int gt_cpu_samples_next(struct gt_cpu_sample_cursor *c, struct gt_cpu_sample *s)
{
	struct gt_rpos *p = &c->at;
	uint64_t at;
	int r = next_entry(p, GT_EV_CPU_SAMPLE, &at);
	if (r <= 0)
		return r;
	s->offset = at;
	uint64_t *f[] = { &s->time, &s->m, &s->p, &s->g, &s->stack };
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (gt_rpos_uvarint(p, "CPUSample", at, f[i]))
			return -1;
	return 1;
}
