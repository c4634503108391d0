/* test_stat.c — `gotrace stat` accounting and output on synthetic traces
 * written with encoder/writer.h, whose every duration is known exactly. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_heap_fixture.h"
#include "tools/stat_acct.h"
#include "tools/stat_report.h"
#include "tools/stat_site.h"

/* ---- a trace builder: events name strings and stacks by symbol ---- */

enum { S_MAIN = 1, S_WORKER, S_CREATE, S_LOCK, S_JOIN, S_READ, S_MUTEX, S_SLEEP, S_SJOIN, S_YIELD,
       S_LABEL, S_FILE, S_NANOSLEEP, S_SCHED_YIELD, NSTR };
static const char *const str_text[NSTR] = {
	[S_MAIN] = "main", [S_WORKER] = "worker_fn", [S_CREATE] = "pthread_create",
	[S_LOCK] = "pthread_mutex_lock", [S_JOIN] = "pthread_join", [S_READ] = "read",
	[S_MUTEX] = "sync.mutex", [S_SLEEP] = "sleep", [S_SJOIN] = "sync.join", [S_YIELD] = "sched_yield",
	[S_LABEL] = "w-1", [S_FILE] = "app.c", [S_NANOSLEEP] = "nanosleep", [S_SCHED_YIELD] = "sched_yield",
};

enum { K_MAIN = 1, K_WORKER, K_CREATE, K_LOCK_W, K_SLEEP, K_READ, K_YIELD, K_JOIN, K_LOCK_M, NSTK };
/* Stacks, leaf first, as string symbols (0 ends). */
static const int stk_funcs[NSTK][3] = {
	[K_MAIN] = { S_MAIN },          [K_WORKER] = { S_WORKER },
	[K_CREATE] = { S_CREATE, S_MAIN }, [K_LOCK_W] = { S_LOCK, S_WORKER },
	[K_SLEEP] = { S_NANOSLEEP, S_MAIN }, [K_READ] = { S_READ, S_WORKER },
	[K_YIELD] = { S_SCHED_YIELD, S_WORKER }, [K_JOIN] = { S_JOIN, S_MAIN },
	[K_LOCK_M] = { S_LOCK, S_MAIN },
};

/* Each generation numbers strings and stacks its own way, as real traces may. */
static uint64_t str_id(uint64_t gen, int sym) { return gen * 100 + (uint64_t)sym; }
static uint64_t stk_id(uint64_t gen, int sym) { return gen * 1000 + (uint64_t)sym; }

struct sev {
	uint64_t gen, m;
	uint64_t us;        /* time in microseconds since the clock's zero */
	uint8_t type;
	uint64_t a[4];      /* strings and stacks as symbols */
};

/* arg_kind: 1 = string symbol, 2 = stack symbol, 0 = a plain value. */
static int arg_kind(uint8_t type, int i)
{
	switch (type) {
	case GT_EV_GO_CREATE: case GT_EV_GO_CREATE_BLOCKED: return i == 1 || i == 2 ? 2 : 0;
	case GT_EV_GO_STATUS_STACK: return i == 3 ? 2 : 0;
	case GT_EV_GO_BLOCK: case GT_EV_GO_STOP: return i == 0 ? 1 : i == 1 ? 2 : 0;
	case GT_EV_GO_UNBLOCK: return i == 2 ? 2 : 0;
	case GT_EV_GO_SYSCALL_BEGIN: return i == 1 ? 2 : 0;
	case GT_EV_GO_LABEL: return i == 0 ? 1 : 0;
	default: return 0;
	}
}

static uint8_t scratch[GT_MAX_BATCH + 64];

static void emit(struct hx *t, struct gt_batch *b)
{
	size_t n = gt_batch_finish(b);
	cr_assert(t->cap - t->len >= n, "trace buffer too small");
	memcpy(t->buf + t->len, scratch, n);
	t->len += n;
}

static void tables(struct hx *t, uint64_t gen)
{
	const char *s[NSTR - 1];
	for (int i = 1; i < NSTR; i++)
		s[i - 1] = str_text[i];
	hx_strings(t, gen, str_id(gen, 1), s, NSTR - 1);
	for (int k = 1; k < NSTK; k++) {
		struct gt_frame f[3];
		size_t n = 0;
		for (; n < 3 && stk_funcs[k][n]; n++)
			f[n] = (struct gt_frame){ 0x1000 * (uint64_t)k + n, str_id(gen, stk_funcs[k][n]),
						  str_id(gen, S_FILE), 10 * (uint64_t)k + n };
		hx_stack(t, gen, stk_id(gen, k), f, n);
	}
}

/* sync writes generation gen's sync batch with frequency freq. */
static void sync_batch(struct hx *t, uint64_t gen, uint64_t freq, uint64_t ts)
{
	struct gt_clock_snapshot snap = { ts, ts, 1700000000u, 5 };
	cr_assert(t->cap - t->len >= GT_SYNC_MAX);
	size_t n = gt_write_sync(t->buf + t->len, t->format, gen, freq, &snap);
	cr_assert(n > 0);
	t->len += n;
}

