/* flight.c — the flight recorder's ring of complete generations (flight.h). */
#include "flight.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../encoder/writer.h"
#include "log.h"
#include "region.h"
#include "sink.h"
#include "sys.h"
#include "tracer.h"

/* One kept generation, in its own mapping: this header, then its bytes. */
struct kept {
	struct kept *next; /* the next newer generation */
	uint64_t gen, start_ts, end_ts;
	size_t len, maplen;
	uint8_t data[];
};

static struct kept *oldest, *newest;
static size_t kept_bytes;
static unsigned kept_count;
static unsigned snapshots; /* snapshot files written so far */

static void drop_oldest(void)
{
	struct kept *k = oldest;
	oldest = k->next;
	if (!oldest)
		newest = NULL;
	kept_bytes -= k->len;
	kept_count--;
	gt_unmap(k, k->maplen);
}

void gt_flight_forget(void)
{
	while (oldest)
		drop_oldest();
}

void gt_flight_keep(uint64_t gen, uint64_t start_ts, uint64_t end_ts, const struct iovec *iov, int n)
{
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += iov[i].iov_len;
	size_t maplen = (sizeof(struct kept) + len + 4095) & ~(size_t)4095;
	struct kept *k = gt_map(maplen);
	if (!k || (newest && newest->gen + 1 != gen)) {
		gt_flight_forget(); /* keep only consecutive generations */
		if (!k)
			return;
	}
	k->next = NULL;
	k->gen = gen;
	k->start_ts = start_ts;
	k->end_ts = end_ts;
	k->len = len;
	k->maplen = maplen;
	uint8_t *p = k->data;
	for (int i = 0; i < n; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	if (newest)
		newest->next = k;
	else
		oldest = k;
	newest = k;
	kept_bytes += len;
	kept_count++;
	/* The oldest goes when the size cap needs room, or when the newer
	 * ones alone still cover the window. */
	while (kept_count > 1) {
		int over_size = kept_bytes > gt.flight_bytes;
		int window_covered = gt.flight_ns && newest->end_ts - oldest->next->start_ts >= gt.flight_ns;
		if (!over_size && !window_covered)
			break;
		drop_oldest();
	}
}

int gt_flight_write(struct gt_sink_file *f)
{
	/* One generation at a time: a write cut short (a full disk) leaves the
	 * file ending with the last generation that fit (core/sink.h). */
	for (struct kept *k = oldest; k; k = k->next) {
		struct iovec iov = { k->data, k->len };
		int err = gt_sink_generation(f, &iov, 1);
		if (err)
			return err;
	}
	return 0;
}

void gt_flight_describe(char *buf, unsigned long len)
{
	double secs = oldest ? (double)(newest->end_ts - oldest->start_ts) / 1e9 : 0;
	snprintf(buf, len, "the last %.1fs (%u generation%s, %.1f MB)", secs, kept_count,
		 kept_count == 1 ? "" : "s", (double)kept_bytes / 1e6);
}

void gt_flight_write_out(void)
{
	struct gt_sink_file f;
	if (gt_sink_begin(&f) == 0 && gt_flight_write(&f) == 0) {
		char what[96];
		gt_flight_describe(what, sizeof what);
		gt_warn("flight recorder: %s written to %s", what, f.path);
	}
	gt_sink_end(&f);
}

void gt_flight_snapshot(void)
{
	char path[4096 + 32];
	snprintf(path, sizeof path, "%s.snap%u", gt_sink_path(), ++snapshots);
	struct gt_sink_file f;
	int err = gt_sink_begin_new(&f, path);
	if (!err)
		err = gt_flight_write(&f);
	gt_sink_end(&f);
	char what[96];
	gt_flight_describe(what, sizeof what);
	if (err)
		gt_warn("flight recorder: cannot write a whole snapshot to %s: %s%s", path, strerror(err),
			f.committed > GT_HEADER_LEN ? " (the generations that fit are there)" : "");
	else
		gt_warn("flight recorder: %s written to %s", what, path);
}
