/* test_mutex.c — the mutex profile of `gotrace mutex` (tools/mutex_acct.h,
 * tools/mutex_report.h): contentions aggregated by (releasing site, holder),
 * the holder log parsed, flat and cum delay by function, the pprof profile. */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/mutex_acct.h"
#include "tools/mutex_report.h"

Test(mutex, holder_goid)
{
	cr_expect_eq(tool_mutex_holder_goid("held by G12 worker (tid 345)"), 12);
	cr_expect_eq(tool_mutex_holder_goid("held by G1 main (tid 1)"), 1);
	cr_expect_eq(tool_mutex_holder_goid("held by G7"), 7);
	cr_expect_eq(tool_mutex_holder_goid("held by Gx (tid 3)"), 0);
	cr_expect_eq(tool_mutex_holder_goid("held by G12x"), 0);
	cr_expect_eq(tool_mutex_holder_goid("pid=3 cmd=a"), 0);
}

Test(mutex, add_aggregates_by_site_and_holder)
{
	struct tool_mutex m;
	tool_mutex_init(&m);
	cr_assert_eq(tool_mutex_add(&m, 3, 1, 100), 0);
	cr_assert_eq(tool_mutex_add(&m, 3, 1, 50), 0);
	cr_assert_eq(tool_mutex_add(&m, 3, 2, 7), 0);
	cr_assert_eq(tool_mutex_add(&m, 4, TOOL_MUTEX_NONE, 1), 0);
	cr_expect_eq(m.n, 3);
	cr_expect_eq(m.contentions, 4);
	cr_expect_eq(m.delay, 158);
	cr_expect_eq(m.c[0].site, 3);
	cr_expect_eq(m.c[0].holder, 1);
	cr_expect_eq(m.c[0].count, 2);
	cr_expect_eq(m.c[0].delay, 150);
	cr_expect_eq(m.c[2].holder, TOOL_MUTEX_NONE);
	tool_mutex_free(&m);
}

/* A stat with two threads and three releasing stacks:
 *   unlock ← hold_a ← main   (G1 "boss")   300 ns, 2 waiters
 *   unlock ← hold_b ← hold_a ← main (G2)   100 ns
 *   unlock ← hold_b ← hold_b (recursion: cum once)  40 ns, holder unknown */
static uint32_t frame(struct tool_stat *s, const char *fn, uint64_t pc)
{
	uint32_t f = tool_sites_frame(&s->sites, tool_sites_string(&s->sites, fn, strlen(fn)),
				      tool_sites_string(&s->sites, "x.c", 3), 10, pc);
	cr_assert_neq(f, TOOL_SITE_NONE);
	return f;
}

static void fixture(struct tool_stat *s)
{
	cr_assert_eq(tool_stat_init(s), 0);
	uint32_t unlock = frame(s, "pthread_mutex_unlock", 0x10), a = frame(s, "hold_a", 0x20),
		 b = frame(s, "hold_b", 0x30), mainf = frame(s, "main", 0x40);
	uint32_t s1[] = { unlock, a, mainf }, s2[] = { unlock, b, a, mainf }, s3[] = { unlock, b, b };
	uint32_t k1 = tool_sites_site(&s->sites, s1, 3), k2 = tool_sites_site(&s->sites, s2, 4),
		 k3 = tool_sites_site(&s->sites, s3, 3);
	cr_assert(tool_grow(&s->th, &s->cap_th, 2, sizeof *s->th) == 0);
	memset(s->th, 0, 2 * sizeof *s->th);
	s->nth = 2;
	s->th[0].g = 1;
	s->th[0].func = mainf;
	s->th[0].label = tool_sites_string(&s->sites, "boss", 4);
	s->th[1].g = 2;
	s->th[1].func = a;
	cr_assert_eq(tool_mutex_add(&s->mutex, k1, 0, 200), 0);
	cr_assert_eq(tool_mutex_add(&s->mutex, k1, 0, 100), 0);
	cr_assert_eq(tool_mutex_add(&s->mutex, k2, 1, 100), 0);
	cr_assert_eq(tool_mutex_add(&s->mutex, k3, TOOL_MUTEX_NONE, 40), 0);
}