/* events writes the events of generation gen on M m as one batch. */
static void events(struct hx *t, const struct sev *ev, size_t n, uint64_t gen, uint64_t m, uint64_t ticks_per_us)
{
	struct gt_batch b;
	bool begun = false;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].gen != gen || ev[i].m != m)
			continue;
		uint64_t ts = ev[i].us * ticks_per_us;
		if (!begun) {
			gt_batch_begin(&b, scratch, sizeof scratch, gen, m, ts - 1);
			begun = true;
		}
		uint64_t args[4];
		int nargs = gt_ev_nargs(ev[i].type);
		cr_assert(nargs >= 0 && nargs <= 4);
		for (int k = 0; k < nargs; k++) {
			int kind = arg_kind(ev[i].type, k);
			args[k] = kind == 1 ? str_id(gen, (int)ev[i].a[k])
				  : kind == 2 && ev[i].a[k] ? stk_id(gen, (int)ev[i].a[k]) : ev[i].a[k];
		}
		gt_batch_event(&b, ev[i].type, ts, (unsigned)nargs, args);
	}
	if (begun)
		emit(t, &b);
}

#define M1 100u
#define M2 200u
#define NOM GT_NO_THREAD

/* The scenario (times in us; G1 is main on M1, G2 a worker on M2):
 *
 *   G1: running 1000-7000, sleep 7000-107000, runnable -107500, running
 *       -280000, sync.join -300010, runnable -300050, running -350000,
 *       sync.mutex from 350000 to the end (400000, a HeapAlloc on M1)
 *   G2: created 2000, runnable -5000, running -6000, sync.mutex -206000,
 *       runnable -206100, running -210000, syscall -260000, running -270000
 *       (label at 261000), runnable (yield) -270020, running -300000, dies
 *
 * With three generations (150000 and 290000 start the second and third),
 * every thread's state is re-stated at each generation start; the figures
 * must not change. */
static const struct sev scenario[] = {
	{ 1, M1, 1000, GT_EV_PROC_STATUS, { 0, GT_P_RUNNING } },
	{ 1, M1, 1000, GT_EV_GO_STATUS_STACK, { 1, M1, GT_G_RUNNING, K_MAIN } },
	{ 1, M1, 2000, GT_EV_GO_CREATE, { 2, K_WORKER, K_CREATE } },
	{ 1, M2, 5000, GT_EV_GO_START, { 2, 1 } },
	{ 1, M2, 6000, GT_EV_GO_BLOCK, { S_MUTEX, K_LOCK_W } },
	{ 1, M1, 7000, GT_EV_GO_BLOCK, { S_SLEEP, K_SLEEP } },
	{ 1, M1, 107000, GT_EV_GO_UNBLOCK, { 1, 1, K_SLEEP } },
	{ 1, M1, 107500, GT_EV_GO_START, { 1, 2 } },
	{ 2, M1, 150010, GT_EV_GO_STATUS, { 1, M1, GT_G_RUNNING } },
	{ 2, M2, 150020, GT_EV_GO_STATUS, { 2, NOM, GT_G_WAITING } },
	{ 2, M2, 206000, GT_EV_GO_UNBLOCK, { 2, 1, K_LOCK_W } },
	{ 2, M2, 206100, GT_EV_GO_START, { 2, 2 } },
	{ 2, M2, 210000, GT_EV_GO_SYSCALL_BEGIN, { 1, K_READ } },
	{ 2, M2, 250000, GT_EV_HEAP_ALLOC, { 8192 } },
	{ 2, M2, 260000, GT_EV_GO_SYSCALL_END, { 0 } },
	{ 2, M2, 261000, GT_EV_GO_LABEL, { S_LABEL } },
	{ 2, M2, 270000, GT_EV_GO_STOP, { S_YIELD, K_YIELD } },
	{ 2, M2, 270020, GT_EV_GO_START, { 2, 3 } },
	{ 2, M1, 280000, GT_EV_GO_BLOCK, { S_SJOIN, K_JOIN } },
	{ 3, M1, 290000, GT_EV_GO_STATUS, { 1, NOM, GT_G_WAITING } },
	{ 3, M2, 290005, GT_EV_GO_STATUS, { 2, M2, GT_G_RUNNING } },
	{ 3, M2, 300000, GT_EV_GO_DESTROY, { 0 } },
	{ 3, M1, 300010, GT_EV_GO_UNBLOCK, { 1, 1, K_JOIN } },
	{ 3, M1, 300050, GT_EV_GO_START, { 1, 2 } },
	{ 3, M1, 350000, GT_EV_GO_BLOCK, { S_MUTEX, K_LOCK_M } },
	{ 3, M1, 400000, GT_EV_HEAP_ALLOC, { 4096 } },
};
#define NSCENARIO (sizeof scenario / sizeof scenario[0])
#define MS 1000000ull /* ns */
#define US 1000ull

/* build writes the scenario in `gens` generations (1: the re-statements
 * are left out; 3: as listed). M2's batches come first in each generation,
 * so that file order is not time order. Returns the length. */
