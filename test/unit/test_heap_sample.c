/* test_heap_sample.c — sampled heap events in `gotrace heap` and `gotrace
 * stat`: the sampling statement, the weight arithmetic (checked against the
 * formulas and, by simulation, for unbiasedness and its standard error),
 * and the scaling of synthetic sampled traces into estimates, text and
 * pprof. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sample.h"
#include "test_heap_fixture.h"
#include "tools/heap_acct.h"
#include "tools/heap_report.h"
#include "tools/heap_sample.h"
#include "tools/stat_acct.h"
#include "tools/stat_report.h"

#define close_to(a, b, rel) (fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)))

/* ---- the statement ---- */

static int parse(const char *s, uint64_t *mean)
{
	*mean = 12345;
	return tool_heap_sample_parse(s, strlen(s), mean);
}

Test(heap_sample, statement_is_parsed)
{
	uint64_t m;
	cr_assert_eq(parse("gotrace.heap sample_bytes=2048", &m), 1);
	cr_assert_eq(m, 2048);
	cr_assert_eq(parse("gotrace.heap mode=x sample_bytes=65536 later=1", &m), 1, "other fields are skipped");
	cr_assert_eq(m, 65536);
	cr_assert_eq(parse("gotrace.heap sample_bytes=0", &m), 1, "0: every allocation");
	cr_assert_eq(m, 0);
	/* Not NUL-terminated: only len bytes count. */
	const char *s = "gotrace.heap sample_bytes=20489";
	cr_assert_eq(tool_heap_sample_parse(s, strlen(s) - 1, &m), 1);
	cr_assert_eq(m, 2048);

	static const char *const bad[] = {
		"gotrace.heap sample_bytes=", "gotrace.heap sample_bytes=12a", "gotrace.heap sample_bytes=-5",
		"gotrace.heap sample_bytes=99999999999999999999999", "gotrace.heap sample_bytes=4503599627370497",
		"gotrace.heapsample_bytes=1", "gotrace.heap", "gotrace.heap other=1", "gotrace.process pid=1 cmd=x",
		"gotrace.heap xsample_bytes=5", "", "GOTRACE.HEAP sample_bytes=1",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(parse(bad[i], &m), 0, "%s", bad[i]);
}

/* ---- the weights ---- */

Test(heap_sample, weights_follow_the_formulas)
{
	const double e = exp(1);
	/* s = M: p = 1 - 1/e */
	cr_assert(close_to(tool_heap_sample_p(2048, 2048), 1 - 1 / e, 1e-15));
	cr_assert(close_to(tool_heap_sample_weight(2048, 2048), 1 / (1 - 1 / e), 1e-15));
	cr_assert(close_to(tool_heap_sample_weight(16, 2048), 1 / (1 - exp(-16.0 / 2048)), 1e-12));
	/* tiny s/M keeps its precision: p = x - x^2/2 + ... */
	double x = 1.0 / (1 << 20);
	cr_assert(close_to(tool_heap_sample_p(1, 1 << 20), x - x * x / 2, 1e-12));
	cr_assert(close_to(tool_heap_sample_weight(1, 1 << 20), (double)(1 << 20) + 0.5, 1e-9));
	/* large objects are always recorded */
	cr_assert(close_to(tool_heap_sample_weight(65536, 2048), 1, 1e-12));
	/* every allocation recorded, or size 0: weight 1, no variance */
	cr_assert_eq(tool_heap_sample_p(48, 0), 1);
	cr_assert_eq(tool_heap_sample_weight(48, 0), 1);
	cr_assert_eq(tool_heap_sample_weight(0, 2048), 1);
	cr_assert_eq(tool_heap_sample_var(48, 0, 48), 0);
	cr_assert_eq(tool_heap_sample_var(0, 2048, 1), 0);
	cr_assert_eq(tool_heap_sample_rse(48, 100, 0), 0);
	cr_assert_eq(tool_heap_sample_seen(1, 0), 1);
	cr_assert_eq(tool_heap_sample_seen(0, 2048), 0);

	/* var: x^2 (1-p)/p^2; rse of n objects: sqrt((1-p)/(n p)) */
	double p = tool_heap_sample_p(100, 2048);
	cr_assert(close_to(tool_heap_sample_var(100, 2048, 100), 100.0 * 100 * (1 - p) / (p * p), 1e-12));
	cr_assert(close_to(tool_heap_sample_rse(100, 500, 2048), sqrt((1 - p) / (500 * p)), 1e-12));
	/* Expected recorded variance over n objects, over the squared total,
	 * is the rse squared: n p x^2 (1-p)/p^2 / (n x)^2 = (1-p)/(n p). */
	double n = 500;
	cr_assert(close_to(n * p * tool_heap_sample_var(100, 2048, 100) / (n * 100 * n * 100),
			   pow(tool_heap_sample_rse(100, n, 2048), 2), 1e-12));

	/* A leak of n objects of s bytes is seen with 1-(1-p(s))^n = 1-exp(-ns/M). */
	for (unsigned s = 8; s <= 8192; s *= 4) {
		double q = tool_heap_sample_p(s, 2048);
		cr_assert(close_to(tool_heap_sample_seen(100.0 * s, 2048), 1 - pow(1 - q, 100), 1e-9), "s = %u", s);
	}
	cr_assert(close_to(tool_heap_sample_seen(2048, 2048), 1 - 1 / e, 1e-15));
	cr_assert(close_to(tool_heap_sample_seen(64, 2048), 0.0308, 0.01)); /* one 64-byte object: 3% */
}

/* A reproducible uniform generator (splitmix64). */
static uint64_t rng_state;
static double uniform(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

Test(heap_sample, estimates_are_unbiased_with_the_stated_error)
{
	/* R simulated recordings of a population of mixed sizes (sampled as the
	 * library does: each allocation independently with p(s)): the mean of
	 * the estimates is the truth, their spread is the theoretical standard
	 * error sqrt(sum s^2 (1-p)/p) / sum s, and the per-recording variance
	 * estimate (what the report's s.e. shows) is right on average. */
	enum { R = 400, N = 3000 };
	const uint64_t mean = 2048;
	static uint64_t size[N];
	double truth = 0, var = 0;
	rng_state = 1;
	for (int i = 0; i < N; i++) {
		size[i] = 16u << (i % 7); /* 16 B .. 1 KiB */
		double p = tool_heap_sample_p(size[i], mean);
		truth += (double)size[i];
		var += (double)size[i] * (double)size[i] * (1 - p) / p;
	}
	double sum = 0, sum2 = 0, var_est = 0;
	for (int r = 0; r < R; r++) {
		double est = 0, v = 0;
		for (int i = 0; i < N; i++) {
			if (uniform() >= tool_heap_sample_p(size[i], mean))
				continue;
			est += (double)size[i] * tool_heap_sample_weight(size[i], mean);
			v += tool_heap_sample_var(size[i], mean, (double)size[i]);
		}
		sum += est;
		sum2 += est * est;
		var_est += v;
	}
	double avg = sum / R, sd = sqrt(sum2 / R - avg * avg), se = sqrt(var);
	/* 4 standard errors of the mean of R estimates */
	cr_assert(fabs(avg - truth) < 4 * se / sqrt(R), "mean %.0f, truth %.0f, se %.0f", avg, truth, se);
	cr_assert(close_to(sd, se, 0.15), "spread %.0f, theory %.0f", sd, se);
	cr_assert(close_to(var_est / R, var, 0.15), "variance estimate %.3g, theory %.3g", var_est / R, var);
}

/* ---- sampled traces ---- */

#define T(g) ((uint64_t)(g) * 1000000u)
#define MEAN 1024

static uint8_t mem[1 << 20];
static struct tool_heap *heap;

static void setup(void)
{
	heap = malloc(sizeof *heap);
	cr_assert_not_null(heap);
	cr_assert_eq(tool_heap_init(heap), 0);
}

static void teardown(void)
{
	tool_heap_release(heap);
	free(heap);
}

/* Sites: leak_fn 48 B, churn_fn 32 B, big_fn 4096 B; type ids = 1, 2, 3
 * and stack ids 1, 2, 3 in every generation. */
static const uint64_t SIZE[4] = { 0, 48, 32, 4096 };

/* tables writes generation g's tables; statement = "" for none. */
static void tables(struct hx *t, unsigned g, const char *statement)
{
	static const char *const names[] = { "malloc", "leak_fn", "churn_fn", "big_fn", "main", "heap.c", "malloc.c" };
	hx_strings(t, g, 1, names, 7); /* ids 1..7 */
	if (*statement)
		hx_strings(t, g, 50, &statement, 1);
	for (unsigned i = 1; i <= 3; i++) {
		struct gt_frame f[3] = { { 0x1000, 1, 7, 100 }, { 0x2000 + i, 1 + i, 6, 10 * i }, { 0x3000, 5, 6, 50 } };
		hx_stack(t, g, i, f, 3);
	}
	hx_info(t, g, 0, 8);
	struct hx_type ty[3] = { { 1, 1, SIZE[1] }, { 2, 2, SIZE[2] }, { 3, 3, SIZE[3] } };
	hx_types(t, g, ty, 3);
}

static struct hx_ev alloc_ev(uint64_t ts, uint64_t id, uint64_t type)
{
	return (struct hx_ev){ GT_EV_HEAP_OBJECT_ALLOC, ts, id, type };
}
static struct hx_ev free_ev(uint64_t ts, uint64_t id)
{
	return (struct hx_ev){ GT_EV_HEAP_OBJECT_FREE, ts, id, 0 };
}

static int read_mem(size_t len)
{
	return hx_read_heap(heap, mem, len);
}

/* site_of finds the site whose second frame is function fn. */
static const struct tool_hsite *site_of(const char *fn)
{
	return hx_site_of(heap, fn);
}

static double w(unsigned type, uint64_t mean)
{
	return tool_heap_sample_weight(SIZE[type], mean);
}

/* one_gen: 10 leaks of 48 B (ids 100..), 5 churn pairs of 32 B (id 7),
 * two 4 KiB objects (ids 200, 201), the first freed. */
static size_t one_gen(const char *statement)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	hx_sync(&t, 1, T(1));
	tables(&t, 1, statement);
	struct hx_ev ev[32];
	size_t n = 0;
	for (unsigned i = 0; i < 10; i++)
		ev[n++] = alloc_ev(T(1) + 10 + i, 100 + i, 1);
	for (unsigned j = 0; j < 5; j++) {
		ev[n++] = alloc_ev(T(1) + 100 + 2 * j, 7, 2);
		ev[n++] = free_ev(T(1) + 101 + 2 * j, 7);
	}
	ev[n++] = alloc_ev(T(1) + 200, 200, 3);
	ev[n++] = alloc_ev(T(1) + 201, 201, 3);
	ev[n++] = free_ev(T(1) + 202, 200);
	hx_events(&t, 1, 1, ev, n);
	hx_end_gen(&t);
	cr_assert(!t.full);
	return t.len;
}

Test(heap_scale, each_recorded_allocation_counts_its_weight, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(one_gen("gotrace.heap sample_bytes=1024")), 0, "%s", heap->err);
	cr_assert_eq(heap->sampled_gens, 1);
	cr_assert_eq(heap->sample_bytes, MEAN);
	cr_assert_eq(heap->sample_min, MEAN);
	cr_assert_eq(heap->sample_max, MEAN);
	/* Recorded counts are the events. */
	cr_assert_eq(heap->alloc_objects, 17);
	cr_assert_eq(heap->live_objects, 11);

	const struct tool_hsite *leak = site_of("leak_fn"), *churn = site_of("churn_fn"), *big = site_of("big_fn");
	cr_assert(leak && churn && big);
	cr_assert(close_to(leak->est.alloc_objects, 10 * w(1, MEAN), 1e-12));
	cr_assert(close_to(leak->est.alloc_bytes, 10 * 48 * w(1, MEAN), 1e-12));
	cr_assert(close_to(leak->est.live_objects, 10 * w(1, MEAN), 1e-12));
	cr_assert(close_to(leak->est.live_bytes, 10 * 48 * w(1, MEAN), 1e-12));
	cr_assert(close_to(leak->est.var_live_bytes, 10 * tool_heap_sample_var(48, MEAN, 48), 1e-12));
	cr_assert(close_to(churn->est.alloc_objects, 5 * w(2, MEAN), 1e-12));
	cr_assert(close_to(churn->est.alloc_bytes, 5 * 32 * w(2, MEAN), 1e-12));
	cr_assert_eq(churn->est.live_objects, 0, "every recorded object freed: exactly 0");
	cr_assert_eq(churn->est.live_bytes, 0);
	cr_assert_eq(churn->est.var_live_bytes, 0);
	cr_assert(close_to(big->est.alloc_bytes, 2 * 4096 * w(3, MEAN), 1e-12));
	cr_assert(close_to(big->est.live_bytes, 4096 * w(3, MEAN), 1e-12));

	double live = 10 * 48 * w(1, MEAN) + 4096 * w(3, MEAN);
	cr_assert(close_to(heap->est.live_bytes, live, 1e-12));
	cr_assert(close_to(heap->est.alloc_bytes, 10 * 48 * w(1, MEAN) + 5 * 32 * w(2, MEAN) + 2 * 4096 * w(3, MEAN),
			   1e-12));
	/* The peak: both big objects live with the leaks, each object's bytes
	 * rounded as the library's HeapAlloc metric adds them. */
	cr_assert_eq(heap->peak_bytes, 10 * gt_sample_weight(48, MEAN) + 2 * gt_sample_weight(4096, MEAN));
	cr_assert(close_to(heap->peak_bytes, live + 4096 * w(3, MEAN), 1e-3));
	cr_assert(close_to(heap->peak_objects, 10 * w(1, MEAN) + 2 * w(3, MEAN), 1e-12));
	cr_assert(fabs(heap->peak_time - 202e-9) < 1e-12, "%.9f", heap->peak_time); /* base T(1) - 1 */
}

