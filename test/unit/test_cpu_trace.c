/* test_cpu_trace.c — the CPU samples read from synthetic traces
 * (encoder/writer.h) as libgotrace.so writes them, each thread a goroutine
 * with its own M and P: the accounting (samples per site and thread, the
 * stated rate), the ranking `gotrace cpu` prints (flat, cum, thread
 * groups), the pprof profile's content, and stat's "CPU samples" section.
 * The trace is in the 1.23 format, which Go 1.23 and 1.27 both accept
 * (GOTRACE_TEST_CPU_DUMP=FILE keeps it: gtcheck FILE). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_stat_fixture.h"
#include "tools/cpu_report.h"
#include "tools/stat_acct.h"
#include "tools/stat_report.h"

enum { S_MAIN = 1, S_WORKER, S_SPIN, S_HASH, S_FILE, S_LABEL, S_IDENT, NSTR };
static const char *str_text[NSTR] = {
	[S_MAIN] = "main", [S_WORKER] = "worker_main", [S_SPIN] = "spin", [S_HASH] = "hash",
	[S_FILE] = "app.c", [S_LABEL] = "worker-1", [S_IDENT] = "gotrace.process pid=7 ppid=1 cpu_hz=250 cmd=./app -x",
};

enum { K_MAIN = 1, K_WORKER, K_SPIN, K_HASH, NSTK };
static const int stk_funcs[NSTK][4] = {
	[K_MAIN] = { S_MAIN }, [K_WORKER] = { S_WORKER },
	[K_SPIN] = { S_SPIN, S_WORKER },               /* spin ← worker_main */
	[K_HASH] = { S_HASH, S_SPIN, S_WORKER },       /* hash ← spin ← worker_main */
};

#define M1 100u
#define M2 200u
#define M3 300u

struct sample {
	uint64_t us, m, p, g, stack; /* stack: a K_ symbol (0: none) */
};

static uint8_t scratch[GT_MAX_BATCH + 64];
static uint8_t mem[1 << 15];

/* events writes thread m's batch: events (type, us, args...) of G g. */
struct sev {
	uint64_t m, us;
	uint8_t type;
	uint64_t a[4];
};
static void events(struct hx *t, const struct sev *ev, size_t n, uint64_t m)
{
	struct gt_batch b;
	bool begun = false;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].m != m)
			continue;
		if (!begun) {
			gt_batch_begin(&b, scratch, sizeof scratch, 1, m, ev[i].us * 1000 - 1);
			begun = true;
		}
		gt_batch_event(&b, ev[i].type, ev[i].us * 1000, (unsigned)gt_ev_nargs(ev[i].type), ev[i].a);
	}
	if (begun)
		sx_append(t, scratch, gt_batch_finish(&b));
}

/* Stack ids are 1000 + symbol. G1 main runs on M1/P0 and creates G2 and G3
 * (worker_main), which run on M2/P1 and M3/P2; G2 is labelled worker-1. */
static const struct sev prologue[] = {
	{ M1, 1, GT_EV_PROC_STATUS, { 0, GT_P_RUNNING } },
	{ M1, 1, GT_EV_GO_STATUS_STACK, { 1, M1, GT_G_RUNNING, 1000 + K_MAIN } },
	{ M1, 2, GT_EV_GO_CREATE, { 2, 1000 + K_WORKER, 1000 + K_MAIN } },
	{ M1, 3, GT_EV_GO_CREATE, { 3, 1000 + K_WORKER, 1000 + K_MAIN } },
	{ M2, 4, GT_EV_PROC_STATUS, { 1, GT_P_RUNNING } },
	{ M2, 4, GT_EV_GO_START, { 2, 1 } },
	{ M2, 5, GT_EV_GO_LABEL, { S_LABEL } },
	{ M3, 6, GT_EV_PROC_STATUS, { 2, GT_P_RUNNING } },
	{ M3, 6, GT_EV_GO_START, { 3, 1 } },
	{ M1, 900, GT_EV_GO_STOP, { 0, 0 } },
	{ M2, 900, GT_EV_GO_STOP, { 0, 0 } },
	{ M3, 900, GT_EV_GO_STOP, { 0, 0 } },
};

