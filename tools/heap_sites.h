/* heap_sites.h — call sites interned across generations by their
 * symbolized frames: the allocation sites of `gotrace heap`, and the wait
 * and syscall sites of `gotrace stat`.
 *
 * Stack and string ids are per generation, so a site is identified by its
 * content: the sequence of frames (function, file, line), leaf first. Each
 * distinct frame remembers the first PC it was seen with (pprof locations).
 * Strings, frames and sites are numbered from 0 in the order they were first
 * interned and never removed; string 0 is "". Each site carries the heap
 * counters of the objects allocated there. */
#ifndef TOOLS_HEAP_SITES_H
#define TOOLS_HEAP_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "tools/heap_map.h"

#define TOOL_SITE_NONE UINT32_MAX /* "no index": an allocation failed */

struct tool_hstr {
	size_t off;    /* into tool_sites.chars; NUL-terminated there */
	uint32_t len;
	uint32_t next; /* next string with the same hash, or TOOL_SITE_NONE */
};

struct tool_hframe {
	uint32_t func, file; /* string indices */
	uint64_t line;
	uint64_t pc;         /* the first PC seen for this frame */
	uint32_t next;
};

/* Estimates of a heap's figures from its recorded events: each recorded
 * allocation of s bytes counts w(s) objects and s·w(s) bytes
 * (tools/heap_sample.h); w = 1 when every allocation is recorded, and the
 * estimates are then the exact counts (integers, exact in doubles up to
 * 2^53). The var_* are estimates of the variances of the estimates (0 when
 * every allocation is recorded). Freed = alloc - live. */
struct tool_hest {
	double alloc_objects, alloc_bytes;
	double live_objects, live_bytes;
	double var_alloc_objects, var_alloc_bytes, var_live_bytes;
};

struct tool_hsite {
	size_t first;     /* index of the leaf frame's entry in tool_sites.site_frames */
	uint32_t nframes;
	uint32_t next;
	/* What was recorded here. live = alloc - free (objects replaced by a
	 * later allocation at the same address count as freed). */
	uint64_t alloc_objects, alloc_bytes;
	uint64_t free_objects, free_bytes;
	uint64_t live_objects, live_bytes;
	uint64_t min_size, max_size; /* of the allocations and snapshot objects; valid if either > 0 */
	/* Objects known from a live-heap snapshot only (allocated before the
	 * window, or in a generation not read): live = alloc + snap - free.
	 * snap_live: those of them still live; snap_est_*: their estimate. */
	uint64_t snap_objects, snap_bytes;
	uint64_t snap_live_objects, snap_live_bytes;
	double snap_est_live_objects, snap_est_live_bytes;
	struct tool_hest est;        /* what was allocated here, estimated */
};

struct tool_sites {
	char *chars;
	size_t nchars, cap_chars;
	struct tool_hstr *strs;
	size_t nstrs, cap_strs;
	struct tool_hmap str_index; /* content hash -> first string with that hash */

	struct tool_hframe *frames;
	size_t nframes, cap_frames;
	struct tool_hmap frame_index;

	uint32_t *site_frames; /* the frames of every site, concatenated */
	size_t nsite_frames, cap_site_frames;
	struct tool_hsite *sites;
	size_t nsites, cap_sites;
	struct tool_hmap site_index;
};

/* tool_sites_init prepares an empty set (with string 0 = ""). Returns 0 or -1
 * when out of memory. tool_sites_free releases everything. */
int tool_sites_init(struct tool_sites *s);
void tool_sites_free(struct tool_sites *s);

/* tool_sites_string interns len bytes (any bytes) and returns the index, or
 * TOOL_SITE_NONE when out of memory. */
uint32_t tool_sites_string(struct tool_sites *s, const void *data, size_t len);

/* tool_sites_frame interns the frame (func, file, line); the PC takes part in
 * the key only when the function name is empty (unsymbolized frames stay
 * apart). Returns the index or TOOL_SITE_NONE. */
uint32_t tool_sites_frame(struct tool_sites *s, uint32_t func, uint32_t file, uint64_t line, uint64_t pc);

/* tool_sites_site interns the frame sequence frames[0..n) (leaf first; n may
 * be 0) and returns the site index or TOOL_SITE_NONE. */
uint32_t tool_sites_site(struct tool_sites *s, const uint32_t *frames, size_t n);

/* Accessors. */
static inline const char *tool_sites_str(const struct tool_sites *s, uint32_t i)
{
	return s->chars + s->strs[i].off;
}
static inline uint32_t tool_sites_strlen(const struct tool_sites *s, uint32_t i)
{
	return s->strs[i].len;
}
/* tool_sites_site_frames returns the frames of a site (NULL when it has none). */
static inline const uint32_t *tool_sites_site_frames(const struct tool_sites *s, uint32_t site)
{
	return s->sites[site].nframes ? s->site_frames + s->sites[site].first : NULL;
}

/* tool_grow makes room for `need` elements of `size` bytes in *p (capacity
 * *cap, doubled as needed). Returns 0 or -1 when out of memory. */
int tool_grow(void *p, size_t *cap, size_t need, size_t size);

#endif