static size_t build(uint8_t *buf, size_t cap, int format, int gens, uint64_t freq)
{
	struct hx t;
	hx_begin(&t, buf, cap, format);
	uint64_t tpu = freq / 1000000u; /* ticks per us */
	struct sev ev[NSCENARIO];
	size_t n = 0;
	for (size_t i = 0; i < NSCENARIO; i++) {
		if (gens == 1 && scenario[i].gen > 1 &&
		    (scenario[i].type == GT_EV_GO_STATUS || scenario[i].type == GT_EV_GO_STATUS_STACK))
			continue;
		ev[n] = scenario[i];
		if (gens == 1)
			ev[n].gen = 1;
		n++;
	}
	static const uint64_t starts[] = { 0, 500, 150000, 290000 };
	for (uint64_t g = 1; g <= (uint64_t)gens; g++) {
		sync_batch(&t, g, freq, starts[g] * tpu);
		tables(&t, g);
		events(&t, ev, n, g, M2, tpu);
		events(&t, ev, n, g, M1, tpu);
		hx_end_gen(&t);
	}
	cr_assert(!t.full);
	return t.len;
}

static uint8_t mem[1 << 16];
static struct tool_stat *st;

static void setup(void)
{
	st = malloc(sizeof *st);
	cr_assert_not_null(st);
	cr_assert_eq(tool_stat_init(st), 0);
}

static void teardown(void)
{
	tool_stat_free(st);
	free(st);
}

/* read_file reads buf[0..len) through a regular file (pread path). */
static int read_file(const uint8_t *buf, size_t len)
{
	struct hx t = { .buf = (uint8_t *)buf, .len = len, .cap = len };
	FILE *f = hx_file(&t);
	cr_assert_not_null(f);
	int rc = tool_stat_read(st, f);
	fclose(f);
	return rc;
}

/* read_memory reads it through a FILE without a descriptor (payloads kept). */
static int read_memory(const uint8_t *buf, size_t len)
{
	static char empty[1];
	FILE *f = len ? fmemopen((void *)buf, len, "r") : fmemopen(empty, 0, "r");
	cr_assert_not_null(f);
	int rc = tool_stat_read(st, f);
	fclose(f);
	return rc;
}

static const struct tool_sthread *thread(uint64_t g)
{
	for (size_t i = 0; i < st->nth; i++)
		if (st->th[i].g == g)
			return &st->th[i];
	cr_assert_fail("no goroutine %llu", (unsigned long long)g);
	return NULL;
}

static uint64_t blocked(const struct tool_sthread *t, const char *reason)
{
	for (size_t r = 0; r < st->nreasons; r++)
		if (strcmp(tool_stat_reason_name(st, (uint32_t)r), reason) == 0)
			return t->blocked[r];
	return 0;
}

static const char *func_of(const struct tool_sthread *t)
{
	cr_assert_neq(t->func, TOOL_STAT_NONE);
	return tool_sites_str(&st->sites, st->sites.frames[t->func].func);
}

/* site_is says whether a site's frames are the functions fns (leaf first). */
static bool site_is(uint32_t site, const char *const *fns, size_t n)
{
	const struct tool_hsite *h = &st->sites.sites[site];
	if (h->nframes != n)
		return false;
	const uint32_t *fr = tool_sites_site_frames(&st->sites, site);
	for (size_t i = 0; i < n; i++)
		if (strcmp(tool_sites_str(&st->sites, st->sites.frames[fr[i]].func), fns[i]) != 0)
			return false;
	return true;
}

static const struct tool_ssite *wait_site(const char *reason, const char *leaf, const char *caller)
{
	const char *fns[] = { leaf, caller };
	for (size_t i = 0; i < st->nwaits; i++)
		if (strcmp(tool_stat_reason_name(st, st->waits[i].reason), reason) == 0 && site_is(st->waits[i].site, fns, 2))
			return &st->waits[i];
	cr_assert_fail("no %s wait site %s <- %s", reason, leaf, caller);
	return NULL;
}

static void check_lifetimes(void)
{
	for (size_t i = 0; i < st->nth; i++) {
		const struct tool_sthread *t = &st->th[i];
		uint64_t sum = t->running + t->runnable + t->syscall;
		for (size_t r = 0; r < TOOL_STAT_REASONS; r++)
			sum += t->blocked[r];
		cr_assert_eq(sum, t->end - t->first, "G%llu: states sum to %llu, lifetime %llu",
			     (unsigned long long)t->g, (unsigned long long)sum,
			     (unsigned long long)(t->end - t->first));
	}
}