/* The samples: G2 6 in spin, G3 3 in hash, G1 2 in main, 1 with no G. */
static const struct sample samples[] = {
	{ 10, M2, 1, 2, K_SPIN }, { 20, M2, 1, 2, K_SPIN }, { 30, M2, 1, 2, K_SPIN },
	{ 40, M2, 1, 2, K_SPIN }, { 50, M2, 1, 2, K_SPIN }, { 60, M2, 1, 2, K_SPIN },
	{ 15, M3, 2, 3, K_HASH }, { 25, M3, 2, 3, K_HASH }, { 35, M3, 2, 3, K_HASH },
	{ 12, M1, 0, 1, K_MAIN }, { 22, M1, 0, 1, K_MAIN },
	{ 70, M1, 0, 0, K_MAIN },
};
#define NSAMPLES (sizeof samples / sizeof samples[0])

static void cpu_batch(struct hx *t, const struct sample *s, size_t n)
{
	struct gt_batch b;
	gt_batch_begin(&b, scratch, sizeof scratch, 1, GT_NO_THREAD, 0);
	gt_batch_byte(&b, GT_EV_CPU_SAMPLES);
	for (size_t i = 0; i < n; i++) {
		gt_batch_byte(&b, GT_EV_CPU_SAMPLE);
		gt_batch_uvarint(&b, s[i].us * 1000); /* absolute time */
		gt_batch_uvarint(&b, s[i].m);
		gt_batch_uvarint(&b, s[i].p);
		gt_batch_uvarint(&b, s[i].g);
		gt_batch_uvarint(&b, s[i].stack ? 1000 + s[i].stack : 0);
	}
	sx_append(t, scratch, gt_batch_finish(&b));
}

/* read_trace writes one generation (strings: the identity unless
 * no_ident; samples when with_samples, before the stack table as Go writes
 * them) and reads it into a fresh stat. */
static struct tool_stat *read_trace(bool no_ident, bool with_samples)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23); /* Go 1.23 reads it too */
	hx_sync(&t, 1, 0);
	hx_strings(&t, 1, 1, &str_text[1], no_ident ? S_IDENT - 1 : NSTR - 1);
	events(&t, prologue, sizeof prologue / sizeof prologue[0], M1);
	events(&t, prologue, sizeof prologue / sizeof prologue[0], M2);
	events(&t, prologue, sizeof prologue / sizeof prologue[0], M3);
	if (with_samples)
		cpu_batch(&t, samples, NSAMPLES);
	sx_stacks(&t, stk_funcs, NSTK, S_FILE);
	hx_end_gen(&t);
	cr_assert(!t.full);
	/* GOTRACE_TEST_CPU_DUMP=FILE keeps the trace for the Go parsers (gtcheck FILE). */
	const char *dump = getenv("GOTRACE_TEST_CPU_DUMP");
	if (dump && !no_ident && with_samples) {
		FILE *d = fopen(dump, "wb");
		cr_assert_not_null(d);
		cr_assert_eq(fwrite(t.buf, 1, t.len, d), t.len);
		fclose(d);
	}
	return sx_read(&t);
}

static const char *fname(const struct tool_stat *s, uint32_t frame)
{
	return tool_sites_str(&s->sites, s->sites.frames[frame].func);
}

/* samples_of returns the samples charged to goroutine g (0: no thread). */
static uint64_t samples_of(const struct tool_stat *s, uint64_t g)
{
	uint64_t n = 0;
	for (size_t i = 0; i < s->cpu.n; i++) {
		uint32_t th = s->cpu.c[i].thread;
		if (g ? th != TOOL_CPU_NONE && s->th[th].g == g : th == TOOL_CPU_NONE)
			n += s->cpu.c[i].count;
	}
	return n;
}

Test(cpu_trace, samples_are_charged_to_their_goroutine_and_stack)
{
	struct tool_stat *s = read_trace(false, true);
	cr_expect_eq(s->cpu.samples, NSAMPLES);
	cr_expect_eq(s->cpu.no_thread, 1);
	cr_expect_eq(s->cpu.hz, 250);
	cr_expect_eq(tool_cpu_period(&s->cpu), 4000000);
	cr_expect_eq(samples_of(s, 2), 6);
	cr_expect_eq(samples_of(s, 3), 3);
	cr_expect_eq(samples_of(s, 1), 2);
	cr_expect_eq(samples_of(s, 0), 1);
	cr_expect_eq(s->cpu.nraw, 0, "the generation's raw samples are dropped once charged");
	sx_done(s);
}