Test(heap_scale, without_the_statement_the_figures_are_the_counts, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(one_gen("")), 0, "%s", heap->err);
	cr_assert_eq(heap->sampled_gens, 0);
	cr_assert_eq(heap->est.alloc_objects, 17);
	cr_assert_eq(heap->est.alloc_bytes, 10 * 48 + 5 * 32 + 2 * 4096);
	cr_assert_eq(heap->est.live_bytes, 10 * 48 + 4096);
	cr_assert_eq(heap->est.live_objects, 11);
	cr_assert_eq(heap->est.var_alloc_bytes, 0);
	cr_assert_eq(heap->peak_bytes, 10 * 48 + 2 * 4096);
	cr_assert_eq(site_of("leak_fn")->est.live_bytes, 480);
	/* sample_bytes=0 says the same */
	tool_heap_release(heap);
	cr_assert_eq(tool_heap_init(heap), 0);
	cr_assert_eq(read_mem(one_gen("gotrace.heap sample_bytes=0")), 0, "%s", heap->err);
	cr_assert_eq(heap->sampled_gens, 0);
	cr_assert_eq(heap->est.alloc_bytes, 10 * 48 + 5 * 32 + 2 * 4096);
}

Test(heap_scale, an_object_keeps_the_mean_it_was_allocated_with, .init = setup, .fini = teardown)
{
	/* gen 1: every allocation (no statement); gen 2: mean 1024; gen 3: no
	 * statement (keeps 1024); gen 4: mean 4096. Objects allocated in one
	 * generation are freed in later ones: each free takes back what its
	 * allocation added, so live goes back to exactly 0. */
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	static const char *const stm[5] = { "", "", "gotrace.heap sample_bytes=1024", "", "gotrace.heap sample_bytes=4096" };
	for (unsigned g = 1; g <= 4; g++) {
		hx_sync(&t, g, T(g));
		tables(&t, g, stm[g]);
		struct hx_ev ev[4];
		size_t n = 0;
		if (g > 1)
			ev[n++] = free_ev(T(g) + 10, 100 + g - 1); /* the leak of the generation before */
		ev[n++] = alloc_ev(T(g) + 20, 100 + g, 1);
		if (g == 4)
			ev[n++] = free_ev(T(g) + 30, 100 + g);
		hx_events(&t, g, 1, ev, n);
		hx_end_gen(&t);
	}
	cr_assert(!t.full);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(heap->gens, 4);
	cr_assert_eq(heap->sampled_gens, 3);
	cr_assert_eq(heap->sample_min, 1024);
	cr_assert_eq(heap->sample_max, 4096);
	cr_assert_eq(heap->sample_bytes, 4096);
	cr_assert_eq(heap->live_objects, 0);
	cr_assert_eq(heap->est.live_bytes, 0);
	cr_assert_eq(heap->est.live_objects, 0);
	double want = 1 + 2 * w(1, 1024) + w(1, 4096);
	cr_assert(close_to(heap->est.alloc_objects, want, 1e-12), "%f %f", heap->est.alloc_objects, want);
	cr_assert(close_to(heap->peak_objects, w(1, 4096), 1e-12), "the last allocation has the largest weight");
	cr_assert_eq(heap->unknown_frees, 0);
}