/* check_scenario checks every figure of the scenario (times in ns). */
static void check_scenario(int gens)
{
	cr_assert_eq(st->gens, (uint64_t)gens);
	cr_assert_eq(st->nth, 2);
	cr_assert_eq(st->anomalies, 0, "%llu anomalies", (unsigned long long)st->anomalies);
	cr_assert_eq(st->t_last - st->t_first, 399000 * US);
	check_lifetimes();

	const struct tool_sthread *g1 = thread(1), *g2 = thread(2);
	cr_assert_str_eq(func_of(g1), "main");
	cr_assert_str_eq(func_of(g2), "worker_fn");
	cr_assert_eq(g1->label, 0);
	cr_assert_str_eq(tool_sites_str(&st->sites, g2->label), "w-1");

	cr_assert_neq(g1->state, TOOL_S_DEAD);
	cr_assert_eq(g1->end - g1->first, 399000 * US);
	cr_assert_eq(g1->running, (6000 + 172500 + 49950) * US, "G1 running %llu", (unsigned long long)g1->running);
	cr_assert_eq(g1->runnable, (500 + 40) * US);
	cr_assert_eq(g1->syscall, 0);
	cr_assert_eq(blocked(g1, "sleep"), 100 * MS);
	cr_assert_eq(blocked(g1, "sync.join"), 20010 * US);
	cr_assert_eq(blocked(g1, "sync.mutex"), 50 * MS); /* still waiting at the end */
	uint64_t sleep;
	cr_assert_eq(tool_stat_blocked(st, g1, &sleep), 70010 * US);
	cr_assert_eq(sleep, 100 * MS);

	cr_assert_eq(g2->state, TOOL_S_DEAD);
	cr_assert_eq(g2->first, st->t_first + 1 * MS);
	cr_assert_eq(g2->end - g2->first, 298 * MS);
	cr_assert_eq(g2->runnable, (3000 + 100 + 20) * US, "G2 runnable %llu", (unsigned long long)g2->runnable);
	cr_assert_eq(g2->running, (1000 + 3900 + 10000 + 29980) * US);
	cr_assert_eq(g2->syscall, 50 * MS);
	cr_assert_eq(blocked(g2, "sync.mutex"), 200 * MS);
	cr_assert_eq(g2->nblocks, 1);
	cr_assert_eq(g2->nsyscalls, 1);

	const struct tool_ssite *w = wait_site("sync.mutex", "pthread_mutex_lock", "worker_fn");
	cr_assert_eq(w->count, 1);
	cr_assert_eq(w->total, 200 * MS);
	cr_assert_eq(w->max, 200 * MS);
	w = wait_site("sync.mutex", "pthread_mutex_lock", "main");
	cr_assert_eq(w->total, 50 * MS);
	w = wait_site("sync.join", "pthread_join", "main");
	cr_assert_eq(w->total, 20010 * US);
	cr_assert_eq(st->nwaits, 4); /* and the sleep */
	cr_assert_eq(st->nsyscalls, 1);
	const char *rd[] = { "read", "worker_fn" };
	cr_assert(site_is(st->syscalls[0].site, rd, 2));
	cr_assert_eq(st->syscalls[0].total, 50 * MS);
	cr_assert_eq(st->syscalls[0].count, 1);

	cr_assert(st->have_heap_metric);
	cr_assert_eq(st->heap_peak, 8192);
	cr_assert_eq(st->heap_peak_at - st->t_first, 249 * MS);
}

static size_t scenario_events(int gens)
{
	size_t n = 0;
	for (size_t i = 0; i < NSCENARIO; i++)
		n += gens > 1 || scenario[i].gen == 1 ||
		     (scenario[i].type != GT_EV_GO_STATUS && scenario[i].type != GT_EV_GO_STATUS_STACK);
	return n;
}

Test(stat_acct, one_generation_exact_durations, .init = setup, .fini = teardown)
{
	size_t len = build(mem, sizeof mem, GT_FORMAT_23, 1, 1000000000u);
	cr_assert_eq(read_file(mem, len), 0, "%s", st->err);
	check_scenario(1);
	cr_assert_eq(st->events, scenario_events(1));
}

Test(stat_acct, restatements_across_generations_count_nothing, .init = setup, .fini = teardown)
{
	size_t len = build(mem, sizeof mem, GT_FORMAT_26, 3, 1000000000u);
	cr_assert_eq(read_file(mem, len), 0, "%s", st->err);
	check_scenario(3);
	cr_assert_eq(st->events, scenario_events(3));
	cr_assert_eq(st->first_gen, 1);
	cr_assert_eq(st->last_gen, 3);
}

Test(stat_acct, format23_generations, .init = setup, .fini = teardown)
{
	size_t len = build(mem, sizeof mem, GT_FORMAT_23, 3, 1000000000u);
	cr_assert_eq(read_file(mem, len), 0, "%s", st->err);
	check_scenario(3);
}

Test(stat_acct, payloads_kept_in_memory_give_the_same_figures, .init = setup, .fini = teardown)
{
	size_t len = build(mem, sizeof mem, GT_FORMAT_26, 3, 1000000000u);
	cr_assert_eq(read_memory(mem, len), 0, "%s", st->err);
	check_scenario(3);
}

Test(stat_acct, other_clock_frequencies_are_converted, .init = setup, .fini = teardown)
{
	/* One tick per microsecond: the same figures in ns. */
	size_t len = build(mem, sizeof mem, GT_FORMAT_26, 3, 1000000u);
	cr_assert_eq(read_file(mem, len), 0, "%s", st->err);
	check_scenario(3);
}

Test(stat_acct, batches_fed_one_by_one, .init = setup, .fini = teardown)
{
	size_t len = build(mem, sizeof mem, GT_FORMAT_23, 1, 1000000000u);
	FILE *f = fmemopen(mem, len, "r");
	struct gt_reader *r = malloc(sizeof *r);
	cr_assert(f && r);
	cr_assert_eq(gt_reader_init(r, f), 0);
	struct gt_rbatch b;
	int got;
	while ((got = gt_reader_next(r, &b)) > 0)
		cr_assert_eq(tool_stat_batch(st, &b), 0, "%s", st->err);
	cr_assert_eq(got, 0, "%s", r->err);
	st->version = r->version;
	cr_assert_eq(tool_stat_end(st), 0, "%s", st->err);
	check_scenario(1);
	/* Finished: more input is refused, and finishing again changes nothing. */
	tool_stat_finish(st);
	check_scenario(1);
	cr_assert_eq(tool_stat_batch(st, &b), -1);
	free(r);
	fclose(f);
}

