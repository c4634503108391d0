/* replay.c — shared by `gotrace heap` and `gotrace stat`: reads a generation's batches again by offset and merges the threads' events by time (replay.h). */
#include "tools/replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


int tool_replay_load(const struct tool_replay_src *src, struct tool_replay_thread *t, uint32_t i, char *err, size_t errsz)
{
	const struct tool_replay_run *run = &src->runs[i];
	const uint8_t *data;
	if (run->mem != SIZE_MAX) {
		data = src->payload + run->mem;
	} else {
		if (run->len > t->cap) {
			uint8_t *p = realloc(t->buf, run->len);
			if (!p)
				return -2;
			t->buf = p;
			t->cap = run->len;
		}
		for (size_t got = 0; got < run->len;) {
			ssize_t n = pread(src->fd, t->buf + got, run->len - got,
					  (off_t)(src->fd_base + run->data_offset + got));
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
	struct gt_rbatch b = { .kind = GT_BATCH_EVENTS, .gen = src->gen, .m = t->m, .base_ts = run->base_ts,
			       .data = data, .len = run->len, .data_offset = run->data_offset };
	gt_events_begin(&t->c, &b);
	t->run = i;
	return 0;
}

static bool before(const struct tool_replay_thread *ts, uint32_t a, uint32_t b)
{
	uint64_t ta = ts[a].ev.ts, tb = ts[b].ev.ts;
	return ta != tb ? ta < tb : a < b;
}

static void sift_down(const struct tool_replay_thread *ts, uint32_t *q, size_t n, size_t i)
{
	for (;;) {
		size_t least = i, l = 2 * i + 1, r = l + 1;
		if (l < n && before(ts, q[l], q[least]))
			least = l;
		if (r < n && before(ts, q[r], q[least]))
			least = r;
		if (least == i)
			return;
		uint32_t tmp = q[i];
		q[i] = q[least];
		q[least] = tmp;
		i = least;
	}
}

int tool_replay_merge(struct tool_replay_thread *ts, size_t nts, uint32_t **heap,
		      int (*load_first)(void *ctx, struct tool_replay_thread *t),
		      int (*next)(void *ctx, struct tool_replay_thread *t),
		      int (*emit)(void *ctx, struct tool_replay_thread *t), void *ctx)
{
	if (nts == 0)
		return 0;
	uint32_t *q = realloc(*heap, nts * sizeof *q);
	if (!q)
		return -2;
	*heap = q;
	size_t n = 0;
	for (uint32_t i = 0; i < nts; i++) {
		int r = load_first(ctx, &ts[i]);
		if (r == 0)
			r = next(ctx, &ts[i]);
		if (r < 0)
			return -1;
		if (r > 0)
			q[n++] = i;
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(ts, q, n, i);
	while (n > 0) {
		struct tool_replay_thread *t = &ts[q[0]];
		if (emit(ctx, t))
			return -1;
		int r = next(ctx, t);
		if (r < 0)
			return -1;
		if (r == 0)
			q[0] = q[--n];
		sift_down(ts, q, n, 0);
	}
	return 0;
}

int tool_replay_fd(FILE *f, uint64_t *base)
{
	struct stat st;
	int fd = fileno(f);
	off_t at = ftello(f);
	if (fd < 0 || at < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	*base = (uint64_t)at;
	return fd;
}
