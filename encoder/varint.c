/* varint.c — uvarint decoding with Go's overflow rules. */
#include "varint.h"

#include "wire.h"

int gt_uvarint_step(uint64_t *acc, unsigned i, uint8_t byte)
{
	if (i == 0)
		*acc = 0;
	/* Byte 9 carries bit 63 only: anything above 1 (including a
	 * continuation bit) does not fit in 64 bits. */
	if (i >= GT_UVARINT_MAX || (i == GT_UVARINT_MAX - 1 && byte > 1))
		return GT_UVARINT_OVERFLOW;
	*acc |= (uint64_t)(byte & 0x7f) << (7 * i);
	return (byte & 0x80) ? 1 : 0;
}

int gt_get_uvarint(const uint8_t *p, size_t avail, uint64_t *v)
{
	uint64_t acc = 0;
	for (unsigned i = 0; i < avail && i < GT_UVARINT_MAX; i++) {
		int more = gt_uvarint_step(&acc, i, p[i]);
		if (more < 0)
			return GT_UVARINT_OVERFLOW;
		if (!more) {
			*v = acc;
			return (int)i + 1;
		}
	}
	/* Ten bytes all with the continuation bit would have overflowed above,
	 * so getting here means the input ended early. */
	return GT_UVARINT_SHORT;
}
