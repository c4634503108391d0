/* gen_tables.h — one generation's string and stack tables, as `gotrace heap`
 * and `gotrace stat` keep them: read from the generation's String and Stack
 * batches, looked up by id while its events are replayed, and interned into
 * the trace-wide strings, frames and sites (tools/heap_sites.h) on first
 * use, since ids mean nothing outside their generation.
 *
 * A repeated id keeps its first definition. Ids not defined (and 0) are the
 * empty string and the site without frames. */
#ifndef TOOLS_GEN_TABLES_H
#define TOOLS_GEN_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "encoder/reader.h"
#include "tools/heap_map.h"
#include "tools/heap_sites.h"

struct tool_gen_str {
	size_t off;      /* into chars */
	uint32_t len;
	uint32_t global; /* interned string, or TOOL_SITE_NONE until needed */
};
struct tool_gen_stack {
	size_t off;      /* into frames: 4 values (pc, func, file, line) per frame */
	uint32_t n;
	uint32_t site;   /* interned site, or TOOL_SITE_NONE until needed */
};

struct tool_gen_tables {
	struct tool_hmap strings, stacks; /* id -> index in str / stk */
	struct tool_gen_str *str;
	size_t nstr, cap_str;
	char *chars;
	size_t nchars, cap_chars;
	struct tool_gen_stack *stk;
	size_t nstk, cap_stk;
	uint64_t *frames;
	size_t nframes, cap_frames;
	uint32_t empty_site;              /* the site without frames, TOOL_SITE_NONE until needed */
};

/* tool_gen_init prepares empty tables (no allocation); tool_gen_free
 * releases them; tool_gen_clear forgets the generation's tables and keeps
 * memory for the next one. */
void tool_gen_init(struct tool_gen_tables *t);
void tool_gen_free(struct tool_gen_tables *t);
void tool_gen_clear(struct tool_gen_tables *t);

/* tool_gen_read_strings adds a String batch's strings. fresh, when not
 * NULL, sees each string whose id is new to the generation, in order.
 * tool_gen_read_stacks adds a Stack batch's stacks. Both return 0, -1 with
 * the reader's message in err, or -2 when out of memory. */
int tool_gen_read_strings(struct tool_gen_tables *t, const struct gt_rbatch *b,
			  void (*fresh)(void *ctx, const void *data, size_t len), void *ctx,
			  char *err, size_t errsz);
int tool_gen_read_stacks(struct tool_gen_tables *t, const struct gt_rbatch *b, char *err, size_t errsz);

/* tool_gen_string returns the interned string of a string id (0, "", for 0
 * or an id the generation does not define), or TOOL_SITE_NONE when out of
 * memory. */
uint32_t tool_gen_string(struct tool_gen_tables *t, struct tool_sites *sites, uint64_t id);

/* tool_gen_site returns the site of a stack id (the site without frames
 * for 0 or an id the generation does not define; at most GT_MAX_FRAMES
 * frames), or TOOL_SITE_NONE when out of memory. */
uint32_t tool_gen_site(struct tool_gen_tables *t, struct tool_sites *sites, uint64_t id);

#endif
