/* replay.c — a generation's event batches kept by their place in the file,
 * read again and replayed with the threads' events merged by time
 * (replay.h). */
#include "tools/replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/heap_sites.h"
#include "tools/progress.h"

#define KEEP_PAYLOAD (1u << 20) /* a payload arena this small is kept for the next generation */

void tool_replay_init(struct tool_replay *r, bool (*want)(uint8_t type))
{
	memset(r, 0, sizeof *r);
	tool_hmap_init(&r->index);
	r->want = want;
	r->fd = -1;
}

void tool_replay_free(struct tool_replay *r)
{
	for (size_t i = 0; i < r->nthreads; i++)
		free(r->threads[i].buf);
	free(r->threads);
	free(r->runs);
	free(r->payload);
	free(r->queue);
	tool_hmap_free(&r->index);
	tool_replay_init(r, r->want);
}

void tool_replay_clear(struct tool_replay *r)
{
	tool_hmap_clear(&r->index);
	for (size_t i = 0; i < r->nthreads; i++)
		free(r->threads[i].buf);
	r->nruns = r->npayload = r->nthreads = 0;
	r->events = r->max_ts = 0;
	if (r->cap_payload > KEEP_PAYLOAD) {
		free(r->payload);
		r->payload = NULL;
		r->cap_payload = 0;
	}
}

/* attach reads payloads again from f when it is a regular file (from its
 * current position on). */
static void attach(struct tool_replay *r, FILE *f)
{
	struct stat st;
	int fd = fileno(f);
	off_t at = ftello(f);
	r->fd = -1;
	if (fd < 0 || at < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	r->fd = fd;
	r->fd_base = (uint64_t)at;
}

int tool_replay_read(struct tool_replay *r, FILE *f, int *version,
		     int (*batch)(void *ctx, const struct gt_rbatch *b), int (*end)(void *ctx), void *ctx,
		     char *err, size_t errsz)
{
	struct gt_reader *rd = malloc(sizeof *rd);
	struct gt_rbatch b;
	int got, rc = -1;
	if (!rd)
		return -2;
	attach(r, f);
	struct stat st;
	bool file = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	tool_progress_begin("reading the trace", file ? (uint64_t)st.st_size : 0);
	if (gt_reader_init(rd, f)) {
		snprintf(err, errsz, "%s", rd->err);
		goto out;
	}
	*version = rd->version;
	while ((got = gt_reader_next(rd, &b)) > 0) {
		if (batch(ctx, &b))
			goto out;
		off_t at = ftello(f);
		tool_progress_at(at > 0 ? (uint64_t)at : 0);
	}
	if (got < 0)
		snprintf(err, errsz, "%s", rd->err);
	else
		rc = end(ctx);
out:
	tool_progress_end();
	free(rd);
	r->fd = -1; /* f is the caller's again */
	return rc;
}

/* keep adds an event batch to its thread's list, copying the payload
 * unless it can be read again: 0, or -2 when out of memory. */
static int keep(struct tool_replay *r, const struct gt_rbatch *b)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(&r->index, b->m, &fresh);
	if (!e || r->nruns >= UINT32_MAX - 1 || r->nthreads >= UINT32_MAX - 1)
		return -2;
	if (fresh) {
		if (tool_grow(&r->threads, &r->cap_threads, r->nthreads + 1, sizeof *r->threads))
			return -2;
		e->val = r->nthreads;
		r->threads[r->nthreads++] = (struct tool_replay_thread){ .m = b->m, .first = UINT32_MAX,
									 .last = UINT32_MAX };
	}
	struct tool_replay_thread *t = &r->threads[e->val];
	if (tool_grow(&r->runs, &r->cap_runs, r->nruns + 1, sizeof *r->runs))
		return -2;
	uint32_t i = (uint32_t)r->nruns++;
	r->runs[i] = (struct tool_replay_run){ .base_ts = b->base_ts, .data_offset = b->data_offset, .len = b->len,
					       .mem = SIZE_MAX, .next = UINT32_MAX };
	if (r->fd < 0) {
		if (tool_grow(&r->payload, &r->cap_payload, r->npayload + b->len, 1))
			return -2;
		memcpy(r->payload + r->npayload, b->data, b->len);
		r->runs[i].mem = r->npayload;
		r->npayload += b->len;
	}
	if (t->last == UINT32_MAX)
		t->first = i;
	else
		r->runs[t->last].next = i;
	t->last = i;
	return 0;
}

int tool_replay_keep(struct tool_replay *r, const struct gt_rbatch *b)
{
	return keep(r, b);
}

static bool wanted(const struct tool_replay *r, uint8_t type)
{
	return !r->want || r->want(type);
}

