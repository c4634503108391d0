/* units.h — numbers as a person reads them, shared by the reports. */
#ifndef TOOLS_UNITS_H
#define TOOLS_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* tool_human_bytes writes v as "245.6 KiB" (binary units; plain bytes below
 * 1 KiB) into buf and returns buf. */
const char *tool_human_bytes(uint64_t v, char *buf, size_t len);

#endif
