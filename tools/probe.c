/* probe.c — reads a trace's first generation to tell whether it is a trace (probe.h). */
#include "tools/probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* strings looks for the process identity in a string table batch. */
static void strings(struct tool_probe *p, const struct gt_rbatch *b)
{
	struct gt_string_cursor c;
	struct gt_string s;
	if (p->has_ident || gt_strings_begin(&c, b))
		return;
	while (gt_strings_next(&c, &s) > 0)
		if (tool_ident_parse(s.data, s.len, &p->ident)) {
			p->has_ident = true;
			return;
		}
}

static enum tool_probe_kind reader_failure(const char *err)
{
	if (strncmp(err, "read error", 10) == 0)
		return TOOL_PROBE_UNREADABLE;
	if (strncmp(err, "truncated", 9) == 0 || strncmp(err, "incomplete generation", 21) == 0)
		return TOOL_PROBE_TRUNCATED;
	return TOOL_PROBE_MALFORMED;
}

void tool_probe_stream(FILE *f, struct tool_probe *p)
{
	memset(p, 0, sizeof *p);
	int c = getc(f);
	if (c == EOF) {
		if (ferror(f)) {
			p->kind = TOOL_PROBE_UNREADABLE;
			snprintf(p->err, sizeof p->err, "read error at offset 0: %s", strerror(errno));
		} else {
			p->kind = TOOL_PROBE_EMPTY;
			snprintf(p->err, sizeof p->err, "empty file");
		}
		return;
	}
	ungetc(c, f);

	struct gt_reader *r = malloc(sizeof *r);
	if (!r) {
		p->kind = TOOL_PROBE_UNREADABLE;
		snprintf(p->err, sizeof p->err, "out of memory");
		return;
	}
	if (gt_reader_init(r, f)) {
		p->kind = strncmp(r->err, "read error", 10) == 0 ? TOOL_PROBE_UNREADABLE : TOOL_PROBE_NOT_TRACE;
		snprintf(p->err, sizeof p->err, "%s", r->err);
		free(r);
		return;
	}
	p->version = r->version;

	struct gt_rbatch b;
	bool any = false, sync = false, done = false;
	uint64_t first = 0;
	int got;
	while (!done && (got = gt_reader_next(r, &b)) > 0) {
		if (!any) {
			any = true;
			first = b.gen;
		}
		if (b.kind == GT_BATCH_END_OF_GEN) {
			done = true;
		} else if (b.gen != first) {
			done = true; /* the next generation began: the first one is whole */
		} else if (b.kind == GT_BATCH_SYNC) {
			sync = true;
		} else if (b.kind == GT_BATCH_STRINGS) {
			strings(p, &b);
		}
	}
	/* A batch cut short after its generation field was read: when it is
	 * the next generation's, the first one is whole all the same. */
	if (!done && got < 0 && any && b.gen != 0 && b.gen != first)
		done = true;
	if (!done && got < 0) {
		p->kind = reader_failure(r->err);
		snprintf(p->err, sizeof p->err, "%s", r->err);
	} else if (!any) {
		p->kind = TOOL_PROBE_HEADER_ONLY;
		snprintf(p->err, sizeof p->err, "a trace header and no generation");
	} else if (!sync) {
		p->kind = TOOL_PROBE_MALFORMED;
		snprintf(p->err, sizeof p->err, "generation %llu has no %s batch", (unsigned long long)first,
			 p->version >= GT_FORMAT_25 ? "sync" : "frequency");
	} else {
		p->kind = TOOL_PROBE_TRACE;
	}
	free(r);
}

void tool_probe_file(const char *path, struct tool_probe *p)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		memset(p, 0, sizeof *p);
		p->kind = TOOL_PROBE_UNREADABLE;
		snprintf(p->err, sizeof p->err, "cannot open: %s", strerror(errno));
		return;
	}
	tool_probe_stream(f, p);
	fclose(f);
}

const char *tool_probe_kind_word(enum tool_probe_kind kind)
{
	switch (kind) {
	case TOOL_PROBE_TRACE: return "trace";
	case TOOL_PROBE_EMPTY: return "empty";
	case TOOL_PROBE_HEADER_ONLY: return "header only";
	case TOOL_PROBE_TRUNCATED: return "truncated";
	case TOOL_PROBE_MALFORMED: return "malformed";
	case TOOL_PROBE_NOT_TRACE: return "not a trace";
	case TOOL_PROBE_UNREADABLE: return "unreadable";
	}
	return "?";
}

const char *tool_probe_kind_why(enum tool_probe_kind kind)
{
	switch (kind) {
	case TOOL_PROBE_TRACE: return NULL;
	case TOOL_PROBE_EMPTY:
	case TOOL_PROBE_HEADER_ONLY: return "the process ended before its first generation was written";
	case TOOL_PROBE_TRUNCATED: return "the file ends inside its first generation";
	case TOOL_PROBE_MALFORMED: return "Go's readers cannot read its first generation";
	case TOOL_PROBE_NOT_TRACE: return "it does not start with a Go trace header";
	case TOOL_PROBE_UNREADABLE: return "it cannot be read";
	}
	return NULL;
}
