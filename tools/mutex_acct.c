/* mutex_acct.c — the contentions of the mutex profile (mutex_acct.h). */
#include "tools/mutex_acct.h"

#include <stdlib.h>
#include <string.h>

#include "tools/heap_sites.h"

void tool_mutex_init(struct tool_mutex *m)
{
	memset(m, 0, sizeof *m);
	tool_hmap_init(&m->index);
}

void tool_mutex_free(struct tool_mutex *m)
{
	tool_hmap_free(&m->index);
	free(m->c);
	memset(m, 0, sizeof *m);
}

int tool_mutex_add(struct tool_mutex *m, uint32_t site, uint32_t holder, uint64_t delay)
{
	uint64_t key = (uint64_t)site << 32 | holder;
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(&m->index, key, &fresh);
	if (!e)
		return -1;
	if (fresh) {
		if (tool_grow(&m->c, &m->cap, m->n + 1, sizeof *m->c)) {
			tool_hmap_del(&m->index, key, NULL);
			return -1;
		}
		e->val = m->n;
		m->c[m->n++] = (struct tool_mcont){ .site = site, .holder = holder };
	}
	struct tool_mcont *c = &m->c[e->val];
	c->count++;
	c->delay += delay;
	m->contentions++;
	m->delay += delay;
	return 0;
}

uint64_t tool_mutex_holder_goid(const char *msg)
{
	static const char prefix[] = "held by G";
	if (strncmp(msg, prefix, sizeof prefix - 1) != 0)
		return 0;
	const char *p = msg + sizeof prefix - 1;
	uint64_t g = 0;
	if (*p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++)
		g = g * 10 + (uint64_t)(*p - '0');
	return *p == ' ' || *p == 0 ? g : 0;
}
