/* probe.h — is a file a trace Go's readers open, and which process wrote it?
 *
 * `gotrace run` probes every file a run wrote. A file is a trace when its
 * first generation is complete: a Go trace header, then batches of one
 * generation with its frequency/sync batch, ended by the next
 * generation's first batch, an EndOfGeneration (format 26) or the end of
 * the file at a batch boundary. Only the first generation is read, so a
 * probe costs at most one generation's bytes; a later truncated generation
 * is not seen (gotrace stat and heap report those). */
#ifndef GT_TOOLS_PROBE_H
#define GT_TOOLS_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "encoder/reader.h"
#include "tools/ident.h"

enum gt_probe_kind {
	GT_PROBE_TRACE,       /* the first generation is complete */
	GT_PROBE_EMPTY,       /* no byte at all */
	GT_PROBE_HEADER_ONLY, /* a trace header and nothing else */
	GT_PROBE_TRUNCATED,   /* the file ends inside its first generation */
	GT_PROBE_MALFORMED,   /* a trace header, then something Go's readers refuse */
	GT_PROBE_NOT_TRACE,   /* no Go trace header */
	GT_PROBE_UNREADABLE,  /* cannot be opened or read */
};

struct gt_probe {
	enum gt_probe_kind kind;
	int version;           /* the header's format, 0 when there is none */
	bool has_ident;
	struct gt_ident ident; /* when has_ident: the first gotrace.process string */
	char err[GT_READER_ERR]; /* what is wrong, for every kind but TRACE */
};

/* gt_probe_stream probes the trace read from f (at its start). */
void gt_probe_stream(FILE *f, struct gt_probe *p);

/* gt_probe_file opens path and probes it. */
void gt_probe_file(const char *path, struct gt_probe *p);

/* gt_probe_kind_word names the kind in a word or two for a table column:
 * "trace", "empty", "header only", "truncated", "malformed", "not a trace",
 * "unreadable". */
const char *gt_probe_kind_word(enum gt_probe_kind kind);

/* gt_probe_kind_why says in a few words why a file of that kind is no
 * trace (NULL for GT_PROBE_TRACE), e.g. "the process ended before its
 * first generation was written". */
const char *gt_probe_kind_why(enum gt_probe_kind kind);

#endif
