/* units.h — numbers as a person reads them, shared by the reports. */
#ifndef GT_UNITS_H
#define GT_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* gt_human_bytes writes v as "245.6 KiB" (binary units; plain bytes below
 * 1 KiB) into buf and returns buf. */
const char *gt_human_bytes(uint64_t v, char *buf, size_t len);

#endif