/* ---- damaged traces ---- */

Test(stat_acct, every_truncation_keeps_the_complete_generations, .init = setup, .fini = teardown)
{
	size_t len = build(mem, sizeof mem, GT_FORMAT_26, 3, 1000000000u);
	/* Where each generation ends (its EndOfGeneration byte). */
	size_t ends[3], k = 0;
	{
		FILE *f = fmemopen(mem, len, "r");
		struct gt_reader *r = malloc(sizeof *r);
		cr_assert_eq(gt_reader_init(r, f), 0);
		struct gt_rbatch b;
		while (gt_reader_next(r, &b) > 0)
			if (b.kind == GT_BATCH_END_OF_GEN)
				ends[k++] = (size_t)r->off;
		free(r);
		fclose(f);
	}
	cr_assert_eq(k, 3);
	for (size_t cut = 0; cut < len; cut++) {
		tool_stat_free(st);
		cr_assert_eq(tool_stat_init(st), 0);
		int rc = (cut & 1) ? read_memory(mem, cut) : read_file(mem, cut);
		uint64_t want = cut >= ends[1] ? 2 : cut >= ends[0] ? 1 : 0;
		bool clean = cut == GT_HEADER_LEN || cut == ends[0] || cut == ends[1]; /* a header alone: no generations */
		cr_assert_eq(rc, clean ? 0 : -1, "cut %zu: rc %d (%s)", cut, rc, st->err);
		cr_assert_eq(st->gens, want, "cut %zu: %llu generations", cut, (unsigned long long)st->gens);
		if (!clean)
			cr_assert(strstr(st->err, "offset") != NULL, "cut %zu: %s", cut, st->err);
		check_lifetimes();
		if (want == 2) { /* up to the join, with G2 still running */
			const struct tool_sthread *g2 = thread(2);
			cr_assert_eq(blocked(g2, "sync.mutex"), 200 * MS);
			cr_assert_eq(g2->syscall, 50 * MS);
			cr_assert_neq(g2->state, TOOL_S_DEAD);
		}
		/* The output never fails on what was read. */
		FILE *null = fopen("/dev/null", "w");
		cr_assert_eq(tool_stat_report(null, st, "cut", 3), 0);
		cr_assert_eq(tool_stat_json(null, st, "cut", 0, rc ? st->err : NULL), 0);
		fclose(null);
	}
}

Test(stat_acct, events_without_a_running_goroutine_are_ignored, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	sync_batch(&t, 1, 1000000000u, 1000);
	tables(&t, 1);
	const struct sev ev[] = {
		{ 1, M1, 10, GT_EV_GO_BLOCK, { S_MUTEX, K_LOCK_M } },      /* nobody runs on M1 */
		{ 1, M1, 11, GT_EV_GO_SYSCALL_END, { 0 } },
		{ 1, M1, 12, GT_EV_GO_UNBLOCK, { 7, 1, 0 } },              /* G7 first seen: runnable */
		{ 1, M1, 15, GT_EV_GO_START, { 7, 2 } },
		{ 1, M1, 16, GT_EV_GO_UNBLOCK, { 7, 3, 0 } },              /* not waiting */
		{ 1, M1, 20, GT_EV_GO_SYSCALL_END, { 0 } },                /* not in a syscall */
		{ 1, M1, 30, GT_EV_GO_STATUS, { 7, M1, 9 } },              /* bad status */
		{ 1, M1, 40, GT_EV_GO_DESTROY, { 0 } },
		{ 1, M1, 50, GT_EV_GO_START, { 7, 4 } },                   /* dead */
	};
	events(&t, ev, sizeof ev / sizeof ev[0], 1, M1, 1000);
	hx_end_gen(&t);
	cr_assert_eq(read_file(mem, t.len), 0, "%s", st->err);
	cr_assert_eq(st->anomalies, 6);
	cr_assert_eq(st->nth, 1);
	const struct tool_sthread *g = thread(7);
	cr_assert_eq(g->state, TOOL_S_DEAD);
	cr_assert_eq(g->runnable, 3 * US);
	cr_assert_eq(g->running, 25 * US);
	cr_assert_eq(g->func, TOOL_STAT_NONE);
	check_lifetimes();
}

Test(stat_acct, one_site_across_generations_with_other_ids, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	for (uint64_t g = 1; g <= 2; g++) {
		uint64_t base = g * 1000;
		sync_batch(&t, g, 1000000000u, base);
		tables(&t, g);
		const struct sev ev[] = {
			{ g, M1, base + 1, GT_EV_GO_STATUS, { 1, M1, GT_G_RUNNING } },
			{ g, M1, base + 10, GT_EV_GO_BLOCK, { S_MUTEX, K_LOCK_M } },
			{ g, M1, base + 10 + g * 100, GT_EV_GO_UNBLOCK, { 1, 9, 0 } },
			{ g, M1, base + 10 + g * 100, GT_EV_GO_START, { 1, 10 } },
		};
		events(&t, ev, 4, g, M1, 1000);
	}
	cr_assert_eq(read_file(mem, t.len), 0, "%s", st->err);
	cr_assert_eq(st->nwaits, 1);
	cr_assert_eq(st->waits[0].count, 2);
	cr_assert_eq(st->waits[0].total, 300 * US);
	cr_assert_eq(st->waits[0].max, 200 * US);
	cr_assert_str_eq(func_of(thread(1)), "main"); /* from its first stack */
	check_lifetimes();
}