Test(heap_scale, a_replaced_object_is_freed_with_its_own_weight, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	hx_sync(&t, 1, T(1));
	tables(&t, 1, "gotrace.heap sample_bytes=1024");
	struct hx_ev ev[] = { alloc_ev(T(1) + 10, 5, 1), alloc_ev(T(1) + 20, 5, 3) }; /* the free was not recorded */
	hx_events(&t, 1, 1, ev, 2);
	hx_end_gen(&t);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	cr_assert_eq(heap->replaced, 1);
	cr_assert(close_to(heap->est.live_bytes, 4096 * w(3, MEAN), 1e-12));
	cr_assert_eq(site_of("leak_fn")->est.live_bytes, 0);
}

/* ---- what the user reads ---- */

/* report prints the report into *text (the caller frees it). */
static void report(unsigned top, char **text)
{
	size_t len = 0;
	*text = NULL;
	FILE *out = open_memstream(text, &len);
	tool_heap_report(out, heap, "x.trace", top);
	fclose(out);
}

Test(heap_scale, the_report_says_sampled_and_estimated, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(one_gen("gotrace.heap sample_bytes=1024")), 0, "%s", heap->err);
	char *text;
	report(10, &text);
	static const char *const want[] = {
		"Sampled: about one allocation per 1.0 KiB allocated was recorded (mean 1024 B).",
		"Every figure below is an estimate",
		"1/(1-exp(-s/1024))",
		"GOTRACE_MALLOC=all records every allocation",
		"objects          bytes  (estimated)",
		"recorded             17 allocations and 6 frees (11 objects live at the end)",
		"Live at the end (leaks) by allocation site, estimated (top 2 of 2 sites)",
		"1-exp(-L/1024)",
		"63% for L = 1.0 KiB, 95% for 3.0 KiB, 99.3% for 5.0 KiB",
		"may be missing; GOTRACE_MALLOC=all finds every leak",
		"Top allocation sites by bytes allocated, estimated (top 3 of 3 sites)",
		"Top allocation sites by allocation count, estimated (top 3 of 3 sites)",
		"s.e.  allocated by, then the site (leaf first)",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert(strstr(text, want[i]), "missing \"%s\" in:\n%s", want[i], text);

	/* Rows: rounded estimates and the s.e. of the first figure. */
	char row[200], err[16];
	const struct tool_hsite *leak = site_of("leak_fn");
	double rse = sqrt(leak->est.var_live_bytes) / leak->est.live_bytes * 100;
	snprintf(err, sizeof err, "%.1f%%", rse);
	snprintf(row, sizeof row, "%12lld %10lld %6s  malloc, 48 B each\n", llround(10 * 48 * w(1, MEAN)),
		 llround(10 * w(1, MEAN)), err);
	const char *leaks = strstr(text, "Live at the end"), *by_bytes = strstr(text, "Top allocation sites by bytes");
	const char *r = strstr(leaks, row);
	cr_assert(r && r < by_bytes, "missing row \"%s\" in the leaks:\n%s", row, text);
	/* a 4 KiB object is recorded with p = 98%: the s.e. of one is sqrt(1-p) */
	const struct tool_hsite *big = site_of("big_fn");
	cr_assert(close_to(sqrt(big->est.var_live_bytes) / big->est.live_bytes, sqrt(exp(-4.0)), 1e-12));
	snprintf(err, sizeof err, "%.1f%%", 100 * sqrt(big->est.var_live_bytes) / big->est.live_bytes);
	snprintf(row, sizeof row, "%12lld %10lld %6s  malloc, 4096 B each\n", llround(4096 * w(3, MEAN)), 1ll, err);
	cr_assert(strstr(leaks, row), "missing row \"%s\" in:\n%s", row, text);
	char want_total[120];
	snprintf(want_total, sizeof want_total, "live at end  %10lld %14lld", llround(10 * w(1, MEAN) + w(3, MEAN)),
		 llround(10 * 48 * w(1, MEAN) + 4096 * w(3, MEAN)));
	cr_assert(strstr(text, want_total), "missing \"%s\" in:\n%s", want_total, text);
	free(text);
}

