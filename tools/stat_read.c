/* stat_read.c — `gotrace stat` input: generations, their string and stack
 * tables (gen_tables.h), and the replay of their events merged by time
 * (replay.h) into the state machine of stat_acct.c (stat_acct.h). */
#include "tools/stat_acct.h"
#include "tools/heap_sample.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long ull;

#define FALLBACK_FREQ 1000000000ull

static int failf(struct tool_stat *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int failf(struct tool_stat *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof s->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* failed turns what a shared reader returned (0, -1 with s->err, -2 out of
 * memory) into 0 or -1 with s->err. */
static int failed(struct tool_stat *s, int rc)
{
	return rc == -2 ? tool_stat_oom(s) : rc;
}

int tool_stat_init(struct tool_stat *s)
{
	memset(s, 0, sizeof *s);
	struct tool_hmap *maps[] = { &s->th_index, &s->m_cur, &s->wait_index, &s->syscall_index };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
		tool_hmap_init(maps[i]);
	tool_gen_init(&s->tables);
	tool_replay_init(&s->replay, NULL);
	s->freq = FALLBACK_FREQ;
	s->heap = malloc(sizeof *s->heap);
	if (s->heap && tool_heap_init(s->heap)) {
		free(s->heap);
		s->heap = NULL;
	}
	if (s->heap && (s->map = malloc(sizeof *s->map)) != NULL) {
		tool_map_init(s->map);
		tool_map_attach(s->map, s->heap);
	}
	tool_mutex_init(&s->mutex);
	tool_cpu_init(&s->cpu);
	if (tool_sites_init(&s->sites))
		return tool_stat_oom(s);
	static const char *const names[] = { "sync.mutex", "sync.rwlock", "gotrace.holder", "kernel.wakeup" };
	uint32_t *ids[] = { &s->str_mutex, &s->str_rwlock, &s->str_holder, &s->str_wakeup };
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		if ((*ids[i] = tool_sites_string(&s->sites, names[i], strlen(names[i]))) == TOOL_SITE_NONE)
			return tool_stat_oom(s);
	return 0;
}

void tool_stat_free(struct tool_stat *s)
{
	struct tool_hmap *maps[] = { &s->th_index, &s->m_cur, &s->wait_index, &s->syscall_index };
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
		tool_hmap_free(maps[i]);
	tool_sites_free(&s->sites);
	tool_mutex_free(&s->mutex);
	tool_cpu_free(&s->cpu);
	tool_gen_free(&s->tables);
	tool_replay_free(&s->replay);
	if (s->map) {
		tool_map_release(s->map);
		free(s->map);
	}
	if (s->heap) {
		tool_heap_release(s->heap);
		free(s->heap);
	}
	void *arrays[] = { s->th, s->waits, s->syscalls };
	for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
		free(arrays[i]);
	memset(s, 0, sizeof *s);
	tool_replay_init(&s->replay, NULL);
}

/* ---- batches ---- */

/* fresh_string sees each new string of a generation: the process identity
 * (with the CPU sampling rate) and the heap sampling statement are in every
 * generation; the first is kept. */
static void fresh_string(void *ctx, const void *data, size_t len)
{
	struct tool_stat *s = ctx;
	if (!s->have_ident && tool_ident_parse(data, len, &s->ident))
		s->have_ident = true;
	uint64_t mean, hz;
	if (!s->cpu.hz && tool_cpu_parse_hz(data, len, &hz))
		s->cpu.hz = hz;
	if (!s->heap_sample_bytes && tool_heap_sample_parse(data, len, &mean))
		s->heap_sample_bytes = mean;
	if (!s->heap_note[0])
		tool_heap_note_parse(data, len, s->heap_note, sizeof s->heap_note);
}

static int read_sync(struct tool_stat *s, const struct gt_rbatch *b)
{
	struct gt_sync sync;
	char err[GT_READER_ERR];
	if (gt_sync_decode(b, &sync, err))
		return failf(s, "%s", err);
	if (s->g_freq == 0)
		s->g_freq = sync.freq;
	return 0;
}

/* ---- generations ---- */

static int emit_event(void *ctx, uint64_t m, const struct gt_event *ev)
{
	return tool_stat_event(ctx, m, ev);
}

static void drop_gen(struct tool_stat *s)
{
	tool_gen_clear(&s->tables);
	tool_replay_clear(&s->replay);
	tool_cpu_clear_gen(&s->cpu);
	s->gen_open = false;
}

static int end_gen(struct tool_stat *s)
{
	if (!s->gen_open)
		return 0;
	if (s->g_freq == 0)
		s->g_freq = s->freq;
	s->freq = s->g_freq;
	if (failed(s, tool_replay_merge(&s->replay, s->gen, emit_event, s, s->err, sizeof s->err)))
		return -1;
	if (tool_stat_cpu_gen(s))
		return -1;
	s->events += s->replay.events;
	if (s->gens++ == 0)
		s->first_gen = s->gen;
	s->last_gen = s->gen;
	drop_gen(s);
	return 0;
}

int tool_stat_batch(struct tool_stat *s, const struct gt_rbatch *b)
{
	if (s->finished)
		return failf(s, "batch at offset %llu after the end of the accounting", (ull)b->offset);
	if (s->heap && !s->heap_failed && tool_heap_batch(s->heap, b))
		s->heap_failed = true;
	if (b->kind == GT_BATCH_END_OF_GEN)
		return end_gen(s);
	if (s->gen_open && b->gen != s->gen && end_gen(s))
		return -1;
	if (!s->gen_open) {
		s->gen = b->gen;
		s->gen_open = true;
		s->g_freq = 0;
	}
	char *err = s->err;
	size_t errsz = sizeof s->err;
	switch (b->kind) {
	case GT_BATCH_EVENTS: return failed(s, tool_replay_add(&s->replay, b, err, errsz));
	case GT_BATCH_STRINGS: return failed(s, tool_gen_read_strings(&s->tables, b, fresh_string, s, err, errsz));
	case GT_BATCH_STACKS: return failed(s, tool_gen_read_stacks(&s->tables, b, err, errsz));
	case GT_BATCH_SYNC: return read_sync(s, b);
	case GT_BATCH_CPU_SAMPLES: return failed(s, tool_cpu_batch(&s->cpu, b, err, errsz));
	default: return 0; /* experimental batches: nothing to count */
	}
}

int tool_stat_end(struct tool_stat *s)
{
	int rc = s->finished ? 0 : end_gen(s);
	if (s->heap && !s->heap_failed && !s->finished && tool_heap_end(s->heap))
		s->heap_failed = true;
	tool_stat_finish(s);
	return rc;
}

static int feed(void *ctx, const struct gt_rbatch *b)
{
	return tool_stat_batch(ctx, b);
}

static int end(void *ctx)
{
	return tool_stat_end(ctx);
}

int tool_stat_read(struct tool_stat *s, FILE *f)
{
	int rc = failed(s, tool_replay_read(&s->replay, f, &s->version, feed, end, s, s->err, sizeof s->err));
	tool_stat_finish(s);
	return rc;
}
