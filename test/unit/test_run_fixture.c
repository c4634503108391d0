/* test_run_fixture.c — traces with a process identity (test_run_fixture.h). */
#include "test_run_fixture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "test_heap_fixture.h"

size_t rx_trace(uint8_t *buf, size_t cap, int format, unsigned gens, long pid, long ppid, const char *cmd,
		unsigned pad)
{
	static char ident[1100], filler[1001];
	struct hx t;
	memset(filler, 'x', 1000);
	if (cmd)
		snprintf(ident, sizeof ident, "gotrace.process pid=%ld ppid=%ld cmd=%s", pid, ppid, cmd);
	hx_begin(&t, buf, cap, format);
	for (unsigned g = 1; g <= gens; g++) {
		uint64_t t0 = g * 1000000u;
		hx_sync(&t, g, t0);
		const char *s[] = { "main", cmd ? ident : "sync" };
		hx_strings(&t, g, 1, s, 2);
		for (unsigned i = 0; i < pad; i++) {
			const char *f[] = { filler };
			hx_strings(&t, g, 3 + i, f, 1);
		}
		const struct hx_ev ev[] = { { GT_EV_PROC_STATUS, t0 + 10, 0, 1 } };
		hx_events(&t, g, 1, ev, 1);
		hx_end_gen(&t);
	}
	cr_assert(!t.full, "rx_trace: %zu bytes are not enough", cap);
	return t.len;
}

void rx_write(const char *dir, const char *name, const void *bytes, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot create %s", path);
	cr_assert_eq(fwrite(bytes, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}