static const struct tool_mrow *func_row(const struct tool_stat *s, const struct tool_mutex_view *v, const char *fn)
{
	for (size_t i = 0; i < v->nfuncs; i++)
		if (strcmp(tool_sites_str(&s->sites, s->sites.frames[v->funcs[i].frame].func), fn) == 0)
			return &v->funcs[i];
	cr_assert_fail("no function %s", fn);
	return NULL;
}

Test(mutex, view_flat_cum_holders_sites)
{
	static struct tool_stat s;
	fixture(&s);
	struct tool_mutex_view v;
	cr_assert_eq(tool_mutex_view_build(&v, &s), 0);
	cr_expect_eq(v.nfuncs, 4);
	const struct tool_mrow *u = func_row(&s, &v, "pthread_mutex_unlock");
	cr_expect_eq(u->flat, 440);
	cr_expect_eq(u->delay, 440);
	cr_expect_eq(u->count, 4);
	const struct tool_mrow *a = func_row(&s, &v, "hold_a"), *b = func_row(&s, &v, "hold_b");
	cr_expect_eq(a->flat, 0);
	cr_expect_eq(a->delay, 400);
	cr_expect_eq(b->delay, 140); /* hold_b twice in one stack counts once */
	cr_expect_eq(func_row(&s, &v, "main")->delay, 400);
	/* holders by delay: G1 300, G2 100, unknown 40 */
	cr_assert_eq(v.nholders, 3);
	cr_expect_eq(v.holders[0].key, 0);
	cr_expect_eq(v.holders[0].delay, 300);
	cr_expect_eq(v.holders[0].count, 2);
	cr_expect_eq(v.holders[1].key, 1);
	cr_expect_eq(v.holders[2].key, TOOL_MUTEX_NONE);
	char buf[128];
	cr_expect_str_eq(tool_mutex_holder_name(&s, v.holders[0].key, buf, sizeof buf), "G1 boss (main)");
	cr_expect_str_eq(tool_mutex_holder_name(&s, v.holders[1].key, buf, sizeof buf), "G2 (hold_a)");
	cr_expect_str_eq(tool_mutex_holder_name(&s, v.holders[2].key, buf, sizeof buf), "(unknown)");
	cr_assert_eq(v.nsites, 3);
	cr_expect_eq(v.sites[0].delay, 300);
	tool_mutex_view_free(&v);
	tool_stat_free(&s);
}

static bool has(const struct tool_pprof *p, const char *text)
{
	return memmem(p->out.buf, p->out.len, text, strlen(text)) != NULL;
}

Test(mutex, pprof_profile)
{
	static struct tool_stat s;
	fixture(&s);
	struct tool_pprof p;
	cr_assert_eq(tool_mutex_pprof(&s, "t.trace", &p), 0);
	cr_expect(p.out.len > 0);
	const char *want[] = { "contentions", "count", "delay", "nanoseconds", "holder", "G1 boss (main)",
			       "G2 (hold_a)", "(unknown)", "hold_b", "pthread_mutex_unlock" };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_expect(has(&p, want[i]), "profile lacks %s", want[i]);
	tool_pprof_free(&p);
	tool_stat_free(&s);
}

Test(mutex, stat_text_nothing_without_contention)
{
	static struct tool_stat s;
	cr_assert_eq(tool_stat_init(&s), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_eq(tool_mutex_stat_text(f, &s, 10), 0);
	fclose(f);
	cr_expect_eq(len, 0);
	free(buf);
	tool_stat_free(&s);
}

Test(mutex, stat_text_and_json)
{
	static struct tool_stat s;
	fixture(&s);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_eq(tool_mutex_stat_text(f, &s, 2), 0);
	cr_assert_eq(tool_mutex_stat_json(f, &s, 0), 0);
	fclose(f);
	cr_expect(strstr(buf, "Lock holders (4 contentions, 440ns of delay") != NULL, "%s", buf);
	cr_expect(strstr(buf, "G1 boss (main)") != NULL, "%s", buf);
	cr_expect(strstr(buf, "(2 of 3)") != NULL, "%s", buf);
	cr_expect(strstr(buf, "\"lock_holders\": {\"contentions\": 4, \"delay\": 0.000000440") != NULL, "%s", buf);
	cr_expect(strstr(buf, "\"label\": \"boss\"") != NULL, "%s", buf);
	free(buf);
	tool_stat_free(&s);
}
