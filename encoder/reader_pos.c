/* reader_pos.c — bounds-checked reads inside one batch payload, with offset-naming errors. */
#include "reader_pos.h"

#include <stdarg.h>

#include "varint.h"

void gt_rpos_init(struct gt_rpos *p, const struct gt_rbatch *b)
{
	static const uint8_t none[1];
	p->data = b->data ? b->data : none;
	p->len = b->data ? b->len : 0;
	p->pos = 0;
	p->file_off = b->data_offset;
	p->failed = false;
	p->err[0] = '\0';
}

int gt_rpos_fail(struct gt_rpos *p, const char *fmt, ...)
{
	if (!p->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err, sizeof p->err, fmt, ap);
		va_end(ap);
		p->failed = true;
	}
	return -1;
}

int gt_rpos_uvarint(struct gt_rpos *p, const char *name, uint64_t ev_at, uint64_t *v)
{
	int n = gt_get_uvarint(p->data + p->pos, p->len - p->pos, v);
	if (n == GT_UVARINT_SHORT)
		return gt_rpos_fail(p, "truncated %s event at offset %llu: the batch ends at offset %llu",
				    name, (unsigned long long)ev_at,
				    (unsigned long long)(p->file_off + p->len));
	if (n == GT_UVARINT_OVERFLOW)
		return gt_rpos_fail(p, "invalid uvarint (over 64 bits) at offset %llu in %s event at offset %llu",
				    (unsigned long long)gt_rpos_offset(p), name,
				    (unsigned long long)ev_at);
	p->pos += (size_t)n;
	return 0;
}

int gt_rpos_marker(struct gt_rpos *p, uint8_t marker)
{
	if (p->failed)
		return -1;
	if (p->len == 0)
		return gt_rpos_fail(p, "empty batch at offset %llu, expected a %s section",
				    (unsigned long long)p->file_off, gt_ev_name(marker));
	if (p->data[0] != marker)
		return gt_rpos_fail(p, "expected a %s section, got event %u at offset %llu",
				    gt_ev_name(marker), p->data[0], (unsigned long long)p->file_off);
	p->pos = 1;
	return 0;
}
