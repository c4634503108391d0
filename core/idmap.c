/* idmap.c — open-addressing hash map from byte strings to dense ids. */
#include "idmap.h"

#include <string.h>

void gt_idmap_init(struct gt_idmap *m, uint64_t first_id)
{
	memset(m, 0, sizeof *m);
	m->first_id = m->next_id = first_id;
}

static int grow(struct gt_idmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1024;
	struct gt_idmap_entry **ns = gt_map(ncap * sizeof *ns);
	if (!ns)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		struct gt_idmap_entry *e = m->slots[i];
		if (!e)
			continue;
		size_t j = e->hash & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = e;
	}
	gt_unmap(m->slots, m->cap * sizeof *m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

uint64_t gt_idmap_put(struct gt_idmap *m, uint64_t hash, const void *key, uint32_t len)
{
	if ((m->count + 1) * 2 > m->cap && grow(m) != 0)
		return 0;
	size_t j = hash & (m->cap - 1);
	for (struct gt_idmap_entry *e; (e = m->slots[j]) != NULL; j = (j + 1) & (m->cap - 1)) {
		if (e->hash == hash && e->len == len && memcmp(e->key, key, len) == 0)
			return e->id;
	}
	struct gt_idmap_entry *e = gt_region_alloc(&m->region, sizeof *e + len + 1);
	if (!e)
		return 0;
	e->hash = hash;
	e->id = m->next_id++;
	e->len = len;
	memcpy(e->key, key, len);
	e->key[len] = 0;
	m->slots[j] = e;
	m->count++;
	return e->id;
}

void gt_idmap_each(const struct gt_idmap *m, void (*fn)(void *ctx, const struct gt_idmap_entry *e), void *ctx)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i])
			fn(ctx, m->slots[i]);
}

void gt_idmap_reset(struct gt_idmap *m)
{
	if (m->slots)
		memset(m->slots, 0, m->cap * sizeof *m->slots);
	m->count = 0;
	m->next_id = m->first_id;
	gt_region_reset(&m->region);
}
