/* heap_sites.c — interning of strings, frames and allocation sites (heap_sites.h).
 *
 * Each table is an array plus a hash index: tool_hmap maps a content hash to
 * the newest item with that hash, and items with equal hashes are chained
 * through `next`, so lookups compare contents and never confuse two items. */
#include "tools/heap_sites.h"

#include <stdlib.h>
#include <string.h>

int tool_grow(void *p, size_t *cap, size_t need, size_t size)
{
	void **arr = p;
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 16;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			return -1;
		c *= 2;
	}
	void *n = realloc(*arr, c * size);
	if (!n)
		return -1;
	*arr = n;
	*cap = c;
	return 0;
}

int tool_sites_init(struct tool_sites *s)
{
	memset(s, 0, sizeof *s);
	tool_hmap_init(&s->str_index);
	tool_hmap_init(&s->frame_index);
	tool_hmap_init(&s->site_index);
	return tool_sites_string(s, "", 0) == 0 ? 0 : -1;
}

void tool_sites_free(struct tool_sites *s)
{
	free(s->chars);
	free(s->strs);
	free(s->frames);
	free(s->site_frames);
	free(s->sites);
	tool_hmap_free(&s->str_index);
	tool_hmap_free(&s->frame_index);
	tool_hmap_free(&s->site_index);
	memset(s, 0, sizeof *s);
}

/* head returns the chain head entry for hash h, creating it (val = NONE). */
static struct tool_hmap_entry *head(struct tool_hmap *m, uint64_t h)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(m, h, &fresh);
	if (e && fresh)
		e->aux = TOOL_SITE_NONE;
	return e;
}

uint32_t tool_sites_string(struct tool_sites *s, const void *data, size_t len)
{
	if (len > UINT32_MAX - 1)
		return TOOL_SITE_NONE;
	uint64_t h = tool_hash_bytes(data, len, 0);
	struct tool_hmap_entry *e = tool_hmap_get(&s->str_index, h);
	for (uint32_t i = e ? e->aux : TOOL_SITE_NONE; i != TOOL_SITE_NONE; i = s->strs[i].next)
		if (s->strs[i].len == len && memcmp(s->chars + s->strs[i].off, data, len) == 0)
			return i;
	if (s->nstrs >= TOOL_SITE_NONE || tool_grow(&s->strs, &s->cap_strs, s->nstrs + 1, sizeof *s->strs) ||
	    len + 1 > SIZE_MAX - s->nchars || tool_grow(&s->chars, &s->cap_chars, s->nchars + len + 1, 1))
		return TOOL_SITE_NONE;
	if (!(e = head(&s->str_index, h)))
		return TOOL_SITE_NONE;
	uint32_t i = (uint32_t)s->nstrs++;
	s->strs[i] = (struct tool_hstr){ .off = s->nchars, .len = (uint32_t)len, .next = e->aux };
	if (len)
		memcpy(s->chars + s->nchars, data, len);
	s->chars[s->nchars + len] = '\0';
	s->nchars += len + 1;
	e->aux = i;
	return i;
}

uint32_t tool_sites_frame(struct tool_sites *s, uint32_t func, uint32_t file, uint64_t line, uint64_t pc)
{
	uint64_t keypc = s->strs[func].len == 0 ? pc : 0;
	uint64_t h = tool_hash64(tool_hash64(((uint64_t)func << 32 | file) ^ 0x5bd1e995) ^ line);
	h = tool_hash64(h ^ keypc);
	struct tool_hmap_entry *e = tool_hmap_get(&s->frame_index, h);
	for (uint32_t i = e ? e->aux : TOOL_SITE_NONE; i != TOOL_SITE_NONE; i = s->frames[i].next) {
		const struct tool_hframe *f = &s->frames[i];
		if (f->func == func && f->file == file && f->line == line &&
		    (s->strs[func].len != 0 || f->pc == pc))
			return i;
	}
	if (s->nframes >= TOOL_SITE_NONE ||
	    tool_grow(&s->frames, &s->cap_frames, s->nframes + 1, sizeof *s->frames))
		return TOOL_SITE_NONE;
	if (!(e = head(&s->frame_index, h)))
		return TOOL_SITE_NONE;
	uint32_t i = (uint32_t)s->nframes++;
	s->frames[i] = (struct tool_hframe){ .func = func, .file = file, .line = line, .pc = pc, .next = e->aux };
	e->aux = i;
	return i;
}

uint32_t tool_sites_site(struct tool_sites *s, const uint32_t *frames, size_t n)
{
	if (n > UINT32_MAX)
		return TOOL_SITE_NONE;
	uint64_t h = tool_hash_bytes(frames, n * sizeof *frames, 0x51735173);
	struct tool_hmap_entry *e = tool_hmap_get(&s->site_index, h);
	for (uint32_t i = e ? e->aux : TOOL_SITE_NONE; i != TOOL_SITE_NONE; i = s->sites[i].next) {
		const struct tool_hsite *t = &s->sites[i];
		if (t->nframes == n && (n == 0 || memcmp(s->site_frames + t->first, frames, n * sizeof *frames) == 0))
			return i;
	}
	if (s->nsites >= TOOL_SITE_NONE || tool_grow(&s->sites, &s->cap_sites, s->nsites + 1, sizeof *s->sites) ||
	    n > SIZE_MAX - s->nsite_frames ||
	    tool_grow(&s->site_frames, &s->cap_site_frames, s->nsite_frames + n, sizeof *s->site_frames))
		return TOOL_SITE_NONE;
	if (!(e = head(&s->site_index, h)))
		return TOOL_SITE_NONE;
	uint32_t i = (uint32_t)s->nsites++;
	s->sites[i] = (struct tool_hsite){ .first = s->nsite_frames, .nframes = (uint32_t)n, .next = e->aux };
	if (n)
		memcpy(s->site_frames + s->nsite_frames, frames, n * sizeof *frames);
	s->nsite_frames += n;
	e->aux = i;
	return i;
}
