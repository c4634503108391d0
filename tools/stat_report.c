/* stat_report.c — the text summary and the JSON object of `gotrace stat`
 * (stat_report.h). */
#include "units.h"
#include "tools/stat_report.h"
#include "tools/map_report.h"
#include "tools/cpu_report.h"
#include "tools/mutex_report.h"
#include "tools/rank_list.h"
#include "tools/stat_site.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned long long ull;

#define IDENT_WIDTH 200 /* characters of the traced command line shown (JSON has it all) */

/* ---- the figures, ranked ---- */

struct group {
	uint64_t key;       /* what the threads share: see name_key */
	uint32_t first;     /* a thread of the group (for its name) */
	uint32_t threads;
	uint64_t lifetime, running, runnable, syscall;
	uint64_t blocked[TOOL_STAT_REASONS];
};

struct view {
	const struct tool_stat *s;
	uint32_t *threads;       /* ranked */
	struct group *groups;    /* ranked */
	size_t ngroups;
	uint32_t *waits;         /* ranked, sleeps left out */
	size_t nwaits;
	uint32_t *syscalls;      /* ranked */
	int sleep_slot;          /* the reason slot called "sleep", or -1 */
	size_t live;             /* threads not ended */
	struct group all;        /* every thread */
};

static uint64_t not_running(const struct tool_stat *s, const uint64_t *blocked, uint64_t runnable, uint64_t syscall)
{
	uint64_t sum = runnable + syscall;
	for (size_t i = 0; i < s->nreasons; i++)
		sum += blocked[i];
	return sum;
}

/* name_key says which start function a thread has: its function name's
 * string, an unnamed frame (1 << 32 | frame), or none (UINT64_MAX). */
static uint64_t name_key(const struct tool_stat *s, const struct tool_sthread *t)
{
	if (t->func == TOOL_STAT_NONE)
		return UINT64_MAX;
	const struct tool_hframe *f = &s->sites.frames[t->func];
	if (tool_sites_strlen(&s->sites, f->func) > 0)
		return f->func;
	return 1ull << 32 | t->func;
}

