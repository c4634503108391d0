/* ident.h — the process identity libgotrace.so puts in every generation's
 * string table:
 *
 *   gotrace.process pid=<pid> ppid=<ppid> cmd=<argv joined by spaces, C-escaped>
 *
 * (docs/design.md; the first generation also has it as a UserLog of
 * category gotrace.process). The tools read it to say which process wrote
 * a trace. Fields are "key=value" separated by one space; cmd= comes last
 * and takes the rest of the string, so fields added later before it are
 * skipped. */
#ifndef TOOLS_IDENT_H
#define TOOLS_IDENT_H

#include <stdbool.h>
#include <stddef.h>

#define TOOL_IDENT_PREFIX "gotrace.process "
#define TOOL_IDENT_CMD_MAX 2048 /* bytes of cmd kept (a trace string holds at most 1024) */

struct tool_ident {
	long pid;  /* > 0 */
	long ppid; /* -1 when the string has none */
	char cmd[TOOL_IDENT_CMD_MAX + 1]; /* as written (C-escaped), NUL-terminated; may be "" */
	bool cmd_cut;                   /* cmd was longer than TOOL_IDENT_CMD_MAX */
};

/* tool_ident_parse returns 1 when the len bytes at s (not NUL-terminated) are
 * a process identity with a pid, filling *id; 0 otherwise. */
int tool_ident_parse(const void *s, size_t len, struct tool_ident *id);

/* tool_ident_program writes a short, terminal-safe form of cmd to buf: the
 * executable's base name, then the arguments, cut to `width` characters
 * with "..." at the end when longer; control bytes become '?'. An empty
 * cmd gives "?". buf must hold 4 * width + 1 bytes (UTF-8 passes through). */
void tool_ident_program(const char *cmd, char *buf, size_t width);

/* tool_ident_sanitize copies cmd to buf (len bytes) with control bytes as
 * '?', cut to at most `width` characters with "..." when longer. */
void tool_ident_sanitize(const char *cmd, char *buf, size_t len, size_t width);

#endif
