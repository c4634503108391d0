/* heap_map.h — an open-addressing hash map from uint64_t keys to a small
 * record, first written for `gotrace heap` and now shared by the tools (live
 * objects by address, per-generation table ids, threads, dedup keys).
 *
 * Linear probing, backward-shift deletion (no tombstones), at most 2/3 full.
 * Every key is legal, 0 and UINT64_MAX included. Allocation failures are
 * reported (NULL / -1), never fatal. */
#ifndef TOOLS_HEAP_MAP_H
#define TOOLS_HEAP_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tool_hmap_entry {
	uint64_t key;
	uint64_t val;
	uint32_t aux;
	/* 0 = empty slot; tool_hmap_put sets 1. The owner may store any other
	 * nonzero value here (a tag that moves with the entry). */
	uint32_t used;
};

struct tool_hmap {
	struct tool_hmap_entry *e;
	size_t cap; /* slots, a power of two, or 0 */
	size_t n;   /* entries in use */
};

/* tool_hash64 mixes a 64-bit value (the splitmix64 finalizer). */
static inline uint64_t tool_hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* tool_hash_bytes hashes a byte string (FNV-1a, then mixed). */
uint64_t tool_hash_bytes(const void *p, size_t n, uint64_t seed);

static inline void tool_hmap_init(struct tool_hmap *m)
{
	m->e = NULL;
	m->cap = 0;
	m->n = 0;
}

void tool_hmap_free(struct tool_hmap *m);

/* tool_hmap_clear empties the map; a large table is released, a small one kept. */
void tool_hmap_clear(struct tool_hmap *m);

/* tool_hmap_get returns the entry of key, or NULL. */
struct tool_hmap_entry *tool_hmap_get(const struct tool_hmap *m, uint64_t key);

/* tool_hmap_put returns the entry of key, adding it (val = aux = 0, *fresh =
 * true) if it was missing; NULL when out of memory. The pointer is valid
 * until the next put or del. */
struct tool_hmap_entry *tool_hmap_put(struct tool_hmap *m, uint64_t key, bool *fresh);

/* tool_hmap_del removes key, copying its entry to *out (if out != NULL).
 * Returns true if it was there. */
bool tool_hmap_del(struct tool_hmap *m, uint64_t key, struct tool_hmap_entry *out);

#endif