Test(cpu_trace, without_a_stated_rate_it_is_100_hz)
{
	struct tool_stat *s = read_trace(true, true);
	cr_expect_eq(s->cpu.hz, 0);
	cr_expect_eq(tool_cpu_rate(&s->cpu), 100);
	cr_expect_eq(tool_cpu_period(&s->cpu), 10000000);
	sx_done(s);
}

Test(cpu_trace, ranking_flat_cum_and_groups)
{
	struct tool_stat *s = read_trace(false, true);
	struct tool_cpu_view v;
	cr_assert_eq(tool_cpu_view_build(&v, s), 0);
	/* spin 6 flat, hash 3, main 3 (2 of G1, 1 of no thread); worker_main 0 flat, 9 cum. */
	cr_assert_eq(v.nfuncs, 4);
	cr_expect_str_eq(fname(s, v.funcs[0].frame), "spin");
	cr_expect_eq(v.funcs[0].flat, 6);
	cr_expect_eq(v.funcs[0].cum, 9);
	cr_expect_eq(v.funcs[1].flat, 3);
	cr_expect_eq(v.funcs[2].flat, 3);
	cr_expect_str_eq(fname(s, v.funcs[3].frame), "worker_main");
	cr_expect_eq(v.funcs[3].flat, 0);
	cr_expect_eq(v.funcs[3].cum, 9);
	/* Groups: worker_main (2 threads, 9), main (1 thread, 2), no thread (1). */
	cr_assert_eq(v.ngroups, 3);
	char pc[32];
	cr_expect_str_eq(tool_cpu_group_name(s, &v.groups[0], pc, sizeof pc), "worker_main");
	cr_expect_eq(v.groups[0].threads, 2);
	cr_expect_eq(v.groups[0].samples, 9);
	cr_assert_eq(v.groups[0].nfuncs, 3);
	cr_expect_str_eq(fname(s, v.groups[0].funcs[0].frame), "spin");
	cr_expect_str_eq(fname(s, v.groups[0].funcs[1].frame), "hash");
	cr_expect_str_eq(tool_cpu_group_name(s, &v.groups[1], pc, sizeof pc), "main");
	cr_expect_eq(v.groups[1].samples, 2);
	cr_expect_str_eq(tool_cpu_group_name(s, &v.groups[2], pc, sizeof pc), "(no thread)");
	cr_expect_eq(v.groups[2].threads, 0);
	/* Threads: G2 (labelled) 6, G3 3, G1 2, none 1. */
	cr_assert_eq(v.nthreads, 4);
	char buf[64];
	cr_expect_str_eq(tool_cpu_thread_name(s, v.threads[0].thread, buf, sizeof buf), "worker-1");
	cr_expect_str_eq(tool_cpu_thread_name(s, v.threads[1].thread, buf, sizeof buf), "G3");
	cr_expect_eq(v.threads[1].samples, 3);
	cr_expect_eq(v.threads[3].thread, TOOL_CPU_NONE);
	tool_cpu_view_free(&v);
	sx_done(s);
}

static char *text(const struct tool_stat *s, int (*fn)(FILE *, const struct tool_stat *, unsigned), unsigned top)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cr_assert_not_null(f);
	cr_assert_eq(fn(f, s, top), 0);
	fclose(f);
	return buf;
}

static int report(FILE *f, const struct tool_stat *s, unsigned top)
{
	return tool_cpu_report(f, s, "app.trace", top);
}

static int stat_report(FILE *f, const struct tool_stat *s, unsigned top)
{
	return tool_stat_report(f, s, "app.trace", top);
}

static int stat_json(FILE *f, const struct tool_stat *s, unsigned top)
{
	return tool_stat_json(f, s, "app.trace", top, NULL);
}

