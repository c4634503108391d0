/* rank_list.c — the building blocks of the ranked lists (rank_list.h). */
#include "tools/rank_list.h"

#include <string.h>

long tool_rank_row(void *rows, size_t *n, size_t *cap, size_t size, struct tool_hmap *index, uint64_t key,
		   bool *fresh)
{
	struct tool_hmap_entry *e = tool_hmap_put(index, key, fresh);
	if (!e)
		return -1;
	if (*fresh) {
		if (tool_grow(rows, cap, *n + 1, size)) {
			tool_hmap_del(index, key, NULL);
			return -1;
		}
		e->val = *n;
		memset(*(char **)rows + *n * size, 0, size);
		(*n)++;
	}
	return (long)e->val;
}

uint64_t tool_func_key(const struct tool_stat *s, uint32_t frame)
{
	const struct tool_hframe *f = &s->sites.frames[frame];
	return tool_sites_strlen(&s->sites, f->func) ? f->func : 1ull << 32 | frame;
}

bool tool_stack_has(const struct tool_stat *s, const uint32_t *fr, uint32_t k)
{
	uint64_t key = tool_func_key(s, fr[k]);
	for (uint32_t j = 0; j < k; j++)
		if (tool_func_key(s, fr[j]) == key)
			return true;
	return false;
}

size_t tool_list_shown(size_t n, unsigned top)
{
	return top && top < n ? top : n;
}

double tool_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void tool_json_seconds(FILE *out, uint64_t ns)
{
	fprintf(out, "%llu.%09llu", (unsigned long long)(ns / 1000000000u), (unsigned long long)(ns % 1000000000u));
}
