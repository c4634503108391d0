/* replay.h — shared by `gotrace heap` and `gotrace stat`: a generation's event batches kept by file offset, read again and replayed with the threads' events merged by time. */
#ifndef TOOLS_REPLAY_H
#define TOOLS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "encoder/reader.h"

/* An event batch of the generation. */
struct tool_replay_run {
	uint64_t base_ts;
	uint64_t data_offset; /* file offset of the payload */
	size_t len;
	size_t mem;           /* payload copy in the payload arena, or SIZE_MAX: pread it */
	uint32_t next;        /* the same thread's next run, or UINT32_MAX */
};

/* A thread (M) of the generation, and its place in the replay. */
struct tool_replay_thread {
	uint64_t m;
	uint32_t first, last; /* its runs */
	uint32_t run;         /* the run being replayed */
	uint8_t *buf;         /* pread buffer */
	size_t cap;
	struct gt_event_cursor c;
	struct gt_event ev;   /* its next event */
};

/* Where a generation's runs are read from. */
struct tool_replay_src {
	const struct tool_replay_run *runs;
	const uint8_t *payload;
	int fd;
	uint64_t fd_base;
	uint64_t gen;
};

/* tool_replay_load points t's cursor at run i: 0, -2 out of memory, -1 a read
 * error described in err. */
int tool_replay_load(const struct tool_replay_src *src, struct tool_replay_thread *t, uint32_t i, char *err, size_t errsz);

/* tool_replay_merge replays the threads' events merged by time (ties to the
 * thread seen first). next moves a thread to its next event (1, 0 none left,
 * -1 error) after the caller loaded its first run; emit takes each event.
 * heap is the caller's queue buffer. Returns 0, -1 error, -2 out of memory. */
int tool_replay_merge(struct tool_replay_thread *ts, size_t n, uint32_t **heap,
		      int (*load_first)(void *ctx, struct tool_replay_thread *t),
		      int (*next)(void *ctx, struct tool_replay_thread *t),
		      int (*emit)(void *ctx, struct tool_replay_thread *t), void *ctx);

/* tool_replay_fd returns f's descriptor when it is a regular file (pread works
 * on it) and sets *base to its position, else -1. */
int tool_replay_fd(FILE *f, uint64_t *base);

#endif