Test(stat_acct, goroutines_created_in_a_syscall_or_blocked, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	sync_batch(&t, 1, 1000000000u, 1000);
	tables(&t, 1);
	const struct sev ev[] = {
		/* a thread the tracer did not see start (design.md) */
		{ 1, M2, 10, GT_EV_GO_CREATE_SYSCALL, { 5 } },
		{ 1, M2, 12, GT_EV_GO_SYSCALL_END_BLOCKED, { 0 } },
		{ 1, M2, 15, GT_EV_GO_START, { 5, 1 } },
		{ 1, M2, 20, GT_EV_GO_SYSCALL_BEGIN, { 1, K_READ } },
		{ 1, M2, 70, GT_EV_GO_DESTROY_SYSCALL, { 0 } },
		{ 1, M1, 30, GT_EV_GO_STATUS, { 1, M1, GT_G_RUNNING } },
		{ 1, M1, 40, GT_EV_GO_CREATE_BLOCKED, { 6, K_WORKER, K_CREATE } },
		{ 1, M1, 100, GT_EV_GO_UNBLOCK, { 6, 1, 0 } },
	};
	events(&t, ev, sizeof ev / sizeof ev[0], 1, M2, 1000);
	events(&t, ev, sizeof ev / sizeof ev[0], 1, M1, 1000);
	hx_end_gen(&t);
	cr_assert_eq(read_file(mem, t.len), 0, "%s", st->err);
	cr_assert_eq(st->anomalies, 0);
	const struct tool_sthread *g5 = thread(5), *g6 = thread(6);
	cr_assert_eq(g5->syscall, 2 * US + 50 * US);
	cr_assert_eq(g5->runnable, 3 * US);
	cr_assert_eq(g5->running, 5 * US);
	cr_assert_eq(g5->state, TOOL_S_DEAD);
	cr_assert_str_eq(func_of(g5), "worker_fn"); /* from its syscall's stack */
	cr_assert_eq(st->nsyscalls, 1);
	cr_assert_eq(st->syscalls[0].total, 50 * US);
	cr_assert_eq(blocked(g6, ""), 60 * US);
	cr_assert_str_eq(func_of(g6), "worker_fn");
	cr_assert_eq(g6->runnable, 0); /* runnable from 100 to the end at 100 */
	cr_assert_str_eq(func_of(thread(1)), "main"); /* the creator, from its GoCreate's stack */
	check_lifetimes();
}

Test(stat_acct, many_reasons_share_the_last_slot, .init = setup, .fini = teardown)
{
	enum { N = TOOL_STAT_REASONS + 5 };
	static char names[N][16];
	const char *ptr[N];
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "reason-%d", i);
		ptr[i] = names[i];
	}
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	sync_batch(&t, 1, 1000000000u, 1000);
	hx_strings(&t, 1, 5000, ptr, N);
	struct gt_batch b;
	gt_batch_begin(&b, scratch, sizeof scratch, 1, M1, 1000);
	uint64_t a[4] = { 1, M1, GT_G_RUNNING };
	gt_batch_event(&b, GT_EV_GO_STATUS, 1001, 3, a);
	uint64_t ts = 1001;
	for (int i = 0; i < N; i++) {
		uint64_t blk[2] = { 5000 + (uint64_t)i, 0 }, unb[3] = { 1, 1, 0 }, start[2] = { 1, 2 };
		gt_batch_event(&b, GT_EV_GO_BLOCK, ts, 2, blk);
		ts += 10;
		gt_batch_event(&b, GT_EV_GO_UNBLOCK, ts, 3, unb);
		gt_batch_event(&b, GT_EV_GO_START, ts, 2, start);
	}
	emit(&t, &b);
	hx_end_gen(&t);
	cr_assert_eq(read_file(mem, t.len), 0, "%s", st->err);
	cr_assert_eq(st->nreasons, TOOL_STAT_REASONS);
	cr_assert_str_eq(tool_stat_reason_name(st, 0), "reason-0");
	cr_assert_str_eq(tool_stat_reason_name(st, TOOL_STAT_REASONS - 1), "(other)");
	cr_assert_eq(thread(1)->blocked[TOOL_STAT_REASONS - 1], 10 * (N - TOOL_STAT_REASONS + 1));
	check_lifetimes();
}

/* ---- output ---- */

