/* rank_list.h — what the ranked lists of `gotrace cpu`, `gotrace mutex`
 * and `gotrace stat` are built and printed with (rank_list.c): a row found
 * or added by key, a function's key, whether a stack already passed
 * through a function, a list cut to its top entries, a percentage, and
 * seconds in JSON. */
#ifndef TOOLS_RANK_LIST_H
#define TOOLS_RANK_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/stat_acct.h"

/* tool_rank_row finds the row of key in the array *rows of *n rows of size
 * bytes (index: key -> position), or appends one of zero bytes (*fresh
 * true), growing the array (capacity *cap). rows is the address of the
 * array pointer. Returns the row's position, or -1 when out of memory. */
long tool_rank_row(void *rows, size_t *n, size_t *cap, size_t size, struct tool_hmap *index, uint64_t key,
		   bool *fresh);

/* tool_func_key is a frame's function (its name string), or the frame
 * itself (1 << 32 | frame) when unnamed. */
uint64_t tool_func_key(const struct tool_stat *s, uint32_t frame);

/* tool_stack_has says whether one of frames fr[0..k) is of fr[k]'s
 * function (cum counts a function once per stack). */
bool tool_stack_has(const struct tool_stat *s, const uint32_t *fr, uint32_t k);

/* tool_list_shown is how many of n entries a list cut to top shows (top
 * 0: all); tool_pct is part in percent of whole (0 when whole is 0). */
size_t tool_list_shown(size_t n, unsigned top);
double tool_pct(uint64_t part, uint64_t whole);

/* tool_json_seconds prints ns as JSON seconds: "S.NNNNNNNNN". */
void tool_json_seconds(FILE *out, uint64_t ns);

#endif