int tool_replay_add(struct tool_replay *r, const struct gt_rbatch *b, char *err, size_t errsz)
{
	struct gt_event_cursor c;
	struct gt_event ev;
	uint64_t n = 0;
	int got;
	gt_events_begin(&c, b);
	while ((got = gt_events_next(&c, &ev)) > 0) {
		if (ev.ts > r->max_ts)
			r->max_ts = ev.ts;
		n += wanted(r, ev.type);
		if (r->observe && (r->observe_types[ev.type >> 3] >> (ev.type & 7) & 1))
			r->observe(r->observe_ctx, b, &ev);
	}
	if (got < 0) {
		snprintf(err, errsz, "%s", c.at.err);
		return -1;
	}
	r->events += n;
	return n ? keep(r, b) : 0;
}

/* ---- the replay ---- */

/* load points t's cursor at run i: 0, -1 a read error described in err, -2
 * out of memory. */
static int load(struct tool_replay *r, uint64_t gen, struct tool_replay_thread *t, uint32_t i, char *err,
		size_t errsz)
{
	const struct tool_replay_run *run = &r->runs[i];
	const uint8_t *data;
	if (run->mem != SIZE_MAX) {
		data = r->payload + run->mem;
	} else {
		if (run->len > t->cap) {
			uint8_t *p = realloc(t->buf, run->len);
			if (!p)
				return -2;
			t->buf = p;
			t->cap = run->len;
		}
		for (size_t got = 0; got < run->len;) {
			ssize_t n = pread(r->fd, t->buf + got, run->len - got,
					  (off_t)(r->fd_base + run->data_offset + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				snprintf(err, errsz, "cannot read the batch payload at offset %llu again: %s",
					 (unsigned long long)run->data_offset,
					 n < 0 ? strerror(errno) : "the file got shorter");
				return -1;
			}
			got += (size_t)n;
		}
		data = t->buf;
	}
	struct gt_rbatch b = { .kind = GT_BATCH_EVENTS, .gen = gen, .m = t->m, .base_ts = run->base_ts,
			       .data = data, .len = run->len, .data_offset = run->data_offset };
	gt_events_begin(&t->c, &b);
	t->run = i;
	return 0;
}

/* next moves t to its next wanted event: 1, 0 when it has none left (its
 * buffer is released), -1 on an error (err), -2 out of memory. */
static int next(struct tool_replay *r, uint64_t gen, struct tool_replay_thread *t, char *err, size_t errsz)
{
	for (;;) {
		int got;
		while ((got = gt_events_next(&t->c, &t->ev)) > 0)
			if (wanted(r, t->ev.type))
				return 1;
		if (got < 0) {
			snprintf(err, errsz, "%s", t->c.at.err);
			return -1;
		}
		uint32_t i = r->runs[t->run].next;
		if (i == UINT32_MAX) {
			free(t->buf); /* done with this thread for the generation */
			t->buf = NULL;
			t->cap = 0;
			return 0;
		}
		int rc = load(r, gen, t, i, err, errsz);
		if (rc)
			return rc;
	}
}

static bool before(const struct tool_replay_thread *ts, uint32_t a, uint32_t b)
{
	uint64_t ta = ts[a].ev.ts, tb = ts[b].ev.ts;
	return ta != tb ? ta < tb : a < b;
}

static void sift_down(const struct tool_replay_thread *ts, uint32_t *q, size_t n, size_t i)
{
	for (;;) {
		size_t least = i, l = 2 * i + 1, rt = l + 1;
		if (l < n && before(ts, q[l], q[least]))
			least = l;
		if (rt < n && before(ts, q[rt], q[least]))
			least = rt;
		if (least == i)
			return;
		uint32_t tmp = q[i];
		q[i] = q[least];
		q[least] = tmp;
		i = least;
	}
}

int tool_replay_merge(struct tool_replay *r, uint64_t gen,
		      int (*emit)(void *ctx, uint64_t m, const struct gt_event *ev), void *ctx,
		      char *err, size_t errsz)
{
	struct tool_replay_thread *ts = r->threads;
	if (r->nthreads == 0)
		return 0;
	uint32_t *q = realloc(r->queue, r->nthreads * sizeof *q);
	if (!q)
		return -2;
	r->queue = q;
	size_t n = 0;
	for (uint32_t i = 0; i < r->nthreads; i++) {
		int rc = load(r, gen, &ts[i], ts[i].first, err, errsz);
		if (rc == 0)
			rc = next(r, gen, &ts[i], err, errsz);
		if (rc < 0)
			return rc;
		if (rc > 0)
			q[n++] = i;
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(ts, q, n, i);
	while (n > 0) {
		struct tool_replay_thread *t = &ts[q[0]];
		if (emit(ctx, t->m, &t->ev))
			return -1;
		int rc = next(r, gen, t, err, errsz);
		if (rc < 0)
			return rc;
		if (rc == 0)
			q[0] = q[--n];
		sift_down(ts, q, n, 0);
	}
	return 0;
}
