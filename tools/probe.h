/* probe.h — is a file a trace Go's readers open, and which process wrote it?
 *
 * `gotrace run` probes every file a run wrote. A file is a trace when its
 * first generation is complete: a Go trace header, then batches of one
 * generation with its frequency/sync batch, ended by the next
 * generation's first batch, an EndOfGeneration (format 26) or the end of
 * the file at a batch boundary. Only the first generation is read, so a
 * probe costs at most one generation's bytes; a later truncated generation
 * is not seen (gotrace stat and heap report those). */
#ifndef TOOLS_PROBE_H
#define TOOLS_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "encoder/reader.h"
#include "tools/ident.h"

enum tool_probe_kind {
	TOOL_PROBE_TRACE,     /* the first generation is complete */
	TOOL_PROBE_EMPTY,     /* no byte at all */
	TOOL_PROBE_HEADER_ONLY, /* a trace header and nothing else */
	TOOL_PROBE_TRUNCATED, /* the file ends inside its first generation */
	TOOL_PROBE_MALFORMED, /* a trace header, then something Go's readers refuse */
	TOOL_PROBE_NOT_TRACE, /* no Go trace header */
	TOOL_PROBE_UNREADABLE,  /* cannot be opened or read */
};

struct tool_probe {
	enum tool_probe_kind kind;
	int version;           /* the header's format, 0 when there is none */
	bool has_ident;
	struct tool_ident ident; /* when has_ident: the first gotrace.process string */
	char err[GT_READER_ERR]; /* what is wrong, for every kind but TRACE */
};

/* tool_probe_stream probes the trace read from f (at its start). */
void tool_probe_stream(FILE *f, struct tool_probe *p);

/* tool_probe_file opens path and probes it. */
void tool_probe_file(const char *path, struct tool_probe *p);

/* tool_probe_kind_word names the kind in a word or two for a table column:
 * "trace", "empty", "header only", "truncated", "malformed", "not a trace",
 * "unreadable". */
const char *tool_probe_kind_word(enum tool_probe_kind kind);

/* tool_probe_kind_why says in a few words why a file of that kind is no
 * trace (NULL for TOOL_PROBE_TRACE), e.g. "the process ended before its
 * first generation was written". */
const char *tool_probe_kind_why(enum tool_probe_kind kind);

#endif
