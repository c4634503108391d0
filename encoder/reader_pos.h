/* reader_pos.h — bounds-checked reads inside one batch payload (reader internals). */
#ifndef GT_READER_POS_H
#define GT_READER_POS_H

#include "reader.h"

/* gt_rpos_init points p at a batch's payload. */
void gt_rpos_init(struct gt_rpos *p, const struct gt_rbatch *b);

/* gt_rpos_fail records a message (first one wins) and returns -1. */
int gt_rpos_fail(struct gt_rpos *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* gt_rpos_offset returns the file offset of the next unread payload byte. */
static inline uint64_t gt_rpos_offset(const struct gt_rpos *p) { return p->file_off + p->pos; }

static inline bool gt_rpos_done(const struct gt_rpos *p) { return p->pos >= p->len; }

/* gt_rpos_uvarint reads one uvarint of the `name` event that starts at file
 * offset `ev_at`; on a short or overflowing uvarint it fails with a message
 * naming both. Returns 0 or -1. */
int gt_rpos_uvarint(struct gt_rpos *p, const char *name, uint64_t ev_at, uint64_t *v);

/* gt_rpos_marker checks the section marker byte that must open the payload
 * (Strings, Stacks, CPUSamples, Sync) and steps over it. Returns 0 or -1. */
int gt_rpos_marker(struct gt_rpos *p, uint8_t marker);

#endif