Test(heap_scale, an_unsampled_report_says_nothing_of_sampling, .init = setup, .fini = teardown)
{
	cr_assert_eq(read_mem(one_gen("")), 0, "%s", heap->err);
	char *text;
	report(10, &text);
	cr_assert_null(strstr(text, "ampled"), "%s", text);
	cr_assert_null(strstr(text, "estimate"), "%s", text);
	cr_assert_null(strstr(text, "s.e."), "%s", text);
	cr_assert(strstr(text, "Live at the end (leaks) by allocation site (top 2 of 2 sites)"), "%s", text);
	cr_assert(strstr(text, "         480         10  malloc, 48 B each\n"), "%s", text);
	free(text);
}

Test(heap_scale, a_sampled_trace_without_recorded_leaks_says_what_it_misses, .init = setup, .fini = teardown)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	hx_sync(&t, 1, T(1));
	tables(&t, 1, "gotrace.heap sample_bytes=65536");
	struct hx_ev ev[] = { alloc_ev(T(1) + 10, 5, 3), free_ev(T(1) + 20, 5) };
	hx_events(&t, 1, 1, ev, 2);
	hx_end_gen(&t);
	cr_assert_eq(read_mem(t.len), 0, "%s", heap->err);
	char *text;
	report(10, &text);
	const char *leaks = strstr(text, "Live at the end (leaks) by allocation site, estimated (top 0 of 0 sites)");
	cr_assert_not_null(leaks, "%s", text);
	cr_assert(strstr(leaks, "1-exp(-L/65536)"), "%s", text);
	cr_assert(strstr(leaks, "much less than 64.0 KiB in all may be missing"), "%s", text);
	cr_assert(strstr(leaks, "  (none)\n"), "%s", text);
	free(text);
}

