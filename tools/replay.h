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

/* The command-line code `gotrace heap` and `gotrace stat` share. cmd is
 * "heap" or "stat", usage the command's usage line. */

/* tool_replay_usage_error prints "gotrace CMD: " fmt (with arg) and the usage;
 * returns the usage exit status. */
int tool_replay_usage_error(const char *cmd, const char *usage, const char *fmt, const char *arg);

/* tool_replay_parse_top reads -top N (0 to 1000000; a leading '+' only when
 * plus_ok): 0, or -1 when s is no such number. */
int tool_replay_parse_top(const char *s, bool plus_ok, unsigned *top);

/* tool_replay_open_trace checks that argv[optind] is the one operand left and
 * opens it ("-": standard input). NULL with *status set when it cannot. */
FILE *tool_replay_open_trace(const char *cmd, const char *usage, int argc, char **argv, int optind, int *status);

/* tool_replay_empty says whether f has no byte at all; a byte it reads is
 * pushed back (so it works on standard input too). */
bool tool_replay_empty(FILE *f);

/* tool_replay_no_generation prints the one line about a file that holds no
 * complete generation (nothing else was printed): empty, not a trace
 * (version 0: err is the reader's), a header alone (err NULL), or cut
 * inside its first generation (err). Returns TOOL_EXIT_NOTRACE, or 1 when
 * err is a read error or out of memory (the file may be fine). */
int tool_replay_no_generation(const char *cmd, const char *name, bool empty, int version, const char *err);

struct tool_command;

/* A command's options besides -top N and -help: one, a flag or with a value. */
struct tool_replay_cmd {
	const char *name, *usage;
	const struct tool_command *cmd;
	const char *top_what;  /* "sites", "entries" */
	bool plus_ok;          /* -top +N allowed */
	const char *opt;       /* its extra option */
	bool opt_value;        /* it takes a value (*value), else sets *flag */
};

/* tool_replay_args parses the command line (*top holds the default) and opens
 * the trace; NULL with *status set when done or failed (0 after -help). */
FILE *tool_replay_args(const struct tool_replay_cmd *rc, int argc, char **argv, unsigned *top,
		       const char **value, bool *flag, const char **path, int *status);

#endif
