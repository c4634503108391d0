/* reader_sync.c — decodes a generation's sync batch: frequency and clock snapshot. */
#include <string.h>

#include "reader_pos.h"

typedef unsigned long long ull;

/* frequency reads the argument of a Frequency event at `at`. */
static int frequency(struct gt_rpos *p, uint64_t at, struct gt_sync *s)
{
	if (s->freq != 0)
		return gt_rpos_fail(p, "found multiple frequency events (second at offset %llu)", (ull)at);
	if (gt_rpos_uvarint(p, "Frequency", at, &s->freq))
		return -1;
	if (s->freq == 0)
		return gt_rpos_fail(p, "invalid frequency 0 at offset %llu", (ull)at);
	return 0;
}

/* clock_snapshot reads a ClockSnapshot event at `at`: dt, mono, sec, nsec. */
static int clock_snapshot(struct gt_rpos *p, uint64_t at, uint64_t base, struct gt_sync *s)
{
	if (s->has_clock)
		return gt_rpos_fail(p, "found multiple clock snapshot events (second at offset %llu)", (ull)at);
	uint64_t dt;
	struct gt_clock_snapshot *k = &s->clock;
	if (gt_rpos_uvarint(p, "ClockSnapshot", at, &dt) || gt_rpos_uvarint(p, "ClockSnapshot", at, &k->mono_ns) ||
	    gt_rpos_uvarint(p, "ClockSnapshot", at, &k->wall_sec) ||
	    gt_rpos_uvarint(p, "ClockSnapshot", at, &k->wall_nsec))
		return -1;
	if (dt > UINT64_MAX - base)
		return gt_rpos_fail(p, "timestamp overflow in ClockSnapshot event at offset %llu", (ull)at);
	k->ts = base + dt;
	s->has_clock = true;
	return 0;
}

/* Before 1.25 the batch is exactly one Frequency event; from 1.25 on it is
 * a Sync marker followed by Frequency and ClockSnapshot, each exactly once,
 * in either order. The first byte tells which (the reader classified the
 * batch by the header's version already). */
static int decode(struct gt_rpos *p, uint64_t base, struct gt_sync *s)
{
	if (p->len > 0 && p->data[0] == GT_EV_FREQUENCY) {
		p->pos = 1;
		if (frequency(p, p->file_off, s))
			return -1;
		if (!gt_rpos_done(p))
			return gt_rpos_fail(p, "unexpected event %u after Frequency at offset %llu",
					    p->data[p->pos], (ull)gt_rpos_offset(p));
		return 0;
	}
	if (gt_rpos_marker(p, GT_EV_SYNC))
		return -1;
	while (!gt_rpos_done(p)) {
		uint64_t at = gt_rpos_offset(p);
		uint8_t type = p->data[p->pos++];
		int r;
		if (type == GT_EV_FREQUENCY)
			r = frequency(p, at, s);
		else if (type == GT_EV_CLOCK_SNAPSHOT)
			r = clock_snapshot(p, at, base, s);
		else
			r = gt_rpos_fail(p, "expected frequency or clock snapshot event, got event %u at offset %llu",
					 type, (ull)at);
		if (r)
			return -1;
	}
	if (s->freq == 0)
		return gt_rpos_fail(p, "no frequency event found in the sync batch at offset %llu",
				    (ull)p->file_off);
	if (!s->has_clock)
		return gt_rpos_fail(p, "no clock snapshot event found in the sync batch at offset %llu",
				    (ull)p->file_off);
	return 0;
}

int gt_sync_decode(const struct gt_rbatch *b, struct gt_sync *s, char err[GT_READER_ERR])
{
	struct gt_rpos p;
	gt_rpos_init(&p, b);
	memset(s, 0, sizeof *s);
	if (decode(&p, b->base_ts, s) == 0)
		return 0;
	memcpy(err, p.err, GT_READER_ERR);
	return -1;
}