static int cmp_threads(const void *a, const void *b, void *arg)
{
	const struct tool_stat *s = arg;
	const struct tool_sthread *x = &s->th[*(const uint32_t *)a], *y = &s->th[*(const uint32_t *)b];
	uint64_t nx = not_running(s, x->blocked, x->runnable, x->syscall);
	uint64_t ny = not_running(s, y->blocked, y->runnable, y->syscall);
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

static int cmp_key(const void *a, const void *b, void *arg)
{
	const struct tool_stat *s = arg;
	uint64_t x = name_key(s, &s->th[*(const uint32_t *)a]), y = name_key(s, &s->th[*(const uint32_t *)b]);
	if (x != y)
		return x < y ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int cmp_groups(const void *a, const void *b, void *arg)
{
	const struct tool_stat *s = arg;
	const struct group *x = a, *y = b;
	uint64_t nx = not_running(s, x->blocked, x->runnable, x->syscall);
	uint64_t ny = not_running(s, y->blocked, y->runnable, y->syscall);
	if (nx != ny)
		return nx > ny ? -1 : 1;
	if (x->threads != y->threads)
		return x->threads > y->threads ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_sites(const void *a, const void *b, void *arg)
{
	const struct tool_ssite *arr = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct tool_ssite *x = &arr[i], *y = &arr[j];
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void add_thread(struct group *g, const struct tool_sthread *t)
{
	g->threads++;
	g->lifetime += t->end - t->first;
	g->running += t->running;
	g->runnable += t->runnable;
	g->syscall += t->syscall;
	for (size_t r = 0; r < TOOL_STAT_REASONS; r++)
		g->blocked[r] += t->blocked[r];
}

static void view_free(struct view *v)
{
	free(v->threads);
	free(v->groups);
	free(v->waits);
	free(v->syscalls);
}

static int view_build(struct view *v, const struct tool_stat *s)
{
	memset(v, 0, sizeof *v);
	v->s = s;
	v->sleep_slot = -1;
	for (size_t r = 0; r < s->nreasons; r++)
		if (strcmp(tool_stat_reason_name(s, (uint32_t)r), "sleep") == 0)
			v->sleep_slot = (int)r;
	size_t nth = s->nth ? s->nth : 1;
	v->threads = malloc(nth * sizeof *v->threads);
	v->groups = malloc(nth * sizeof *v->groups);
	v->waits = malloc((s->nwaits ? s->nwaits : 1) * sizeof *v->waits);
	v->syscalls = malloc((s->nsyscalls ? s->nsyscalls : 1) * sizeof *v->syscalls);
	if (!v->threads || !v->groups || !v->waits || !v->syscalls) {
		view_free(v);
		return -1;
	}
	for (uint32_t i = 0; i < s->nth; i++) {
		v->threads[i] = i;
		add_thread(&v->all, &s->th[i]);
		v->live += s->th[i].state != TOOL_S_DEAD;
	}
	/* Groups: threads sorted by start function, then runs of one key. */
	qsort_r(v->threads, s->nth, sizeof *v->threads, cmp_key, (void *)s);
	for (size_t i = 0; i < s->nth; i++) {
		const struct tool_sthread *t = &s->th[v->threads[i]];
		uint64_t key = name_key(s, t);
		if (v->ngroups == 0 || v->groups[v->ngroups - 1].key != key) {
			memset(&v->groups[v->ngroups], 0, sizeof v->groups[0]);
			v->groups[v->ngroups].key = key;
			v->groups[v->ngroups].first = v->threads[i];
			v->ngroups++;
		}
		struct group *g = &v->groups[v->ngroups - 1];
		if (v->threads[i] < g->first)
			g->first = v->threads[i];
		add_thread(g, t);
	}
	qsort_r(v->groups, v->ngroups, sizeof *v->groups, cmp_groups, (void *)s);
	qsort_r(v->threads, s->nth, sizeof *v->threads, cmp_threads, (void *)s);
	for (uint32_t i = 0; i < s->nwaits; i++)
		if ((int)s->waits[i].reason != v->sleep_slot)
			v->waits[v->nwaits++] = i;
	qsort_r(v->waits, v->nwaits, sizeof *v->waits, cmp_sites, s->waits);
	for (uint32_t i = 0; i < s->nsyscalls; i++)
		v->syscalls[i] = i;
	qsort_r(v->syscalls, s->nsyscalls, sizeof *v->syscalls, cmp_sites, s->syscalls);
	return 0;
}

/* ---- names (and stat_site.h's) ---- */

static const char *thread_func(const struct tool_stat *s, const struct tool_sthread *t, char *buf, size_t len)
{
	return t->func == TOOL_STAT_NONE ? "(unknown)" : tool_frame_name(s, t->func, buf, len);
}

/* A wait with no reason began before the trace did (the goroutine's first
 * status said waiting: a flight-recorder window, a thread adopted blocked). */
static const char *reason_name(const struct tool_stat *s, uint32_t slot)
{
	const char *n = tool_stat_reason_name(s, slot);
	return n[0] ? n : "(before trace)";
}

/* ---- text ---- */

#define DUR(ns) tool_stat_format_duration((ns), (char[24]){ 0 }, 24)

/* print_reasons prints "  sync.mutex 200.1ms, sync.join 70.2us": the
 * nonzero reasons except sleep, largest first (nothing if none). */
static void print_reasons(FILE *out, const struct view *v, const uint64_t *blocked)
{
	const struct tool_stat *s = v->s;
	bool done[TOOL_STAT_REASONS] = { false };
	for (bool first = true;; first = false) {
		int best = -1;
		for (size_t r = 0; r < s->nreasons; r++)
			if (!done[r] && (int)r != v->sleep_slot && blocked[r] &&
			    (best < 0 || blocked[r] > blocked[best]))
				best = (int)r;
		if (best < 0)
			return;
		done[best] = true;
		char name[TOOL_NAME_MAX_WIDTH + 8];
		fprintf(out, "%s%s %s", first ? "  " : ", ",
			tool_clean(reason_name(s, (uint32_t)best), TOOL_NAME_MAX_WIDTH, name, sizeof name),
			DUR(blocked[best]));
	}
}

static uint64_t sum_blocked(const struct view *v, const uint64_t *blocked, uint64_t *sleep)
{
	uint64_t sum = 0;
	*sleep = 0;
	for (size_t r = 0; r < v->s->nreasons; r++) {
		if ((int)r == v->sleep_slot)
			*sleep += blocked[r];
		else
			sum += blocked[r];
	}
	return sum;
}

static void print_totals(FILE *out, const struct view *v)
{
	const struct tool_stat *s = v->s;
	const struct group *a = &v->all;
	uint64_t total = a->lifetime ? a->lifetime : 1;
	fprintf(out, "\nWhere the time went (%zu thread%s, %s of thread time)\n", s->nth, s->nth == 1 ? "" : "s",
		DUR(a->lifetime));
	int width = 10;
	for (size_t r = 0; r < s->nreasons; r++) {
		int w = (int)strlen(reason_name(s, (uint32_t)r));
		if (a->blocked[r] && w > width)
			width = w < TOOL_NAME_MAX_WIDTH ? w : TOOL_NAME_MAX_WIDTH;
	}
	const char *fixed[] = { "running", "runnable", "syscall" };
	uint64_t vals[] = { a->running, a->runnable, a->syscall };
	for (int i = 0; i < 3; i++)
		fprintf(out, "  %-*s %9s %6.1f%%\n", width, fixed[i], DUR(vals[i]), 100.0 * (double)vals[i] / (double)total);
	bool done[TOOL_STAT_REASONS] = { false };
	for (;;) {
		int best = -1;
		for (size_t r = 0; r < s->nreasons; r++)
			if (!done[r] && a->blocked[r] && (best < 0 || a->blocked[r] > a->blocked[best]))
				best = (int)r;
		if (best < 0)
			break;
		done[best] = true;
		char name[TOOL_NAME_MAX_WIDTH + 8];
		fprintf(out, "  %-*s %9s %6.1f%%%s\n", width,
			tool_clean(reason_name(s, (uint32_t)best), TOOL_NAME_MAX_WIDTH, name, sizeof name), DUR(a->blocked[best]),
			100.0 * (double)a->blocked[best] / (double)total, best == v->sleep_slot ? "" : "  blocked");
	}
}

/* The columns of the group and thread tables after the name. */
static void print_times_header(FILE *out)
{
	fprintf(out, " %9s %9s %9s %9s %9s  %s\n", "running", "runnable", "syscall", "sleep", "blocked",
		"blocked by reason");
}

static void print_times(FILE *out, const struct view *v, uint64_t running, uint64_t runnable, uint64_t syscall,
			const uint64_t *blocked)
{
	uint64_t sleep, b = sum_blocked(v, blocked, &sleep);
	fprintf(out, " %9s %9s %9s %9s %9s", DUR(running), DUR(runnable), DUR(syscall), DUR(sleep), DUR(b));
	print_reasons(out, v, blocked);
	fputc('\n', out);
}

static void print_groups(FILE *out, const struct view *v, unsigned top)
{
	const struct tool_stat *s = v->s;
	size_t n = tool_list_shown(v->ngroups, top);
	fprintf(out, "\nThreads by start function (%zu of %zu, most time not running first)\n", n, v->ngroups);
	if (n == 0) {
		fprintf(out, "  (none)\n");
		return;
	}
	char buf[TOOL_NAME_MAX_WIDTH + 32], pc[32];
	int width = (int)strlen("start function");
	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(tool_clean(thread_func(s, &s->th[v->groups[i].first], pc, sizeof pc),
					       TOOL_NAME_MAX_WIDTH, buf, sizeof buf));
		if (w > width)
			width = w;
	}
	fprintf(out, "  %-*s  %7s %9s", width, "start function", "threads", "lifetime");
	print_times_header(out);
	for (size_t i = 0; i < n; i++) {
		const struct group *g = &v->groups[i];
		fprintf(out, "  %-*s  %7u %9s", width,
			tool_clean(thread_func(s, &s->th[g->first], pc, sizeof pc), TOOL_NAME_MAX_WIDTH, buf, sizeof buf),
			g->threads, DUR(g->lifetime));
		print_times(out, v, g->running, g->runnable, g->syscall, g->blocked);
	}
}

static void print_threads(FILE *out, const struct view *v, unsigned top)
{
	const struct tool_stat *s = v->s;
	size_t n = tool_list_shown(s->nth, top);
	fprintf(out, "\nThreads (%zu of %zu, most time not running first)\n", n, s->nth);
	if (n == 0) {
		fprintf(out, "  (none)\n");
		return;
	}
	char buf[TOOL_NAME_MAX_WIDTH + 32], pc[32];
	int fwidth = (int)strlen("start function"), lwidth = 0;
	for (size_t i = 0; i < n; i++) {
		const struct tool_sthread *t = &s->th[v->threads[i]];
		int w = (int)strlen(tool_clean(thread_func(s, t, pc, sizeof pc), TOOL_NAME_MAX_WIDTH, buf, sizeof buf));
		if (w > fwidth)
			fwidth = w;
		if (t->label) {
			w = (int)strlen(tool_clean(tool_sites_str(&s->sites, t->label), TOOL_NAME_MAX_WIDTH, buf, sizeof buf));
			if (w > lwidth)
				lwidth = w;
		}
	}
	if (lwidth && lwidth < (int)strlen("label"))
		lwidth = (int)strlen("label");
	fprintf(out, "  %6s  %-*s", "G", fwidth, "start function");
	if (lwidth)
		fprintf(out, "  %-*s", lwidth, "label");
	fprintf(out, " %9s", "lifetime");
	print_times_header(out);
	for (size_t i = 0; i < n; i++) {
		const struct tool_sthread *t = &s->th[v->threads[i]];
		fprintf(out, "  %6llu  %-*s", (ull)t->g, fwidth,
			tool_clean(thread_func(s, t, pc, sizeof pc), TOOL_NAME_MAX_WIDTH, buf, sizeof buf));
		if (lwidth)
			fprintf(out, "  %-*s", lwidth,
				t->label ? tool_clean(tool_sites_str(&s->sites, t->label), TOOL_NAME_MAX_WIDTH, buf, sizeof buf) : "");
		fprintf(out, " %9s", DUR(t->end - t->first));
		print_times(out, v, t->running, t->runnable, t->syscall, t->blocked);
	}
}

static void print_sites(FILE *out, const struct view *v, unsigned top, bool waits)
{
	const struct tool_stat *s = v->s;
	const struct tool_ssite *arr = waits ? s->waits : s->syscalls;
	const uint32_t *idx = waits ? v->waits : v->syscalls;
	size_t total = waits ? v->nwaits : s->nsyscalls, n = tool_list_shown(total, top);
	if (waits)
		fprintf(out, "\nTop wait sites (%zu of %zu, by total time blocked; sleeps not included)\n", n, total);
	else
		fprintf(out, "\nTop syscall sites (%zu of %zu, by total time in the call)\n", n, total);
	if (n == 0) {
		fprintf(out, "  (none)\n");
		return;
	}
	int rwidth = (int)strlen("reason");
	if (waits)
		for (size_t i = 0; i < n; i++) {
			int w = (int)strlen(reason_name(s, arr[idx[i]].reason));
			w = w < TOOL_NAME_MAX_WIDTH ? w : TOOL_NAME_MAX_WIDTH + 3;
			if (w > rwidth)
				rwidth = w;
		}
	fprintf(out, "  %9s %9s %9s %9s  ", "total", "count", "mean", "max");
	if (waits)
		fprintf(out, "%-*s  ", rwidth, "reason");
	fprintf(out, "site (leaf first)\n");
	for (size_t i = 0; i < n; i++) {
		const struct tool_ssite *st = &arr[idx[i]];
		char buf[TOOL_NAME_MAX_WIDTH + 8];
		fprintf(out, "  %9s %9llu %9s %9s  ", DUR(st->total), (ull)st->count,
			DUR(st->count ? st->total / st->count : 0), DUR(st->max));
		if (waits)
			fprintf(out, "%-*s  ", rwidth, tool_clean(reason_name(s, st->reason), TOOL_NAME_MAX_WIDTH, buf, sizeof buf));
		tool_site_print(out, s, st->site);
		fputc('\n', out);
	}
}

static const char *format_name(int version)
{
	switch (version) {
	case 22: return "go 1.22";
	case 23: return "go 1.23";
	case 25: return "go 1.25";
	case 26: return "go 1.26";
	default: return "Go";
	}
}

int tool_stat_report(FILE *out, const struct tool_stat *s, const char *name, unsigned top)
{
	struct view v;
	char a[32];
	int rc = view_build(&v, s);
	fprintf(out, "gotrace stat: %s\n", name);
	if (s->have_ident) {
		char cmd[4 * IDENT_WIDTH + 1];
		tool_ident_sanitize(s->ident.cmd, cmd, sizeof cmd, IDENT_WIDTH);
		fprintf(out, "  process %ld", s->ident.pid);
		if (s->ident.ppid >= 0)
			fprintf(out, " (parent %ld)", s->ident.ppid);
		fprintf(out, ": %s\n", *cmd ? cmd : "(no command line)");
	}
	fprintf(out, "  %s trace: %llu generation%s", format_name(s->version), (ull)s->gens, s->gens == 1 ? "" : "s");
	if (s->gens)
		fprintf(out, " (%llu-%llu)", (ull)s->first_gen, (ull)s->last_gen);
	fprintf(out, ", %llu events, %zu thread%s", (ull)s->events, s->nth, s->nth == 1 ? "" : "s");
	if (rc == 0 && v.live)
		fprintf(out, " (%zu alive at the end)", v.live);
	fprintf(out, "\n  span %s (first to last event)\n", DUR(s->have_time ? s->t_last - s->t_first : 0));
	if (s->have_heap_peak)
		fprintf(out, "  heap peak %s (%s) at %s; %llu heap object events\n",
			tool_human_bytes(s->heap_peak, a, sizeof a),
			s->heap_peak_from_events ? "live heap objects" : "HeapAlloc",
			DUR(s->heap_peak_at > s->t_first ? s->heap_peak_at - s->t_first : 0), (ull)s->heap_events);
	else if (s->heap_events)
		fprintf(out, "  heap: %llu heap object events (see `gotrace heap`)\n", (ull)s->heap_events);
	if (s->heap_note[0])
		fprintf(out, "  heap events not recorded: %s\n", s->heap_note);
	if (s->heap_sample_bytes && (s->have_heap_peak || s->heap_events))
		fprintf(out, "  heap events sampled: about one allocation per %s allocated recorded (mean %llu B);\n"
			     "  the heap peak is an estimate, the samples scaled as `gotrace heap` scales them\n",
			tool_human_bytes(s->heap_sample_bytes, a, sizeof a), (ull)s->heap_sample_bytes);
	if (s->map && tool_map_any(s->map)) {
		uint64_t at = tool_stat_ns(s, s->map->peak_ts);
		tool_map_stat_text(out, s->map, DUR(at > s->t_first ? at - s->t_first : 0));
	}
	if (s->anomalies)
		fprintf(out, "  %llu events did not fit their thread's state and were ignored\n", (ull)s->anomalies);
	if (rc) {
		fprintf(out, "\n(out of memory: no tables)\n");
		return -1;
	}
	print_totals(out, &v);
	print_groups(out, &v, top);
	print_threads(out, &v, top);
	print_sites(out, &v, top, true);
	print_sites(out, &v, top, false);
	view_free(&v);
	int rc_mutex = tool_mutex_stat_text(out, s, top);
	return tool_cpu_stat_text(out, s, top) ? -1 : rc_mutex;
}

/* ---- JSON ---- */

static void json_times(FILE *out, const struct view *v, uint64_t lifetime, uint64_t running, uint64_t runnable,
		       uint64_t syscall, const uint64_t *blocked)
{
	const struct tool_stat *s = v->s;
	uint64_t sleep, b = sum_blocked(v, blocked, &sleep);
	fprintf(out, "\"lifetime\": ");
	tool_json_seconds(out, lifetime);
	fprintf(out, ", \"running\": ");
	tool_json_seconds(out, running);
	fprintf(out, ", \"runnable\": ");
	tool_json_seconds(out, runnable);
	fprintf(out, ", \"syscall\": ");
	tool_json_seconds(out, syscall);
	fprintf(out, ", \"sleep\": ");
	tool_json_seconds(out, sleep);
	fprintf(out, ", \"blocked_total\": ");
	tool_json_seconds(out, b);
	fprintf(out, ", \"blocked\": {");
	bool first = true;
	for (size_t r = 0; r < s->nreasons; r++) {
		if ((int)r == v->sleep_slot || blocked[r] == 0)
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		first = false;
		tool_json_string(out, reason_name(s, (uint32_t)r));
		fprintf(out, ": ");
		tool_json_seconds(out, blocked[r]);
	}
	fprintf(out, "}");
}

static void json_func(FILE *out, const struct tool_stat *s, const struct tool_sthread *t)
{
	char pc[32];
	if (t->func == TOOL_STAT_NONE)
		fprintf(out, "null");
	else
		tool_json_string(out, tool_frame_name(s, t->func, pc, sizeof pc));
}

static void json_sites(FILE *out, const struct view *v, unsigned top, bool waits)
{
	const struct tool_stat *s = v->s;
	const struct tool_ssite *arr = waits ? s->waits : s->syscalls;
	const uint32_t *idx = waits ? v->waits : v->syscalls;
	size_t total = waits ? v->nwaits : s->nsyscalls, n = tool_list_shown(total, top);
	fprintf(out, "  \"%s\": {\"count\": %zu, \"shown\": %zu, \"list\": [", waits ? "wait_sites" : "syscall_sites",
		total, n);
	for (size_t i = 0; i < n; i++) {
		const struct tool_ssite *st = &arr[idx[i]];
		fprintf(out, "%s\n    {", i ? "," : "");
		if (waits) {
			fprintf(out, "\"reason\": ");
			tool_json_string(out, reason_name(s, st->reason));
			fprintf(out, ", ");
		}
		fprintf(out, "\"count\": %llu, \"total\": ", (ull)st->count);
		tool_json_seconds(out, st->total);
		fprintf(out, ", \"max\": ");
		tool_json_seconds(out, st->max);
		fprintf(out, ", ");
		tool_site_json(out, s, st->site);
		fprintf(out, "}");
	}
	fprintf(out, "%s]}", n ? "\n  " : "");
}

int tool_stat_json(FILE *out, const struct tool_stat *s, const char *name, unsigned top, const char *error)
{
	struct view v;
	if (view_build(&v, s))
		return -1;
	const struct group *a = &v.all;
	uint64_t t0 = s->t_first;
	fprintf(out, "{\n  \"trace\": ");
	tool_json_string(out, name);
	fprintf(out, ",\n  \"process\": ");
	if (s->have_ident) {
		fprintf(out, "{\"pid\": %ld, \"ppid\": ", s->ident.pid);
		if (s->ident.ppid >= 0)
			fprintf(out, "%ld", s->ident.ppid);
		else
			fprintf(out, "null");
		fprintf(out, ", \"cmd\": ");
		tool_json_string(out, s->ident.cmd);
		fprintf(out, "}");
	} else {
		fprintf(out, "null");
	}
	fprintf(out, ",\n  \"format\": %d,\n  \"complete\": %s,\n  \"error\": ", s->version, error ? "false" : "true");
	if (error)
		tool_json_string(out, error);
	else
		fprintf(out, "null");
	fprintf(out, ",\n  \"generations\": {\"count\": %llu, \"first\": %llu, \"last\": %llu},\n", (ull)s->gens,
		(ull)s->first_gen, (ull)s->last_gen);
	fprintf(out, "  \"events\": %llu,\n  \"anomalies\": %llu,\n", (ull)s->events, (ull)s->anomalies);
	fprintf(out, "  \"span\": {\"seconds\": ");
	tool_json_seconds(out, s->have_time ? s->t_last - s->t_first : 0);
	fprintf(out, ", \"start_ns\": %llu, \"end_ns\": %llu},\n", (ull)s->t_first, (ull)s->t_last);
	fprintf(out, "  \"heap\": ");
	if (s->have_heap_peak || s->heap_events) {
		fprintf(out, "{\"object_events\": %llu, \"sample_bytes\": %llu, \"peak_bytes\": ", (ull)s->heap_events,
			(ull)s->heap_sample_bytes);
		if (s->have_heap_peak) {
			fprintf(out, "%llu, \"peak_at\": ", (ull)s->heap_peak);
			tool_json_seconds(out, s->heap_peak_at > t0 ? s->heap_peak_at - t0 : 0);
			fprintf(out, ", \"source\": \"%s\"", s->heap_peak_from_events ? "events" : "HeapAlloc");
		} else {
			fprintf(out, "null, \"peak_at\": null, \"source\": null");
		}
		if (s->have_heap_metric)
			fprintf(out, ", \"metric_peak_bytes\": %llu}", (ull)s->metric_peak);
		else
			fprintf(out, ", \"metric_peak_bytes\": null}");
	} else {
		fprintf(out, "null");
	}
	if (s->map && tool_map_any(s->map)) { /* only for a trace with span events */
		uint64_t at = tool_stat_ns(s, s->map->peak_ts);
		fprintf(out, ",\n  \"mapped\": ");
		tool_map_stat_json(out, s->map, at > t0 ? at - t0 : 0);
	}
	fprintf(out, ",\n  \"totals\": {\"threads\": %zu, ", s->nth);
	json_times(out, &v, a->lifetime, a->running, a->runnable, a->syscall, a->blocked);
	fprintf(out, "},\n");

	size_t n = tool_list_shown(v.ngroups, top);
	fprintf(out, "  \"groups\": {\"count\": %zu, \"shown\": %zu, \"list\": [", v.ngroups, n);
	for (size_t i = 0; i < n; i++) {
		const struct group *g = &v.groups[i];
		fprintf(out, "%s\n    {\"function\": ", i ? "," : "");
		json_func(out, s, &s->th[g->first]);
		fprintf(out, ", \"threads\": %u, ", g->threads);
		json_times(out, &v, g->lifetime, g->running, g->runnable, g->syscall, g->blocked);
		fprintf(out, "}");
	}
	fprintf(out, "%s]},\n", n ? "\n  " : "");

	n = tool_list_shown(s->nth, top);
	fprintf(out, "  \"threads\": {\"count\": %zu, \"live_at_end\": %zu, \"shown\": %zu, \"list\": [", s->nth, v.live, n);
	for (size_t i = 0; i < n; i++) {
		const struct tool_sthread *t = &s->th[v.threads[i]];
		fprintf(out, "%s\n    {\"g\": %llu, \"m\": ", i ? "," : "", (ull)t->g);
		if (t->m == GT_NO_THREAD)
			fprintf(out, "null");
		else
			fprintf(out, "%llu", (ull)t->m);
		fprintf(out, ", \"function\": ");
		json_func(out, s, t);
		fprintf(out, ", \"label\": ");
		if (t->label)
			tool_json_string(out, tool_sites_str(&s->sites, t->label));
		else
			fprintf(out, "null");
		fprintf(out, ", \"start\": ");
		tool_json_seconds(out, t->first - t0);
		fprintf(out, ", \"end\": ");
		tool_json_seconds(out, t->end - t0);
		fprintf(out, ", \"ended\": %s, \"waits\": %llu, \"syscalls\": %llu, ", t->state == TOOL_S_DEAD ? "true" : "false",
			(ull)t->nblocks, (ull)t->nsyscalls);
		json_times(out, &v, t->end - t->first, t->running, t->runnable, t->syscall, t->blocked);
		fprintf(out, "}");
	}
	fprintf(out, "%s]},\n", n ? "\n  " : "");
	json_sites(out, &v, top, true);
	fprintf(out, ",\n");
	json_sites(out, &v, top, false);
	fprintf(out, ",\n");
	if (tool_mutex_stat_json(out, s, top))
		fprintf(out, "  \"lock_holders\": null");
	fprintf(out, ",\n");
	if (tool_cpu_stat_json(out, s, top))
		fprintf(out, "  \"cpu\": null");
	fprintf(out, "\n}\n");
	view_free(&v);
	return 0;
}
