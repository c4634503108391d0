/* idmap.h — deduplicating map from byte strings to dense ids (1, 2, ...).
 *
 * The one map behind the string and stack tables. Entries live in a region,
 * the slot array in mmap'd memory: no malloc, so application threads may put
 * into it. Not thread-safe: the tables lock around it. */
#ifndef GT_IDMAP_H
#define GT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#include "region.h"

struct gt_idmap_entry {
	uint64_t hash;
	uint64_t id;
	uint32_t len;
	uint32_t pad;
	unsigned char key[];
};

struct gt_idmap {
	struct gt_region region;
	struct gt_idmap_entry **slots;
	size_t cap;      /* power of two, or 0 */
	size_t count;
	uint64_t first_id; /* the id the first put gets after a reset */
	uint64_t next_id;
};

/* gt_idmap_init prepares an empty map whose ids start at first_id (>= 1). */
void gt_idmap_init(struct gt_idmap *m, uint64_t first_id);

/* gt_idmap_put returns the id of key[0..len), adding it if new; hash must be
 * the caller's hash of the key (gt_hash_*). Returns 0 when out of memory. */
uint64_t gt_idmap_put(struct gt_idmap *m, uint64_t hash, const void *key, uint32_t len);

/* gt_idmap_each calls fn for every entry, in no particular order. */
void gt_idmap_each(const struct gt_idmap *m, void (*fn)(void *ctx, const struct gt_idmap_entry *e), void *ctx);

/* gt_idmap_reset forgets every entry; ids start again at first_id. */
void gt_idmap_reset(struct gt_idmap *m);

#endif
