/* cpu_acct.c — the CPU samples of a trace (cpu_acct.h), and their charging
 * at the end of a generation (tool_stat_cpu_gen, stat_acct.h). */
#include "tools/cpu_acct.h"

#include <stdlib.h>
#include <string.h>

#include "tools/ident.h"
#include "tools/stat_acct.h"

void tool_cpu_init(struct tool_cpu *c)
{
	memset(c, 0, sizeof *c);
	tool_hmap_init(&c->index);
}

void tool_cpu_free(struct tool_cpu *c)
{
	tool_hmap_free(&c->index);
	free(c->c);
	free(c->raw);
	memset(c, 0, sizeof *c);
}

int tool_cpu_batch(struct tool_cpu *c, const struct gt_rbatch *b, char *err, size_t errsz)
{
	struct gt_cpu_sample_cursor cur;
	struct gt_cpu_sample smp;
	if (gt_cpu_samples_begin(&cur, b)) {
		snprintf(err, errsz, "%s", cur.at.err);
		return -1;
	}
	int r;
	while ((r = gt_cpu_samples_next(&cur, &smp)) == 1) {
		if (tool_grow(&c->raw, &c->cap_raw, c->nraw + 1, sizeof *c->raw))
			return -2;
		c->raw[c->nraw++] = (struct tool_cpu_raw){ smp.g, smp.m, smp.stack };
	}
	if (r < 0) {
		snprintf(err, errsz, "%s", cur.at.err);
		return -1;
	}
	return 0;
}

void tool_cpu_clear_gen(struct tool_cpu *c)
{
	c->nraw = 0;
}

int tool_cpu_add(struct tool_cpu *c, uint32_t site, uint32_t thread, uint64_t n)
{
	bool fresh;
	uint64_t key = (uint64_t)site << 32 | thread;
	struct tool_hmap_entry *e = tool_hmap_put(&c->index, key, &fresh);
	if (!e)
		return -1;
	if (fresh) {
		if (tool_grow(&c->c, &c->cap, c->n + 1, sizeof *c->c)) {
			tool_hmap_del(&c->index, key, NULL);
			return -1;
		}
		e->val = c->n;
		c->c[c->n++] = (struct tool_csample){ .site = site, .thread = thread };
	}
	c->c[e->val].count += n;
	c->samples += n;
	if (thread == TOOL_CPU_NONE)
		c->no_thread += n;
	return 0;
}

int tool_cpu_parse_hz(const void *data, size_t len, uint64_t *hz)
{
	const char *s = data;
	const size_t plen = sizeof TOOL_IDENT_PREFIX - 1, flen = sizeof TOOL_CPU_HZ_FIELD - 1;
	if (len < plen || memcmp(s, TOOL_IDENT_PREFIX, plen) != 0)
		return 0;
	/* Fields are "key=value" separated by one space; cmd= takes the rest. */
	for (size_t i = plen; i < len;) {
		if (len - i >= 4 && memcmp(s + i, "cmd=", 4) == 0)
			return 0;
		const char *sp = memchr(s + i, ' ', len - i);
		size_t end = sp ? (size_t)(sp - s) : len;
		if (end - i > flen && memcmp(s + i, TOOL_CPU_HZ_FIELD, flen) == 0) {
			uint64_t v = 0;
			size_t k = i + flen;
			for (; k < end && s[k] >= '0' && s[k] <= '9' && v <= TOOL_CPU_MAX_HZ; k++)
				v = v * 10 + (uint64_t)(s[k] - '0');
			if (k != end || v == 0 || v > TOOL_CPU_MAX_HZ)
				return 0;
			*hz = v;
			return 1;
		}
		i = end + 1;
	}
	return 0;
}

int tool_stat_cpu_gen(struct tool_stat *s)
{
	struct tool_cpu *c = &s->cpu;
	for (size_t i = 0; i < c->nraw; i++) {
		const struct tool_cpu_raw *r = &c->raw[i];
		uint32_t site = tool_gen_site(&s->tables, &s->sites, r->stack);
		if (site == TOOL_SITE_NONE)
			return tool_stat_oom(s);
		uint32_t thread = TOOL_CPU_NONE;
		const struct tool_hmap_entry *e = r->g ? tool_hmap_get(&s->th_index, r->g) : NULL;
		if (e)
			thread = (uint32_t)e->val;
		if (tool_cpu_add(c, site, thread, 1))
			return tool_stat_oom(s);
	}
	tool_cpu_clear_gen(c);
	return 0;
}
