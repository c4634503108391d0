/* writer.c — the out-of-line writer pieces: file header, table events, sync batch. */
#include "writer.h"

static bool format_known(int format)
{
	return format == GT_FORMAT_22 || format == GT_FORMAT_23 || format == GT_FORMAT_25 ||
	       format == GT_FORMAT_26;
}

size_t gt_write_header(uint8_t out[GT_HEADER_LEN], int format)
{
	if (!format_known(format))
		return 0;
	/* "go 1.NN trace" and three NULs: 13 + 3 bytes. */
	memcpy(out, "go 1.00 trace\0\0\0", GT_HEADER_LEN);
	out[5] = (uint8_t)('0' + format / 10);
	out[6] = (uint8_t)('0' + format % 10);
	return GT_HEADER_LEN;
}

void gt_batch_string(struct gt_batch *b, uint64_t id, const char *s, size_t len)
{
	if (len > GT_MAX_STRING)
		len = GT_MAX_STRING;
	gt_batch_byte(b, GT_EV_STRING);
	gt_batch_uvarint(b, id);
	gt_batch_uvarint(b, len);
	gt_batch_bytes(b, s, len);
}

void gt_batch_stack(struct gt_batch *b, uint64_t id, const struct gt_frame *frames, size_t n)
{
	/* Leaf first, so dropping the tail keeps the innermost frames. */
	if (n > GT_MAX_FRAMES)
		n = GT_MAX_FRAMES;
	gt_batch_byte(b, GT_EV_STACK);
	gt_batch_uvarint(b, id);
	gt_batch_uvarint(b, n);
	for (size_t i = 0; i < n; i++) {
		gt_batch_uvarint(b, frames[i].pc);
		gt_batch_uvarint(b, frames[i].func);
		gt_batch_uvarint(b, frames[i].file);
		gt_batch_uvarint(b, frames[i].line);
	}
}

/* sync_payload writes the payload of a sync batch into p and returns its
 * length (at most 53) and the base time the batch header must carry. */
static size_t sync_payload(uint8_t *p, int format, uint64_t freq,
			   const struct gt_clock_snapshot *snap, uint64_t *base)
{
	size_t n = 0;
	if (format < GT_FORMAT_25) {
		*base = snap->ts;
		p[n++] = GT_EV_FREQUENCY;
		n += gt_put_uvarint(p + n, freq);
		return n;
	}
	/* The snapshot's time is base + dt; keep base > 0 where we can. */
	*base = snap->ts > 1 ? snap->ts - 1 : snap->ts;
	p[n++] = GT_EV_SYNC;
	p[n++] = GT_EV_FREQUENCY;
	n += gt_put_uvarint(p + n, freq);
	p[n++] = GT_EV_CLOCK_SNAPSHOT;
	n += gt_put_uvarint(p + n, snap->ts - *base);
	n += gt_put_uvarint(p + n, snap->mono_ns);
	n += gt_put_uvarint(p + n, snap->wall_sec);
	n += gt_put_uvarint(p + n, snap->wall_nsec);
	return n;
}

size_t gt_write_sync(uint8_t *out, int format, uint64_t gen, uint64_t freq,
		     const struct gt_clock_snapshot *snap)
{
	if (!format_known(format) || !snap)
		return 0;
	uint8_t payload[64];
	uint64_t base;
	size_t plen = sync_payload(payload, format, freq, snap, &base);

	/* Built aside first: the caller's buffer holds GT_SYNC_MAX bytes, while
	 * ten-byte fields everywhere would need 85. Written in one go, so the
	 * size is a plain (minimal) uvarint. */
	uint8_t all[1 + 4 * GT_UVARINT_MAX + sizeof payload];
	size_t n = 0;
	all[n++] = GT_EV_BATCH;
	n += gt_put_uvarint(all + n, gen);
	n += gt_put_uvarint(all + n, GT_NO_THREAD);
	n += gt_put_uvarint(all + n, base);
	n += gt_put_uvarint(all + n, plen);
	memcpy(all + n, payload, plen);
	n += plen;
	if (n > GT_SYNC_MAX)
		return 0;
	memcpy(out, all, n);
	return n;
}
