/* varint.h — decodes unsigned LEB128 (Go's binary.Uvarint) from memory. */
#ifndef GT_VARINT_H
#define GT_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Results of gt_get_uvarint other than a length. */
#define GT_UVARINT_SHORT 0      /* the bytes ran out before the last byte */
#define GT_UVARINT_OVERFLOW (-1) /* more than 10 bytes, or a value >= 2^64 */

/* gt_get_uvarint decodes one uvarint from p[0..avail) into *v and returns
 * its length (1..10), GT_UVARINT_SHORT or GT_UVARINT_OVERFLOW. It reads at
 * most min(avail, 10) bytes. Padded (non-minimal) encodings are accepted, as
 * Go accepts them; the 10th byte may only be 0 or 1. */
int gt_get_uvarint(const uint8_t *p, size_t avail, uint64_t *v);

/* gt_uvarint_step feeds byte number i (0-based) of a uvarint into *acc and
 * returns 1 if more bytes follow, 0 if this was the last byte, or
 * GT_UVARINT_OVERFLOW. For readers that get one byte at a time. */
int gt_uvarint_step(uint64_t *acc, unsigned i, uint8_t byte);

#endif
