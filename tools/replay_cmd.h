/* replay_cmd.h — the command-line code `gotrace heap` and `gotrace stat`
 * share (replay_cmd.c). cmd is "heap" or "stat", usage the command's usage
 * line. */
#ifndef TOOLS_REPLAY_CMD_H
#define TOOLS_REPLAY_CMD_H

#include <stdbool.h>
#include <stdio.h>

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
	const char *opt2;      /* a second option with a value (tool_replay_args2), or NULL */
};

/* tool_replay_args parses the command line (*top holds the default) and opens
 * the trace; NULL with *status set when done or failed (0 after -help). */
FILE *tool_replay_args(const struct tool_replay_cmd *rc, int argc, char **argv, unsigned *top,
		       const char **value, bool *flag, const char **path, int *status);

/* tool_replay_args2 is tool_replay_args with the command's second option
 * (rc->opt2), whose value goes to *value2. */
FILE *tool_replay_args2(const struct tool_replay_cmd *rc, int argc, char **argv, unsigned *top,
			const char **value, bool *flag, const char **value2, const char **path, int *status);

#endif
