/* gen_tables.c — one generation's string and stack tables (gen_tables.h). */
#include "tools/gen_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tool_gen_init(struct tool_gen_tables *t)
{
	memset(t, 0, sizeof *t);
	tool_hmap_init(&t->strings);
	tool_hmap_init(&t->stacks);
	t->empty_site = TOOL_SITE_NONE;
}

void tool_gen_free(struct tool_gen_tables *t)
{
	tool_hmap_free(&t->strings);
	tool_hmap_free(&t->stacks);
	free(t->str);
	free(t->chars);
	free(t->stk);
	free(t->frames);
	tool_gen_init(t);
}

void tool_gen_clear(struct tool_gen_tables *t)
{
	tool_hmap_clear(&t->strings);
	tool_hmap_clear(&t->stacks);
	t->nstr = t->nchars = t->nstk = t->nframes = 0;
	t->empty_site = TOOL_SITE_NONE;
}

/* slot maps a table id to index n when the id is new: 1 new, 0 repeated
 * (the first definition stays), -2 out of memory. */
static int slot(struct tool_hmap *m, uint64_t id, size_t n)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(m, id, &fresh);
	if (!e)
		return -2;
	if (fresh)
		e->val = n;
	return fresh;
}

int tool_gen_read_strings(struct tool_gen_tables *t, const struct gt_rbatch *b,
			  void (*fresh)(void *ctx, const void *data, size_t len), void *ctx,
			  char *err, size_t errsz)
{
	struct gt_string_cursor c;
	struct gt_string s;
	int r;
	if (gt_strings_begin(&c, b)) {
		snprintf(err, errsz, "%s", c.at.err);
		return -1;
	}
	while ((r = gt_strings_next(&c, &s)) > 0) {
		int is_new = slot(&t->strings, s.id, t->nstr);
		if (is_new <= 0) {
			if (is_new < 0)
				return is_new;
			continue;
		}
		if (fresh)
			fresh(ctx, s.data, s.len);
		if (tool_grow(&t->str, &t->cap_str, t->nstr + 1, sizeof *t->str) ||
		    tool_grow(&t->chars, &t->cap_chars, t->nchars + s.len, 1))
			return -2;
		t->str[t->nstr++] = (struct tool_gen_str){ .off = t->nchars, .len = (uint32_t)s.len,
							   .global = TOOL_SITE_NONE };
		if (s.len)
			memcpy(t->chars + t->nchars, s.data, s.len);
		t->nchars += s.len;
	}
	if (r < 0) {
		snprintf(err, errsz, "%s", c.at.err);
		return -1;
	}
	return 0;
}

int tool_gen_read_stacks(struct tool_gen_tables *t, const struct gt_rbatch *b, char *err, size_t errsz)
{
	struct gt_stack_cursor c;
	struct gt_stack *s = malloc(sizeof *s); /* 4 KiB of frames: not on the stack */
	int r = 0, rc = 0;
	if (!s)
		return -2;
	if (gt_stacks_begin(&c, b)) {
		free(s);
		snprintf(err, errsz, "%s", c.at.err);
		return -1;
	}
	while (rc == 0 && (r = gt_stacks_next(&c, s)) > 0) {
		int is_new = slot(&t->stacks, s->id, t->nstk);
		if (is_new <= 0) {
			rc = is_new;
			continue;
		}
		if (tool_grow(&t->stk, &t->cap_stk, t->nstk + 1, sizeof *t->stk) ||
		    tool_grow(&t->frames, &t->cap_frames, t->nframes + 4 * s->nframes, sizeof *t->frames)) {
			rc = -2;
			continue;
		}
		t->stk[t->nstk++] = (struct tool_gen_stack){ .off = t->nframes, .n = (uint32_t)s->nframes,
							     .site = TOOL_SITE_NONE };
		for (size_t i = 0; i < s->nframes; i++) {
			uint64_t *f = t->frames + t->nframes + 4 * i;
			f[0] = s->frames[i].pc;
			f[1] = s->frames[i].func;
			f[2] = s->frames[i].file;
			f[3] = s->frames[i].line;
		}
		t->nframes += 4 * s->nframes;
	}
	if (rc == 0 && r < 0) {
		snprintf(err, errsz, "%s", c.at.err);
		rc = -1;
	}
	free(s);
	return rc;
}

uint32_t tool_gen_string(struct tool_gen_tables *t, struct tool_sites *sites, uint64_t id)
{
	struct tool_hmap_entry *e = id ? tool_hmap_get(&t->strings, id) : NULL;
	if (!e)
		return 0;
	struct tool_gen_str *s = &t->str[e->val];
	if (s->len == 0)
		return 0;
	if (s->global == TOOL_SITE_NONE)
		s->global = tool_sites_string(sites, t->chars + s->off, s->len);
	return s->global;
}

uint32_t tool_gen_site(struct tool_gen_tables *t, struct tool_sites *sites, uint64_t id)
{
	struct tool_hmap_entry *e = id ? tool_hmap_get(&t->stacks, id) : NULL;
	if (!e) {
		if (t->empty_site == TOOL_SITE_NONE)
			t->empty_site = tool_sites_site(sites, NULL, 0);
		return t->empty_site;
	}
	struct tool_gen_stack *s = &t->stk[e->val];
	if (s->site != TOOL_SITE_NONE)
		return s->site;
	uint32_t frames[GT_MAX_FRAMES];
	uint32_t n = s->n < GT_MAX_FRAMES ? s->n : GT_MAX_FRAMES;
	for (uint32_t i = 0; i < n; i++) {
		const uint64_t *f = t->frames + s->off + 4 * i;
		uint32_t func = tool_gen_string(t, sites, f[1]), file = tool_gen_string(t, sites, f[2]);
		if (func == TOOL_SITE_NONE || file == TOOL_SITE_NONE)
			return TOOL_SITE_NONE;
		if ((frames[i] = tool_sites_frame(sites, func, file, f[3], f[0])) == TOOL_SITE_NONE)
			return TOOL_SITE_NONE;
	}
	s->site = tool_sites_site(sites, frames, n);
	return s->site;
}