Test(stat_report, durations)
{
	char buf[32];
	struct { uint64_t ns; const char *want; } cases[] = {
		{ 0, "0" }, { 812, "812ns" }, { 999, "999ns" }, { 1000, "1.0us" }, { 15340, "15.3us" },
		{ 999940, "999.9us" }, { 999960, "1.0ms" }, { 200123456, "200.1ms" }, { 1523000000, "1.523s" },
		{ 12345000000ull, "12.35s" }, { 123456000000ull, "123.5s" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_assert_str_eq(tool_stat_format_duration(cases[i].ns, buf, sizeof buf), cases[i].want, "%llu ns",
				 (unsigned long long)cases[i].ns);
}

static char *render(bool json, unsigned top)
{
	char *text = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&text, &n);
	cr_assert_not_null(out);
	cr_assert_eq(json ? tool_stat_json(out, st, "scenario.trace", top, NULL) : tool_stat_report(out, st, "scenario.trace", top), 0);
	fclose(out);
	return text;
}

Test(stat_report, text_tables, .init = setup, .fini = teardown)
{
	size_t len = build(mem, sizeof mem, GT_FORMAT_26, 3, 1000000000u);
	cr_assert_eq(read_file(mem, len), 0, "%s", st->err);
	char *text = render(false, 10);
	const char *want[] = {
		"gotrace stat: scenario.trace\n",
		"  go 1.26 trace: 3 generations (1-3), 26 events, 2 threads (1 alive at the end)\n",
		"  span 399.0ms (first to last event)\n",
		"  heap peak 8.0 KiB (HeapAlloc) at 249.0ms; 0 heap object events\n",
		"\nWhere the time went (2 threads, 697.0ms of thread time)\n",
		"  running      273.3ms   39.2%\n",
		"  sync.mutex   250.0ms   35.9%  blocked\n",
		"  sleep        100.0ms   14.3%\n",
		/* threads: G2 has 253.1ms not running, G1 170.6ms */
		"       G  start function  label  lifetime   running  runnable   syscall     sleep   blocked  blocked by reason\n"
		"       2  worker_fn       w-1     298.0ms    44.9ms     3.1ms    50.0ms         0   200.0ms  sync.mutex 200.0ms\n"
		"       1  main                    399.0ms   228.4ms   540.0us         0   100.0ms    70.0ms  sync.mutex 50.0ms, sync.join 20.0ms\n",
		"Top wait sites (3 of 3, by total time blocked; sleeps not included)\n"
		"      total     count      mean       max  reason      site (leaf first)\n"
		"    200.0ms         1   200.0ms   200.0ms  sync.mutex  pthread_mutex_lock \xe2\x86\x90 worker_fn  (app.c:41)\n"
		"     50.0ms         1    50.0ms    50.0ms  sync.mutex  pthread_mutex_lock \xe2\x86\x90 main  (app.c:91)\n"
		"     20.0ms         1    20.0ms    20.0ms  sync.join   pthread_join \xe2\x86\x90 main  (app.c:81)\n",
		"Top syscall sites (1 of 1, by total time in the call)\n"
		"      total     count      mean       max  site (leaf first)\n"
		"     50.0ms         1    50.0ms    50.0ms  read \xe2\x86\x90 worker_fn  (app.c:61)\n",
		"  start function  threads  lifetime   running  runnable   syscall     sleep   blocked  blocked by reason\n"
		"  worker_fn             1   298.0ms    44.9ms     3.1ms    50.0ms         0   200.0ms  sync.mutex 200.0ms\n",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert(strstr(text, want[i]) != NULL, "missing:\n%s\nin:\n%s", want[i], text);
	free(text);

	/* -top 1: one entry per list. */
	text = render(false, 1);
	cr_assert(strstr(text, "Threads (1 of 2, most time not running first)\n") != NULL, "%s", text);
	cr_assert(strstr(text, "Top wait sites (1 of 3,") != NULL, "%s", text);
	cr_assert(strstr(text, "  pthread_join") == NULL, "%s", text);
	free(text);
}

Test(stat_report, json_object, .init = setup, .fini = teardown)
{
	size_t len = build(mem, sizeof mem, GT_FORMAT_26, 3, 1000000000u);
	cr_assert_eq(read_file(mem, len), 0, "%s", st->err);
	char *text = render(true, 0);
	const char *want[] = {
		"\"trace\": \"scenario.trace\"", "\"format\": 26", "\"complete\": true", "\"error\": null",
		"\"generations\": {\"count\": 3, \"first\": 1, \"last\": 3}", "\"events\": 26",
		"\"span\": {\"seconds\": 0.399000000,",
		"\"heap\": {\"object_events\": 0, \"sample_bytes\": 0, \"peak_bytes\": 8192, \"peak_at\": 0.249000000, \"source\": \"HeapAlloc\", \"metric_peak_bytes\": 8192}",
		"{\"g\": 2, \"m\": 200, \"function\": \"worker_fn\", \"label\": \"w-1\", \"start\": 0.001000000, "
		"\"end\": 0.299000000, \"ended\": true, \"waits\": 1, \"syscalls\": 1, \"lifetime\": 0.298000000, "
		"\"running\": 0.044880000, \"runnable\": 0.003120000, \"syscall\": 0.050000000, \"sleep\": 0.000000000, "
		"\"blocked_total\": 0.200000000, \"blocked\": {\"sync.mutex\": 0.200000000}}",
		"\"sleep\": 0.100000000, \"blocked_total\": 0.070010000, \"blocked\": {\"sync.mutex\": 0.050000000, \"sync.join\": 0.020010000}}",
		"{\"reason\": \"sync.mutex\", \"count\": 1, \"total\": 0.200000000, \"max\": 0.200000000, "
		"\"summary\": \"pthread_mutex_lock \xe2\x86\x90 worker_fn\", \"frames\": [{\"function\": \"pthread_mutex_lock\", "
		"\"file\": \"app.c\", \"line\": 40, \"pc\": 16384}, {\"function\": \"worker_fn\", \"file\": \"app.c\", \"line\": 41, \"pc\": 16385}]}",
		"\"syscall_sites\": {\"count\": 1, \"shown\": 1, \"list\": [\n    {\"count\": 1, \"total\": 0.050000000,",
		"\"groups\": {\"count\": 2, \"shown\": 2, \"list\": [\n    {\"function\": \"worker_fn\", \"threads\": 1,",
		"\"threads\": {\"count\": 2, \"live_at_end\": 1, \"shown\": 2,",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert(strstr(text, want[i]) != NULL, "missing:\n%s\nin:\n%s", want[i], text);
	/* Balanced and closed. */
	int depth = 0;
	bool in_str = false;
	for (const char *p = text; *p; p++) {
		if (in_str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				in_str = false;
			continue;
		}
		if (*p == '"')
			in_str = true;
		depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
		cr_assert_geq(depth, 0);
	}
	cr_assert_eq(depth, 0);
	cr_assert(!in_str);
	free(text);
}

Test(stat_report, names_are_escaped, .init = setup, .fini = teardown)
{
	/* A label with a quote, a control byte and a byte that is not UTF-8. */
	static const char *const s[] = { "a\"b\x01\xff-\xc3\xa9" };
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	sync_batch(&t, 1, 1000000000u, 1000);
	hx_strings(&t, 1, 7, s, 1);
	struct gt_batch b;
	gt_batch_begin(&b, scratch, sizeof scratch, 1, M1, 1000);
	uint64_t a[3] = { 1, M1, GT_G_RUNNING }, l[1] = { 7 };
	gt_batch_event(&b, GT_EV_GO_STATUS, 1001, 3, a);
	gt_batch_event(&b, GT_EV_GO_LABEL, 1002, 1, l);
	emit(&t, &b);
	hx_end_gen(&t);
	cr_assert_eq(read_file(mem, t.len), 0, "%s", st->err);
	char *text = render(true, 0);
	cr_assert(strstr(text, "\"label\": \"a\\\"b\\u0001\\ufffd-\xc3\xa9\"") != NULL, "%s", text);
	cr_assert(strstr(text, "\"function\": null") != NULL, "%s", text);
	free(text);
	text = render(false, 0);
	cr_assert(strstr(text, "a\"b?\xff-\xc3\xa9") != NULL, "%s", text);
	cr_assert(strstr(text, "(unknown)") != NULL, "%s", text);
	free(text);
}

/* ---- the fuzz corpus ---- */

static FILE *memfd_file(const uint8_t *data, size_t n)
{
	int fd = memfd_create("stat", 0);
	if (fd < 0)
		return NULL;
	if ((n && write(fd, data, n) != (ssize_t)n) || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}

Test(stat_acct, fuzz_corpus_reads_without_a_crash)
{
	const char *dir = access("test/fuzz/corpus", R_OK) == 0 ? "test/fuzz/corpus" : "../test/fuzz/corpus";
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "test/fuzz/corpus not found");
	FILE *null = fopen("/dev/null", "w");
	struct dirent *e;
	unsigned inputs = 0;
	static uint8_t data[1 << 20];
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		cr_assert_not_null(f);
		size_t n = fread(data, 1, sizeof data, f);
		fclose(f);
		/* Payloads kept, then read again with pread: the same outcome. */
		struct tool_stat *a = malloc(sizeof *a), *b = malloc(sizeof *b);
		cr_assert(a && b && tool_stat_init(a) == 0 && tool_stat_init(b) == 0);
		static char empty[1];
		FILE *fa = n ? fmemopen(data, n, "r") : fmemopen(empty, 0, "r");
		FILE *fb = memfd_file(data, n);
		cr_assert(fa && fb);
		int ra = tool_stat_read(a, fa), rb = tool_stat_read(b, fb);
		fclose(fa);
		fclose(fb);
		cr_assert_eq(ra, rb, "%s", path);
		cr_assert_str_eq(a->err, b->err, "%s", path);
		cr_assert_eq(a->gens, b->gens, "%s", path);
		cr_assert_eq(a->events, b->events, "%s", path);
		cr_assert_eq(a->nth, b->nth, "%s", path);
		if (strncmp(e->d_name, "valid-", 6) == 0)
			cr_assert_eq(ra, 0, "%s: %s", path, a->err);
		if (ra)
			cr_assert_neq(a->err[0], '\0', "%s", path);
		tool_stat_report(null, a, "fuzz", 3);
		tool_stat_json(null, a, "fuzz", 3, ra ? a->err : NULL);
		tool_stat_free(a);
		tool_stat_free(b);
		free(a);
		free(b);
		inputs++;
	}
	closedir(d);
	fclose(null);
	cr_assert_geq(inputs, 5);
}
