/* units.c — numbers as a person reads them (units.h). */
#include "units.h"

#include <stdio.h>

const char *tool_human_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = (double)v;
	unsigned u = 0;
	while (d >= 1024 && u + 1 < sizeof unit / sizeof unit[0]) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	else
		snprintf(buf, len, "%.1f %s", d, unit[u]);
	return buf;
}
