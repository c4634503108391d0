/* site_pprof.c — a profile's functions and locations from a site table's
 * frames (site_pprof.h). */
#include "tools/site_pprof.h"

#include <stdio.h>
#include <stdlib.h>

#include "encoder/wire.h"

int tool_site_pprof_init(struct tool_site_pprof *c, const struct tool_sites *sites, struct tool_pprof *p)
{
	*c = (struct tool_site_pprof){ .sites = sites, .p = p };
	tool_pprof_init(p);
	tool_hmap_init(&c->funcs);
	c->str = calloc(sites->nstrs ? sites->nstrs : 1, sizeof *c->str);
	c->loc = calloc(sites->nframes ? sites->nframes : 1, sizeof *c->loc);
	return c->str && c->loc ? 0 : -1;
}

void tool_site_pprof_free(struct tool_site_pprof *c)
{
	free(c->str);
	free(c->loc);
	tool_hmap_free(&c->funcs);
}

int64_t tool_site_pprof_str(struct tool_site_pprof *c, uint32_t i)
{
	const struct tool_sites *s = c->sites;
	if (i == 0 || tool_sites_strlen(s, i) == 0)
		return 0;
	if (!c->str[i])
		c->str[i] = tool_pprof_string(c->p, tool_sites_str(s, i), tool_sites_strlen(s, i));
	return c->str[i];
}

uint64_t tool_site_pprof_function(struct tool_site_pprof *c, int64_t name, int64_t file)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(&c->funcs, (uint64_t)name << 32 | (uint64_t)file, &fresh);
	if (!e)
		return 0;
	if (fresh) {
		e->val = ++c->nfuncs;
		tool_pprof_function(c->p, e->val, name, name, file, 0);
	}
	return e->val;
}

uint64_t tool_site_pprof_location(struct tool_site_pprof *c, uint32_t frame)
{
	if (c->loc[frame])
		return c->loc[frame];
	const struct tool_hframe *f = &c->sites->frames[frame];
	int64_t name = tool_site_pprof_str(c, f->func);
	if (name == 0) { /* unsymbolized: name it by its PC */
		char buf[32];
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)f->pc);
		name = tool_pprof_cstring(c->p, buf);
	}
	uint64_t fn = tool_site_pprof_function(c, name, tool_site_pprof_str(c, f->file));
	if (!fn)
		return 0;
	c->loc[frame] = ++c->nlocs;
	tool_pprof_location(c->p, c->loc[frame], TOOL_SITE_PPROF_MAPPING, f->pc, fn, (int64_t)f->line);
	return c->loc[frame];
}

int tool_site_pprof_stack(struct tool_site_pprof *c, uint32_t site, unsigned skip, uint64_t *locs, size_t *n)
{
	const struct tool_hsite *h = &c->sites->sites[site];
	const uint32_t *fr = tool_sites_site_frames(c->sites, site);
	*n = 0;
	for (uint32_t k = skip; k < h->nframes && *n < GT_MAX_FRAMES; k++)
		if (!(locs[(*n)++] = tool_site_pprof_location(c, fr[k])))
			return -1;
	return 0;
}
