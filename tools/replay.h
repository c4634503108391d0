/* replay.h — shared by `gotrace heap` and `gotrace stat`: a trace read batch
 * by batch, and each generation's event batches, checked to their end when
 * they are read and kept by their place in the file, then replayed with the
 * threads' events merged by time into the command's own event function.
 *
 * A regular file is read again with pread when the generation is replayed;
 * other input (a pipe, or batches fed one by one) keeps a copy of each kept
 * payload until the generation ends. The merge is Go's reader's: each
 * thread's (M's) events in file order, the earliest head first, ties to the
 * thread seen first, so an object allocated by one thread and freed by
 * another pairs up whatever the order of their batches in the file. Memory:
 * the generation's batch list, and per thread one batch while replaying. */
#ifndef TOOLS_REPLAY_H
#define TOOLS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "encoder/reader.h"
#include "tools/heap_map.h"

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

struct tool_replay {
	bool (*want)(uint8_t type);   /* the events replayed (NULL: all) */
	int fd;                       /* the trace, readable with pread, or -1 */
	uint64_t fd_base;             /* file position of the trace's first byte in fd */

	/* The generation being read. */
	struct tool_replay_run *runs; /* the batches that hold an event wanted */
	size_t nruns, cap_runs;
	uint8_t *payload;             /* their copies, when fd is -1 */
	size_t npayload, cap_payload;
	struct tool_replay_thread *threads;
	size_t nthreads, cap_threads;
	struct tool_hmap index;       /* m -> index in threads */
	uint32_t *queue;              /* the merge: threads by their next event's time */
	uint64_t events;              /* events wanted */
	uint64_t max_ts;              /* the latest time of any event */

	/* An observer of the events tool_replay_add checks, so another
	 * accounting reads them without checking the batches again (the
	 * mapped memory rides on the heap's replay, tools/map_acct.h): called
	 * for each event whose type has its bit in observe_types, with its
	 * batch. Set after tool_replay_init (which clears it). */
	void (*observe)(void *ctx, const struct gt_rbatch *b, const struct gt_event *ev);
	void *observe_ctx;
	uint8_t observe_types[32];
};

/* tool_replay_init prepares an empty replay of the events want accepts
 * (NULL: every event), fed without a file (fd -1). tool_replay_free
 * releases it; tool_replay_clear forgets the generation (keeping a small
 * payload arena for the next one). */
void tool_replay_init(struct tool_replay *r, bool (*want)(uint8_t type));
void tool_replay_free(struct tool_replay *r);
void tool_replay_clear(struct tool_replay *r);

/* tool_replay_read reads a whole trace from f: each batch goes to batch
 * (which feeds the event batches to tool_replay_add), and at a clean end of
 * the file end finishes the last generation; meanwhile, when f is a regular
 * file, payloads are read again from it. *version is the trace's format once
 * its header is read. Returns 0; -1 when batch or end did (their message
 * is their own) or the reader failed (its message, with the offset, in
 * err); -2 when out of memory. */
int tool_replay_read(struct tool_replay *r, FILE *f, int *version,
		     int (*batch)(void *ctx, const struct gt_rbatch *b), int (*end)(void *ctx), void *ctx,
		     char *err, size_t errsz);

/* tool_replay_add checks an event batch to its end (so that the replay
 * cannot fail on it), counts its events, and keeps it when it holds an
 * event wanted. Returns 0, -1 with the reader's message in err, or -2 when
 * out of memory. */
int tool_replay_add(struct tool_replay *r, const struct gt_rbatch *b, char *err, size_t errsz);

/* tool_replay_keep keeps an event batch without checking it (one that
 * another replay checks: an observer's, above). Returns 0, or -2 when out
 * of memory. */
int tool_replay_keep(struct tool_replay *r, const struct gt_rbatch *b);

/* tool_replay_merge replays the wanted events of the batches kept for
 * generation gen, merged by time, into emit (m: the event's thread). Returns
 * 0; -1 when emit did (its message is its own) or a payload could not be
 * read again (err); -2 when out of memory. */
int tool_replay_merge(struct tool_replay *r, uint64_t gen,
		      int (*emit)(void *ctx, uint64_t m, const struct gt_event *ev), void *ctx,
		      char *err, size_t errsz);

#endif
