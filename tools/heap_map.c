/* heap_map.c — the uint64_t-keyed open-addressing map of heap_map.h. */
#include "tools/heap_map.h"

#include <stdlib.h>
#include <string.h>

#define MIN_CAP 16
#define KEEP_CAP 4096 /* tool_hmap_clear keeps tables up to this many slots */

uint64_t tool_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return tool_hash64(h ^ n);
}

void tool_hmap_free(struct tool_hmap *m)
{
	free(m->e);
	tool_hmap_init(m);
}

void tool_hmap_clear(struct tool_hmap *m)
{
	if (m->cap > KEEP_CAP) {
		tool_hmap_free(m);
		return;
	}
	if (m->e)
		memset(m->e, 0, m->cap * sizeof *m->e);
	m->n = 0;
}

struct tool_hmap_entry *tool_hmap_get(const struct tool_hmap *m, uint64_t key)
{
	if (m->n == 0)
		return NULL;
	size_t mask = m->cap - 1;
	for (size_t i = tool_hash64(key) & mask;; i = (i + 1) & mask) {
		struct tool_hmap_entry *e = &m->e[i];
		if (!e->used)
			return NULL;
		if (e->key == key)
			return e;
	}
}

static int grow(struct tool_hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : MIN_CAP;
	if (cap > SIZE_MAX / sizeof(struct tool_hmap_entry) / 2)
		return -1;
	struct tool_hmap_entry *e = calloc(cap, sizeof *e);
	if (!e)
		return -1;
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->e[j].used)
			continue;
		size_t i = tool_hash64(m->e[j].key) & (cap - 1);
		while (e[i].used)
			i = (i + 1) & (cap - 1);
		e[i] = m->e[j];
	}
	free(m->e);
	m->e = e;
	m->cap = cap;
	return 0;
}

struct tool_hmap_entry *tool_hmap_put(struct tool_hmap *m, uint64_t key, bool *fresh)
{
	if ((m->n + 1) * 3 > m->cap * 2 && grow(m))
		return NULL;
	size_t mask = m->cap - 1;
	size_t i = tool_hash64(key) & mask;
	for (; m->e[i].used; i = (i + 1) & mask) {
		if (m->e[i].key == key) {
			if (fresh)
				*fresh = false;
			return &m->e[i];
		}
	}
	m->e[i] = (struct tool_hmap_entry){ .key = key, .used = 1 };
	m->n++;
	if (fresh)
		*fresh = true;
	return &m->e[i];
}

bool tool_hmap_del(struct tool_hmap *m, uint64_t key, struct tool_hmap_entry *out)
{
	struct tool_hmap_entry *e = tool_hmap_get(m, key);
	if (!e)
		return false;
	if (out)
		*out = *e;
	size_t mask = m->cap - 1;
	size_t hole = (size_t)(e - m->e);
	/* Backward shift: move later entries of the probe run into the hole
	 * unless their home slot lies cyclically after the hole. */
	for (size_t i = (hole + 1) & mask; m->e[i].used; i = (i + 1) & mask) {
		size_t home = tool_hash64(m->e[i].key) & mask;
		size_t d_home = (i - home) & mask; /* distance from home to i */
		size_t d_hole = (i - hole) & mask; /* distance from hole to i */
		if (d_home >= d_hole) {
			m->e[hole] = m->e[i];
			hole = i;
		}
	}
	m->e[hole] = (struct tool_hmap_entry){ 0 };
	m->n--;
	return true;
}
