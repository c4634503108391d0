/* test_stat_fixture.c — the shared parts of the stat accounting tests'
 * synthetic traces (test_stat_fixture.h). */
#include "test_stat_fixture.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

void sx_append(struct hx *t, const uint8_t *batch, size_t len)
{
	cr_assert(t->cap - t->len >= len);
	memcpy(t->buf + t->len, batch, len);
	t->len += len;
}

void sx_stacks(struct hx *t, const int (*funcs)[4], int n, uint64_t file)
{
	for (int k = 1; k < n; k++) {
		struct gt_frame f[4];
		size_t nf = 0;
		for (; nf < 4 && funcs[k][nf]; nf++)
			f[nf] = (struct gt_frame){ 0x1000 * (uint64_t)k + nf, (uint64_t)funcs[k][nf], file,
						   10 * (uint64_t)k + nf };
		hx_stack(t, 1, SX_STACK_BASE + (uint64_t)k, f, nf);
	}
}

struct tool_stat *sx_read(struct hx *t)
{
	cr_assert(!t->full);
	struct tool_stat *s = malloc(sizeof *s);
	cr_assert(s && tool_stat_init(s) == 0);
	FILE *f = hx_file(t);
	cr_assert_not_null(f);
	cr_assert_eq(tool_stat_read(s, f), 0, "%s", s->err);
	fclose(f);
	return s;
}

void sx_done(struct tool_stat *s)
{
	tool_stat_free(s);
	free(s);
}
