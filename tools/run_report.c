/* run_report.c — `gotrace run`'s report: finds the files the run wrote by
 * the names the library gives them (outname.h), probes each (probe.h) and
 * says which is the command's own and which to open (run_report.h).
 *
 * The command's own process is the one gotrace forked; its file is the one
 * written by that pid's last program (after exec the name may change:
 * outname.h's image order). When that file is small beside the trace of a
 * process it started (directly or not: the ppids of the traces'
 * identities lead to it) that holds
 * most of the run's bytes — a wrapper script, a launcher or a shim that
 * forked the real program — the report points at that trace instead. */
#include "units.h"
#include "tools/run_report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/config.h"
#include "tools/outname.h"
#include "tools/probe.h"

#define MAX_FILES 100000 /* files looked at; a directory with more is not the run's alone */
#define MAX_PROBE 64     /* the biggest files read (with the command's own) */
#define MAX_ROWS 20      /* files listed; the rest is summed up in one line */
#define PROG_WIDTH 28    /* characters of the program column */
#define BULK_RATIO 4     /* a trace this many times the command's own ... */
/* ... that also holds at least half of the bytes is where the run happened. */

typedef unsigned long long ull;

struct file {
	char *name;
	uint64_t size;
	struct tool_outname on;
	long pid;              /* from the identity, else the name, else the command's */
	struct tool_probe *probe; /* NULL: not read */
	bool own;              /* the command's own process's last program */
	bool running;          /* no trace yet, and its process is still alive */
};

struct scan {
	struct file *v;
	size_t n, cap;
	uint64_t bytes;        /* every file's */
	char dir[PATH_MAX];
	bool show_dir;         /* the pattern had a directory: paths keep it */
	bool dir_has_p;        /* only the command's directory was looked at */
};

/* ---- words ---- */

void tool_shell_quote(const char *s, char *buf, size_t len)
{
	if (strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./%+,:@=-")
	    == strlen(s) && *s) {
		snprintf(buf, len, "%s", s);
		return;
	}
	size_t n = 0;
	buf[n++] = '\'';
	for (; *s && n + 6 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n++] = '\'';
	buf[n] = '\0';
}

static void path_of(const struct scan *sc, const struct file *f, char *buf, size_t len)
{
	if (!sc->show_dir)
		snprintf(buf, len, "%s", f->name);
	else
		snprintf(buf, len, "%s%s%s", sc->dir, strcmp(sc->dir, "/") ? "/" : "", f->name);
}

/* program writes the short program name of f, or "" when its trace does not say. */
static void program(const struct file *f, char *buf, size_t width)
{
	if (f->probe && f->probe->has_ident)
		tool_ident_program(f->probe->ident.cmd, buf, width);
	else
		buf[0] = '\0';
}

static bool is_trace(const struct file *f)
{
	return f->probe && f->probe->kind == TOOL_PROBE_TRACE;
}

/* A status beyond the probe's kinds: a file that is no trace yet because
 * its process (started in the background, say) still runs. */
#define RUNNING 31

static unsigned status(const struct file *f)
{
	return f->running ? RUNNING : (unsigned)f->probe->kind;
}

static const char *status_word(unsigned k)
{
	return k == RUNNING ? "running" : tool_probe_kind_word((enum tool_probe_kind)k);
}

static const char *status_why(unsigned k)
{
	return k == RUNNING ? "the process still runs and has not written its first generation yet"
			    : tool_probe_kind_why((enum tool_probe_kind)k);
}

/* alive says whether process pid exists (it may belong to someone else). */
static bool alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* ---- finding the files ---- */

static bool fresh(const struct stat *st, const struct timespec *start)
{
	return st->st_mtim.tv_sec > start->tv_sec ||
	       (st->st_mtim.tv_sec == start->tv_sec && st->st_mtim.tv_nsec >= start->tv_nsec);
}

/* find lists the files in sc->dir whose names the library can give from
 * the pattern and that changed since the run started. */
static int find(struct scan *sc, const struct tool_run_result *run)
{
	const char *base;
	int split = tool_outname_split(run->pattern, run->pid, sc->dir, sizeof sc->dir, &base);
	if (split < 0)
		return -1;
	sc->dir_has_p = split == 1;
	sc->show_dir = strchr(run->pattern, '/') != NULL;
	DIR *d = opendir(sc->dir);
	if (!d)
		return 0;
	int dfd = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL && sc->n < MAX_FILES) {
		struct tool_outname on;
		struct stat st;
		if (!tool_outname_match(base, e->d_name, &on))
			continue;
		/* The library never follows a link for its output: neither do we. */
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
		    !fresh(&st, &run->start))
			continue;
		if (sc->n == sc->cap) {
			size_t cap = sc->cap ? 2 * sc->cap : 16;
			struct file *v = realloc(sc->v, cap * sizeof *v);
			if (!v)
				break;
			sc->v = v;
			sc->cap = cap;
		}
		char *name = strdup(e->d_name);
		if (!name)
			break;
		sc->v[sc->n++] = (struct file){ .name = name, .size = (uint64_t)st.st_size, .on = on,
						.pid = on.pid ? on.pid : (long)run->pid };
		sc->bytes += (uint64_t)st.st_size;
	}
	closedir(d);
	return 0;
}

