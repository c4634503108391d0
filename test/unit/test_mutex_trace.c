/* test_mutex_trace.c — the mutex profile read from synthetic traces
 * (encoder/writer.h): a lock wait's contention in both forms of wake-up a
 * gotrace trace has (tools/mutex_acct.h) — the waiter's own GoUnblock with
 * the waker's two-frame stack (the holder from the gotrace.holder log), and
 * the releaser's GoUnblock on its M while it runs (the holder is the
 * releaser) — and the waits that are no contention: a timeout
 * (kernel.wakeup) and a condvar wait. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_stat_fixture.h"
#include "tools/stat_acct.h"

enum { S_MAIN = 1, S_WORKER, S_HOLD, S_LOCK, S_UNLOCK, S_WAKEUP, S_MUTEX, S_COND, S_CAT, S_MSG, S_FILE,
       S_CONDWAIT, NSTR };
static const char *const str_text[NSTR] = {
	[S_MAIN] = "main", [S_WORKER] = "worker", [S_HOLD] = "hold", [S_LOCK] = "pthread_mutex_lock",
	[S_UNLOCK] = "pthread_mutex_unlock", [S_WAKEUP] = "kernel.wakeup", [S_MUTEX] = "sync.mutex",
	[S_COND] = "sync.cond", [S_CAT] = "gotrace.holder", [S_MSG] = "held by G1 main (tid 100)",
	[S_FILE] = "app.c", [S_CONDWAIT] = "pthread_cond_wait",
};

enum { K_MAIN = 1, K_WORKER, K_LOCK, K_WAKER, K_RELEASER, K_WAKEUP, K_COND, NSTK };
static const int stk_funcs[NSTK][4] = {
	[K_MAIN] = { S_MAIN }, [K_WORKER] = { S_WORKER }, [K_LOCK] = { S_LOCK, S_WORKER },
	[K_WAKER] = { S_UNLOCK, S_HOLD },                    /* the waiter's record of its waker */
	[K_RELEASER] = { S_UNLOCK, S_HOLD, S_MAIN },         /* the releaser's whole stack */
	[K_WAKEUP] = { S_WAKEUP }, [K_COND] = { S_CONDWAIT, S_WORKER },
};

#define M1 100u
#define M2 200u

/* An event: strings and stacks as symbols (kind: 1 string, 2 stack). */
struct sev {
	uint64_t m, us;
	uint8_t type;
	uint64_t a[4];
};

static int arg_kind(uint8_t type, int i)
{
	switch (type) {
	case GT_EV_GO_CREATE: return i == 1 || i == 2 ? 2 : 0;
	case GT_EV_GO_STATUS_STACK: return i == 3 ? 2 : 0;
	case GT_EV_GO_BLOCK: return i == 0 ? 1 : i == 1 ? 2 : 0;
	case GT_EV_GO_UNBLOCK: return i == 2 ? 2 : 0;
	case GT_EV_USER_LOG: return i == 1 || i == 2 ? 1 : i == 3 ? 2 : 0;
	default: return 0;
	}
}

static uint8_t scratch[GT_MAX_BATCH + 64];
static uint8_t mem[1 << 15];

static void batch(struct hx *t, const struct sev *ev, size_t n, uint64_t m)
{
	struct gt_batch b;
	bool begun = false;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].m != m)
			continue;
		uint64_t ts = ev[i].us * 1000;
		if (!begun) {
			gt_batch_begin(&b, scratch, sizeof scratch, 1, m, ts - 1);
			begun = true;
		}
		uint64_t args[4];
		int nargs = gt_ev_nargs(ev[i].type);
		cr_assert(nargs >= 0 && nargs <= 4);
		for (int k = 0; k < nargs; k++)
			args[k] = arg_kind(ev[i].type, k) && ev[i].a[k] ? ev[i].a[k] + (arg_kind(ev[i].type, k) == 2 ? 1000 : 0)
									 : ev[i].a[k];
		gt_batch_event(&b, ev[i].type, ts, (unsigned)nargs, args);
	}
	if (!begun)
		return;
	sx_append(t, scratch, gt_batch_finish(&b));
}

/* read_trace writes one generation of the events (strings id = symbol,
 * stacks id = 1000 + symbol) and reads it into a fresh stat. */
static struct tool_stat *read_trace(const struct sev *ev, size_t n)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_26);
	hx_sync(&t, 1, 0);
	hx_strings(&t, 1, 1, &str_text[1], NSTR - 1);
	sx_stacks(&t, stk_funcs, NSTK, S_FILE);
	batch(&t, ev, n, M2);
	batch(&t, ev, n, M1);
	hx_end_gen(&t);
	return sx_read(&t);
}