Test(cpu_trace, cpu_report_text)
{
	struct tool_stat *s = read_trace(false, true);
	char *t = text(s, report, 10);
	cr_expect_not_null(strstr(t, "12 samples, 48.0ms of CPU time: 4.0ms per sample at 250 Hz (the rate the trace states)"), "%s", t);
	cr_expect_not_null(strstr(t, "24.0ms  50.0%  50.0%    36.0ms  75.0%        6  spin\n"), "%s", t);
	cr_expect_not_null(strstr(t, " worker_main: 2 threads, 9 samples, 36.0ms (75.0%)"), "%s", t);
	cr_expect_not_null(strstr(t, "G2 worker-1 (worker_main)"), "%s", t);
	cr_expect_not_null(strstr(t, "(1 sample of no known thread"), "%s", t);
	free(t);
	sx_done(s);
	s = read_trace(true, true);
	t = text(s, report, 10);
	cr_expect_not_null(strstr(t, "at 100 Hz (Go's default: the trace does not state its rate)"), "%s", t);
	free(t);
	sx_done(s);
}

Test(cpu_trace, stat_section_only_with_samples)
{
	struct tool_stat *s = read_trace(false, true);
	char *t = text(s, stat_report, 10);
	const char *sec = strstr(t, "\nCPU samples (see `gotrace cpu`)\n");
	cr_assert_not_null(sec, "%s", t);
	cr_expect_not_null(strstr(sec, "  worker_main: 2 threads, 36.0ms (75.0%)\n"
				       "       24.0ms  50.0%  spin\n"
				       "       12.0ms  25.0%  hash\n"
				       "  main: 1 thread, 8.0ms (16.7%)\n"), "%s", sec);
	free(t);
	t = text(s, stat_json, 10);
	cr_expect_not_null(strstr(t, "\"cpu\": {\"samples\": 12, \"hz\": 250, \"hz_stated\": true"), "%s", t);
	cr_expect_not_null(strstr(t, "{\"function\": \"worker_main\", \"threads\": 2, \"samples\": 9"), "%s", t);
	cr_expect_not_null(strstr(t, "\"top\": [{\"function\": \"spin\", \"flat\": 6, \"cum\": 9}, "
				     "{\"function\": \"hash\", \"flat\": 3, \"cum\": 3}]"), "%s", t);
	free(t);
	sx_done(s);

	s = read_trace(false, false);
	t = text(s, stat_report, 10);
	cr_expect_null(strstr(t, "CPU samples"), "%s", t);
	free(t);
	t = text(s, stat_json, 10);
	cr_expect_not_null(strstr(t, "\"cpu\": {\"samples\": 0,"), "%s", t);
	free(t);
	sx_done(s);
}

Test(cpu_trace, parse_hz)
{
	uint64_t hz = 0;
#define P(str) tool_cpu_parse_hz(str, strlen(str), &hz)
	cr_expect_eq(P("gotrace.process pid=1 ppid=0 cpu_hz=97 cmd=x"), 1);
	cr_expect_eq(hz, 97);
	cr_expect_eq(P("gotrace.process cpu_hz=1000 pid=1"), 1);
	cr_expect_eq(hz, 1000);
	cr_expect_eq(P("gotrace.process pid=1 cmd=x cpu_hz=5"), 0, "inside cmd=");
	cr_expect_eq(P("gotrace.process pid=1 cpu_hz=0 cmd=x"), 0);
	cr_expect_eq(P("gotrace.process pid=1 cpu_hz=12x cmd=x"), 0);
	cr_expect_eq(P("gotrace.process pid=1 cpu_hz=99999999999 cmd=x"), 0);
	cr_expect_eq(P("gotrace.process pid=1 cpu_hz= cmd=x"), 0);
	cr_expect_eq(P("gotrace.heap cpu_hz=5"), 0);
#undef P
}

/* ---- the profile, read back ---- */

static uint64_t uv(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (unsigned sh = 0; sh < 70; sh += 7) {
		cr_assert_lt(*p, end);
		uint8_t c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			return v;
	}
	cr_assert_fail("long varint");
	return 0;
}

struct fld {
	unsigned num;
	uint64_t v;
	const uint8_t *p;
	size_t len;
};