static int by_size(const void *a, const void *b)
{
	const struct file *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* by_row: the command's own files first (its main file, then snapshots),
 * then the others, biggest first. */
static int by_row(const void *a, const void *b)
{
	const struct file *x = a, *y = b;
	if (x->own != y->own)
		return x->own ? -1 : 1;
	if (x->own && x->on.snap != y->on.snap)
		return x->on.snap < y->on.snap ? -1 : 1;
	return by_size(a, b);
}

/* probe reads the biggest files and those the command may have written. */
static void probe(struct scan *sc, const struct tool_run_result *run)
{
	qsort(sc->v, sc->n, sizeof *sc->v, by_size);
	for (size_t i = 0; i < sc->n; i++) {
		struct file *f = &sc->v[i];
		if (i >= MAX_PROBE && f->pid != (long)run->pid)
			continue;
		f->probe = malloc(sizeof *f->probe);
		if (!f->probe)
			continue;
		char path[PATH_MAX + NAME_MAX + 2];
		snprintf(path, sizeof path, "%s/%s", sc->dir, f->name);
		tool_probe_file(path, f->probe);
		if (f->probe->has_ident)
			f->pid = f->probe->ident.pid;
		/* The command's process is reaped: any other may still write. */
		enum tool_probe_kind k = f->probe->kind;
		f->running = (k == TOOL_PROBE_EMPTY || k == TOOL_PROBE_HEADER_ONLY || k == TOOL_PROBE_TRUNCATED) &&
			     f->pid != (long)run->pid && alive(f->pid);
	}
	/* The command's own: its pid's last program (the highest image). */
	bool any = false;
	unsigned last = 0;
	for (size_t i = 0; i < sc->n; i++)
		if (sc->v[i].pid == (long)run->pid && (!any || sc->v[i].on.image > last)) {
			last = sc->v[i].on.image;
			any = true;
		}
	for (size_t i = 0; i < sc->n; i++)
		sc->v[i].own = any && sc->v[i].pid == (long)run->pid && sc->v[i].on.image == last;
	qsort(sc->v, sc->n, sizeof *sc->v, by_row);
}

static void scan_free(struct scan *sc)
{
	for (size_t i = 0; i < sc->n; i++) {
		free(sc->v[i].name);
		free(sc->v[i].probe);
	}
	free(sc->v);
}

/* ---- what to open ---- */

struct choice {
	const struct file *own;   /* the command's own main file (not a snapshot), or NULL */
	const struct file *big;   /* the biggest trace of another process or program;
				   * with wrapper, the biggest of a process own started */
	const struct file *open;  /* the file to open, or NULL when none is a trace */
	bool wrapper;             /* own is a trace, but big holds the run */
};

/* started_by says whether f's process descends from pid, following the
 * ppids of the traces' identities through the run's files. A trace without
 * an identity (an older library) may: it is taken as one. */
static bool started_by(const struct scan *sc, const struct file *f, long pid)
{
	for (int depth = 0; depth < 64; depth++) {
		const struct tool_probe *p = f->probe;
		if (!p || !p->has_ident || p->ident.ppid < 0)
			return true;
		if (p->ident.ppid == pid)
			return true;
		const struct file *parent = NULL;
		for (size_t i = 0; i < sc->n && !parent; i++)
			if (sc->v[i].pid == p->ident.ppid && sc->v[i].probe && sc->v[i].probe->has_ident)
				parent = &sc->v[i];
		if (!parent)
			return false; /* its parent wrote no file of this run */
		f = parent;
	}
	return false;
}

static struct choice choose(const struct scan *sc, long pid)
{
	struct choice c = { 0 };
	const struct file *child = NULL; /* the biggest trace of a process the command started (or its children) */
	for (size_t i = 0; i < sc->n; i++) {
		const struct file *f = &sc->v[i];
		if (f->own && f->on.snap == 0 && !c.own)
			c.own = f;
		else if (!f->own && f->on.snap == 0 && is_trace(f)) {
			if (!c.big || f->size > c.big->size)
				c.big = f;
			if (started_by(sc, f, pid) && (!child || f->size > child->size))
				child = f;
		}
	}
	if (c.own && is_trace(c.own)) {
		/* A wrapper: a process it started wrote most of the run. */
		c.wrapper = child && child->size >= BULK_RATIO * c.own->size && 2 * child->size >= sc->bytes;
		if (c.wrapper)
			c.big = child;
		c.open = c.wrapper ? c.big : c.own;
	} else {
		c.open = c.big;
		/* Only snapshots are traces (a flight recorder killed by SIGKILL). */
		for (size_t i = 0; i < sc->n && !c.open; i++)
			if (is_trace(&sc->v[i]))
				c.open = &sc->v[i];
	}
	return c;
}

/* ---- the report ---- */

static void say_open(FILE *out, const struct scan *sc, const struct file *f, const struct tool_run_result *run)
{
	char path[PATH_MAX + NAME_MAX + 2], quoted[2 * sizeof path];
	path_of(sc, f, path, sizeof path);
	if (run->open)
		snprintf(run->open, run->open_len, "%s", path);
	tool_shell_quote(path, quoted, sizeof quoted);
	fprintf(out, "gotrace: open it with: go tool trace %s\n", quoted);
}

/* about writes "pid 4243, 7z a x.7z f, 1.3 MiB" (no program when unknown). */
static void about(const struct file *f, char *buf, size_t len)
{
	char prog[4 * 40 + 1], sz[32];
	program(f, prog, 40);
	tool_human_bytes(f->size, sz, sizeof sz);
	snprintf(buf, len, "pid %ld, %s%s%s", f->pid, prog, *prog ? ", " : "", sz);
}

/* who writes "pid 4243 (7z a x.7z f, 1.3 MiB)". */
static void who(const struct file *f, char *buf, size_t len)
{
	char prog[4 * 40 + 1], sz[32];
	program(f, prog, 40);
	tool_human_bytes(f->size, sz, sizeof sz);
	snprintf(buf, len, "pid %ld (%s%s%s)", f->pid, prog, *prog ? ", " : "", sz);
}

static void no_file(FILE *out, const struct tool_run_result *run)
{
	char path[PATH_MAX];
	if (gt_config_expand_out(run->pattern, run->pid, path, sizeof path) < 0) {
		fprintf(out, "gotrace: cannot work out the trace path from \"%s\"\n", run->pattern);
		return;
	}
	if (!run->have_lib) {
		fprintf(out, "gotrace: no trace written to %s (libgotrace.so was not found)\n", path);
	} else if (WIFSIGNALED(run->status) && WTERMSIG(run->status) == SIGKILL) {
		/* The one death the library cannot write a generation at. */
		fprintf(out, "gotrace: no trace written to %s: the program was killed (SIGKILL) before its "
			     "first generation was written, and a process leaves a file only from then on\n",
			path);
	} else {
		fprintf(out, "gotrace: no trace written to %s: no traced process got to write its first "
			     "generation (a process killed by SIGKILL or ended by _exit before then leaves none; "
			     "static and setuid programs are not traced)\n", path);
	}
}

static void one_file(FILE *out, const struct scan *sc, const struct tool_run_result *run)
{
	const struct file *f = &sc->v[0];
	char path[PATH_MAX + NAME_MAX + 2], what[256];
	path_of(sc, f, path, sizeof path);
	about(f, what, sizeof what);
	if (is_trace(f)) {
		fprintf(out, "gotrace: trace written to %s (%s%s)\n", path, what,
			f->pid == (long)run->pid ? "" : "; the command's own process left none");
		say_open(out, sc, f, run);
	} else if (f->probe) {
		fprintf(out, "gotrace: no trace written: %s (%s) is %s: %s\n", path, what,
			f->running ? "not a trace yet" : status_word(status(f)), status_why(status(f)));
	}
}

/* row prints one file: mark, pid, program, size, status, path. */
static void row(FILE *out, const struct scan *sc, const struct file *f)
{
	char prog[4 * PROG_WIDTH + 1], sz[32], path[PATH_MAX + NAME_MAX + 2];
	program(f, prog, PROG_WIDTH);
	if (!*prog)
		snprintf(prog, sizeof prog, "?");
	/* Pad by characters, not bytes: a name may be UTF-8. */
	size_t chars = 0;
	for (const char *p = prog; *p; p++)
		chars += ((unsigned char)*p & 0xc0) != 0x80;
	path_of(sc, f, path, sizeof path);
	fprintf(out, "gotrace: %c %7ld  %s%*s  %10s  %-11s  %s\n", f->own ? '*' : ' ', f->pid, prog,
		(int)(chars < PROG_WIDTH ? PROG_WIDTH - chars : 0), "", tool_human_bytes(f->size, sz, sizeof sz),
		f->probe ? status_word(status(f)) : "", path);
}

/* not_traces says which of the listed files are no traces, and why, in one line. */
static void not_traces(FILE *out, const struct scan *sc, size_t shown)
{
	size_t bad = 0, traces = 0;
	unsigned kinds = 0;
	for (size_t i = 0; i < shown; i++) {
		const struct tool_probe *p = sc->v[i].probe;
		if (p && p->kind != TOOL_PROBE_TRACE) {
			bad++;
			kinds |= 1u << status(&sc->v[i]);
		} else if (p) {
			traces++;
		}
	}
	if (bad == 0)
		return;
	if (traces == 0)
		fprintf(out, "gotrace: none of these files is a trace (");
	else
		fprintf(out, "gotrace: %zu of these files %s no trace (", bad, bad == 1 ? "is" : "are");
	const unsigned early = 1u << TOOL_PROBE_EMPTY | 1u << TOOL_PROBE_HEADER_ONLY;
	const char *sep = "";
	if ((kinds & early) == early) { /* one reason for both */
		fprintf(out, "empty or header only: %s", tool_probe_kind_why(TOOL_PROBE_HEADER_ONLY));
		kinds &= ~early;
		sep = "; ";
	}
	for (unsigned k = 0; k < 32; k++) {
		if (kinds & (1u << k)) {
			fprintf(out, "%s%s: %s", sep, status_word(k), status_why(k));
			sep = "; ";
		}
	}
	fprintf(out, ")\n");
}

static void many_files(FILE *out, const struct scan *sc, const struct tool_run_result *run)
{
	size_t shown = sc->n < MAX_ROWS ? sc->n : MAX_ROWS;
	bool own_listed = shown > 0 && sc->v[0].own;
	fprintf(out, "gotrace: this run wrote %zu files", sc->n);
	if (own_listed)
		fprintf(out, " (* marks the command's own process, pid %ld)", (long)run->pid);
	fprintf(out, ":\n");
	fprintf(out, "gotrace:   %7s  %-*s  %10s  %-11s  %s\n", "PID", PROG_WIDTH, "PROGRAM", "SIZE", "STATUS",
		"FILE");
	for (size_t i = 0; i < shown; i++)
		row(out, sc, &sc->v[i]);
	if (shown < sc->n) {
		uint64_t rest = 0;
		char sz[32];
		for (size_t i = shown; i < sc->n; i++)
			rest += sc->v[i].size;
		fprintf(out, "gotrace:   ... and %zu smaller files (%s in all): ls -lS %s\n", sc->n - shown,
			tool_human_bytes(rest, sz, sizeof sz), sc->dir);
	}
	if (sc->dir_has_p)
		fprintf(out, "gotrace: (only %s was searched: the output directory itself has %%p in its name)\n",
			sc->dir);
	not_traces(out, sc, shown);

	struct choice c = choose(sc, (long)run->pid);
	char what[256], sz[32];
	if (c.wrapper) {
		char prog[4 * 40 + 1];
		program(c.own, prog, 40);
		who(c.big, what, sizeof what);
		fprintf(out, "gotrace: the command's own process (pid %ld%s%s) wrote %s; most of the run is in "
			     "the trace of %s\n", c.own->pid, *prog ? ", " : "", prog,
			tool_human_bytes(c.own->size, sz, sizeof sz), what);
	} else if (c.open && c.open != c.own) {
		who(c.open, what, sizeof what);
		if (c.own && c.own->probe)
			fprintf(out, "gotrace: the command's own process (pid %ld) left no trace (its file is %s); "
				     "the biggest trace is that of %s\n", c.own->pid,
				status_word(status(c.own)), what);
		else
			fprintf(out, "gotrace: the command's own process (pid %ld) left no file; the biggest trace "
				     "is that of %s\n", (long)run->pid, what);
	}
	if (c.open)
		say_open(out, sc, c.open, run);
}

void tool_run_report(FILE *out, const struct tool_run_result *run)
{
	struct scan sc = { 0 };
	if (run->open && run->open_len)
		run->open[0] = '\0';
	if (find(&sc, run) != 0) {
		fprintf(out, "gotrace: cannot work out the trace path from \"%s\"\n", run->pattern);
		return;
	}
	if (sc.n == 0)
		no_file(out, run);
	else {
		probe(&sc, run);
		if (sc.n == 1)
			one_file(out, &sc, run);
		else
			many_files(out, &sc, run);
	}
	scan_free(&sc);
}
