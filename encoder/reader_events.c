/* reader_events.c — cursor over the timed events of one event batch. */
#include "reader_pos.h"

typedef unsigned long long ull;

void gt_events_begin(struct gt_event_cursor *c, const struct gt_rbatch *b)
{
	gt_rpos_init(&c->at, b);
	c->ts = b->base_ts;
}

/* There is no length field: the argument count comes from the type, so an
 * unknown type leaves the rest of the batch undecodable and is an error. */
int gt_events_next(struct gt_event_cursor *c, struct gt_event *ev)
{
	struct gt_rpos *p = &c->at;
	if (p->failed)
		return -1;
	if (gt_rpos_done(p))
		return 0;

	uint64_t at = gt_rpos_offset(p);
	uint8_t type = p->data[p->pos++];
	int nargs = gt_ev_nargs(type);
	const char *name = gt_ev_name(type);
	if (nargs < 0 && name[0] != '?')
		return gt_rpos_fail(p, "found event without a timestamp: type=%u (%s) at offset %llu",
				    type, name, (ull)at);
	if (nargs < 0)
		return gt_rpos_fail(p, "unknown event type %u at offset %llu", type, (ull)at);

	*ev = (struct gt_event){ .type = type, .nargs = nargs, .offset = at };
	if (gt_rpos_uvarint(p, name, at, &ev->dt))
		return -1;
	if (ev->dt > UINT64_MAX - c->ts)
		return gt_rpos_fail(p, "timestamp overflow in %s event at offset %llu: %llu + dt %llu",
				    name, (ull)at, (ull)c->ts, (ull)ev->dt);
	c->ts += ev->dt;
	ev->ts = c->ts;
	for (int i = 0; i < nargs; i++)
		if (gt_rpos_uvarint(p, name, at, &ev->args[i]))
			return -1;
	return 1;
}