/* The frames of the site of contention i, as function names joined by '<'. */
static const char *site_text(const struct tool_stat *s, size_t i, char *buf, size_t len)
{
	const struct tool_hsite *h = &s->sites.sites[s->mutex.c[i].site];
	const uint32_t *fr = tool_sites_site_frames(&s->sites, s->mutex.c[i].site);
	buf[0] = 0;
	for (uint32_t k = 0; k < h->nframes; k++) {
		if (k)
			strncat(buf, "<", len - strlen(buf) - 1);
		strncat(buf, tool_sites_str(&s->sites, s->sites.frames[fr[k]].func), len - strlen(buf) - 1);
	}
	return buf;
}

/* G1 main runs on M1 and creates G2 (worker) which runs on M2. */
#define PROLOGUE                                                                   \
	{ M1, 1, GT_EV_PROC_STATUS, { 0, GT_P_RUNNING } },                         \
	{ M1, 1, GT_EV_GO_STATUS_STACK, { 1, M1, GT_G_RUNNING, K_MAIN } },         \
	{ M1, 2, GT_EV_GO_CREATE, { 2, K_WORKER, K_MAIN } },                       \
	{ M2, 3, GT_EV_GO_START, { 2, 1 } }

Test(mutex_trace, waiter_written_wakeup_takes_the_holder_from_the_log)
{
	static const struct sev ev[] = {
		PROLOGUE,
		{ M2, 10, GT_EV_USER_LOG, { 0, S_CAT, S_MSG, K_LOCK } },
		{ M2, 10, GT_EV_GO_BLOCK, { S_MUTEX, K_LOCK } },
		{ M2, 200010, GT_EV_GO_UNBLOCK, { 2, 1, K_WAKER } }, /* on the waiter's M, no G running */
		{ M2, 200020, GT_EV_GO_START, { 2, 2 } },
	};
	struct tool_stat *s = read_trace(ev, sizeof ev / sizeof ev[0]);
	cr_assert_eq(s->mutex.contentions, 1);
	cr_expect_eq(s->mutex.delay, 200000000ull);
	cr_expect_eq(s->mutex.from_log, 1);
	cr_assert_eq(s->mutex.n, 1);
	char buf[128];
	cr_expect_str_eq(site_text(s, 0, buf, sizeof buf), "pthread_mutex_unlock<hold");
	cr_assert_neq(s->mutex.c[0].holder, TOOL_MUTEX_NONE);
	cr_expect_eq(s->th[s->mutex.c[0].holder].g, 1);
	sx_done(s);
}

Test(mutex_trace, releaser_written_wakeup_charges_the_releaser)
{
	static const struct sev ev[] = {
		PROLOGUE,
		{ M2, 10, GT_EV_GO_BLOCK, { S_MUTEX, K_LOCK } }, /* no holder log */
		{ M1, 150010, GT_EV_GO_UNBLOCK, { 2, 1, K_RELEASER } }, /* G1 runs on M1 */
		{ M2, 150020, GT_EV_GO_START, { 2, 2 } },
	};
	struct tool_stat *s = read_trace(ev, sizeof ev / sizeof ev[0]);
	cr_assert_eq(s->mutex.contentions, 1);
	cr_expect_eq(s->mutex.delay, 150000000ull);
	cr_expect_eq(s->mutex.from_log, 0);
	char buf[128];
	cr_expect_str_eq(site_text(s, 0, buf, sizeof buf), "pthread_mutex_unlock<hold<main");
	cr_assert_neq(s->mutex.c[0].holder, TOOL_MUTEX_NONE);
	cr_expect_eq(s->th[s->mutex.c[0].holder].g, 1);
	sx_done(s);
}

Test(mutex_trace, timeouts_and_other_waits_are_no_contention)
{
	static const struct sev ev[] = {
		PROLOGUE,
		{ M2, 10, GT_EV_USER_LOG, { 0, S_CAT, S_MSG, K_LOCK } },
		{ M2, 10, GT_EV_GO_BLOCK, { S_MUTEX, K_LOCK } },
		{ M2, 1010, GT_EV_GO_UNBLOCK, { 2, 1, K_WAKEUP } }, /* timed out */
		{ M2, 1020, GT_EV_GO_START, { 2, 2 } },
		{ M2, 2000, GT_EV_GO_BLOCK, { S_COND, K_COND } },
		{ M2, 3000, GT_EV_GO_UNBLOCK, { 2, 3, K_WAKER } }, /* a condvar wake-up */
		{ M2, 3010, GT_EV_GO_START, { 2, 4 } },
	};
	struct tool_stat *s = read_trace(ev, sizeof ev / sizeof ev[0]);
	cr_expect_eq(s->mutex.contentions, 0);
	cr_expect_eq(s->mutex.no_release, 1);
	cr_expect_eq(s->mutex.n, 0);
	sx_done(s);
}