/* ---- gotrace stat ---- */

Test(heap_scale, stat_says_the_heap_events_are_sampled)
{
	struct tool_stat *st = malloc(sizeof *st);
	cr_assert_not_null(st);
	for (int sampled = 0; sampled <= 1; sampled++) {
		size_t len = one_gen(sampled ? "gotrace.heap sample_bytes=1024" : "");
		cr_assert_eq(tool_stat_init(st), 0);
		struct hx t = { .buf = mem, .len = len, .cap = sizeof mem };
		FILE *f = hx_file(&t);
		cr_assert_eq(tool_stat_read(st, f), 0, "%s", st->err);
		fclose(f);
		tool_stat_finish(st);
		cr_assert_eq(st->heap_sample_bytes, sampled ? 1024 : 0);
		char *text = NULL;
		size_t n = 0;
		FILE *out = open_memstream(&text, &n);
		tool_stat_report(out, st, "x.trace", 5);
		fclose(out);
		const char *line = "  heap events sampled: about one allocation per 1.0 KiB allocated recorded (mean 1024 B);\n";
		if (sampled)
			cr_assert(strstr(text, line), "%s", text);
		else
			cr_assert_null(strstr(text, "sampled"), "%s", text);
		free(text);
		out = open_memstream(&text, &n);
		tool_stat_json(out, st, "x.trace", 5, NULL);
		fclose(out);
		cr_assert(strstr(text, sampled ? "\"sample_bytes\": 1024," : "\"sample_bytes\": 0,"), "%s", text);
		free(text);
		tool_stat_free(st);
	}
	free(st);
}