static int fld(const uint8_t **p, const uint8_t *end, struct fld *f)
{
	if (*p == end)
		return 0;
	uint64_t key = uv(p, end);
	f->num = (unsigned)(key >> 3);
	if ((key & 7) == 0) {
		f->v = uv(p, end);
	} else {
		cr_assert_eq(key & 7, 2);
		f->len = (size_t)uv(p, end);
		f->p = *p;
		*p += f->len;
	}
	return 1;
}

Test(cpu_trace, pprof_is_a_cpu_profile_with_thread_and_group_labels)
{
	struct tool_stat *s = read_trace(false, true);
	struct tool_pprof p;
	cr_assert_eq(tool_cpu_pprof(s, "app.trace", &p), 0);
	char *str[64] = { 0 };
	size_t nstr = 0;
	int64_t types[4][2], ptype = 0, period = 0;
	size_t ntypes = 0;
	struct { int64_t v[2]; int64_t thread, group, kthread, kgroup; } smp[16];
	size_t nsmp = 0;
	const uint8_t *q = p.out.buf, *end = p.out.buf + p.out.len;
	struct fld f, g, h;
	while (fld(&q, end, &f)) {
		const uint8_t *r = f.p, *rend = f.p + f.len;
		if (f.num == 6) {
			cr_assert_lt(nstr, 64);
			str[nstr++] = strndup((const char *)f.p, f.len);
		} else if (f.num == 1 || f.num == 11) {
			int64_t t = 0, u = 0;
			while (fld(&r, rend, &g))
				g.num == 1 ? (t = (int64_t)g.v) : (u = (int64_t)g.v);
			if (f.num == 1) {
				types[ntypes][0] = t;
				types[ntypes++][1] = u;
			} else {
				ptype = t;
			}
		} else if (f.num == 12) {
			period = (int64_t)f.v;
		} else if (f.num == 2) {
			cr_assert_lt(nsmp, 16);
			memset(&smp[nsmp], 0, sizeof smp[0]);
			size_t nv = 0;
			int64_t keys[2], strs[2];
			size_t nl = 0;
			while (fld(&r, rend, &g)) {
				const uint8_t *u = g.p, *uend = g.p + g.len;
				if (g.num == 2)
					while (u < uend)
						smp[nsmp].v[nv++] = (int64_t)uv(&u, uend);
				if (g.num == 3) {
					while (fld(&u, uend, &h))
						if (h.num == 1)
							keys[nl] = (int64_t)h.v;
						else if (h.num == 2)
							strs[nl] = (int64_t)h.v;
					nl++;
				}
			}
			cr_assert_eq(nv, 2);
			cr_assert_eq(nl, 2);
			/* Label keys are checked once the strings are all read. */
			smp[nsmp].thread = strs[0];
			smp[nsmp].group = strs[1];
			smp[nsmp].kthread = keys[0];
			smp[nsmp].kgroup = keys[1];
			nsmp++;
		}
	}
	cr_assert_eq(ntypes, 2);
	cr_expect_str_eq(str[types[0][0]], "samples");
	cr_expect_str_eq(str[types[0][1]], "count");
	cr_expect_str_eq(str[types[1][0]], "cpu");
	cr_expect_str_eq(str[types[1][1]], "nanoseconds");
	cr_expect_str_eq(str[ptype], "cpu");
	cr_expect_eq(period, 4000000);
	int64_t total = 0, worker = 0, w1 = 0;
	for (size_t i = 0; i < nsmp; i++) {
		cr_expect_eq(smp[i].v[1], smp[i].v[0] * 4000000);
		cr_expect_str_eq(str[smp[i].kthread], "thread");
		cr_expect_str_eq(str[smp[i].kgroup], "group");
		total += smp[i].v[0];
		if (strcmp(str[smp[i].group], "worker_main") == 0)
			worker += smp[i].v[0];
		if (strcmp(str[smp[i].thread], "worker-1") == 0)
			w1 += smp[i].v[0];
	}
	cr_expect_eq(total, 12);
	cr_expect_eq(worker, 9);
	cr_expect_eq(w1, 6);
	for (size_t i = 0; i < nstr; i++)
		free(str[i]);
	tool_pprof_free(&p);
	sx_done(s);
}
