/* site_pprof.h — a profile's functions and locations made from the frames
 * of a site table (tools/heap_sites.h), shared by the heap, CPU and mutex
 * profiles (site_pprof.c). Every frame is a location with one line in the
 * one mapping TOOL_SITE_PPROF_MAPPING; functions are keyed by (name, file);
 * an unnamed frame is named by its PC. Ids are given in order of use. */
#ifndef TOOLS_SITE_PPROF_H
#define TOOLS_SITE_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "tools/heap_sites.h"
#include "tools/pprof.h"

#define TOOL_SITE_PPROF_MAPPING 1 /* the one mapping: every address, already symbolized */

struct tool_site_pprof {
	const struct tool_sites *sites;
	struct tool_pprof *p;
	int64_t *str;           /* sites string -> profile string (0: not yet; "" is 0 anyway) */
	uint64_t *loc;          /* frame -> location id (0: not yet) */
	struct tool_hmap funcs; /* name << 32 | file -> function id */
	uint64_t nfuncs, nlocs;
};

/* tool_site_pprof_init starts the profile p (tool_pprof_init) and the maps
 * for sites: 0, or -1 when out of memory (then call tool_site_pprof_free
 * all the same). tool_site_pprof_free releases the maps, not p. */
int tool_site_pprof_init(struct tool_site_pprof *c, const struct tool_sites *sites, struct tool_pprof *p);
void tool_site_pprof_free(struct tool_site_pprof *c);

/* tool_site_pprof_str is the profile string of sites string i (0 for none
 * or ""); tool_site_pprof_function the id of the function (name, file),
 * tool_site_pprof_location the id of a frame's location: 0 when out of
 * memory. */
int64_t tool_site_pprof_str(struct tool_site_pprof *c, uint32_t i);
uint64_t tool_site_pprof_function(struct tool_site_pprof *c, int64_t name, int64_t file);
uint64_t tool_site_pprof_location(struct tool_site_pprof *c, uint32_t frame);

/* tool_site_pprof_stack writes the locations of a site's frames from frame
 * skip on, leaf first (at most GT_MAX_FRAMES), to locs and their number to
 * *n: 0, or -1 when out of memory. */
int tool_site_pprof_stack(struct tool_site_pprof *c, uint32_t site, unsigned skip, uint64_t *locs, size_t *n);

#endif
