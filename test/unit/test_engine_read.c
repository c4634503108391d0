/* test_engine_read.c — the engine's trace read back with the project's
 * reader (encoder/reader.h) into the model of test_engine_fixture.h. */
#include "test_engine_fixture.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encoder/reader.h"
#include "encoder/varint.h"

/* grow makes room for one more element of *v (n used, *cap allocated). */
static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 256;
	v = realloc(v, *cap * size);
	cr_assert(v);
	return v;
}

/* The goroutine running on each M, as the events say. */
struct running {
	uint64_t m[256], g[256];
	unsigned n;
};

static uint64_t *running_on(struct running *r, uint64_t m)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->m[i] == m)
			return &r->g[i];
	cr_assert(r->n < 256);
	r->m[r->n] = m;
	r->g[r->n] = 0;
	return &r->g[r->n++];
}

struct model {
	struct ex_trace *t;
	size_t cap_ev, cap_str, cap_stk, cap_types;
	struct running run;
};

static void add_events(struct model *md, const struct gt_rbatch *b)
{
	struct ex_trace *t = md->t;
	struct gt_event_cursor c;
	struct gt_event e;
	gt_events_begin(&c, b);
	uint64_t *g = running_on(&md->run, b->m);
	int r;
	while ((r = gt_events_next(&c, &e)) == 1) {
		t->ev = grow(t->ev, t->nev, &md->cap_ev, sizeof *t->ev);
		struct ex_ev *x = &t->ev[t->nev++];
		memset(x, 0, sizeof *x);
		x->gen = b->gen;
		x->m = b->m;
		x->type = e.type;
		x->ts = e.ts;
		for (int i = 0; i < 4 && i < e.nargs; i++)
			x->args[i] = e.args[i];
		/* Who runs here: set by GoStart / a running GoStatus, gone
		 * after a GoBlock, GoStop or GoDestroy. */
		if (e.type == GT_EV_GO_START || e.type == GT_EV_GO_SWITCH)
			*g = e.args[0];
		if ((e.type == GT_EV_GO_STATUS || e.type == GT_EV_GO_STATUS_STACK) && e.args[1] == b->m)
			*g = e.args[2] == GT_G_RUNNING || e.args[2] == GT_G_SYSCALL ? e.args[0] : *g;
		x->g = *g;
		if (e.type == GT_EV_GO_BLOCK || e.type == GT_EV_GO_STOP || e.type == GT_EV_GO_DESTROY ||
		    e.type == GT_EV_PROC_STOP)
			*g = 0;
	}
	cr_assert_eq(r, 0, "events: %s", c.at.err);
}

static void add_strings(struct model *md, const struct gt_rbatch *b)
{
	struct ex_trace *t = md->t;
	struct gt_string_cursor c;
	struct gt_string s;
	cr_assert_eq(gt_strings_begin(&c, b), 0);
	int r;
	while ((r = gt_strings_next(&c, &s)) == 1) {
		t->str = grow(t->str, t->nstr, &md->cap_str, sizeof *t->str);
		struct ex_str *x = &t->str[t->nstr++];
		x->gen = b->gen;
		x->id = s.id;
		x->s = strndup((const char *)s.data, s.len);
	}
	cr_assert_eq(r, 0, "strings: %s", c.at.err);
}

static struct gt_stack scratch_stack;

static void add_stacks(struct model *md, const struct gt_rbatch *b)
{
	struct ex_trace *t = md->t;
	struct gt_stack_cursor c;
	cr_assert_eq(gt_stacks_begin(&c, b), 0);
	int r;
	while ((r = gt_stacks_next(&c, &scratch_stack)) == 1) {
		t->stk = grow(t->stk, t->nstk, &md->cap_stk, sizeof *t->stk);
		struct ex_stack *x = &t->stk[t->nstk++];
		memset(x, 0, sizeof *x);
		x->gen = b->gen;
		x->id = scratch_stack.id;
		x->n = scratch_stack.nframes < EX_FRAMES ? (unsigned)scratch_stack.nframes : EX_FRAMES;
		for (unsigned i = 0; i < x->n; i++) {
			x->f[i].pc = scratch_stack.frames[i].pc;
			x->f[i].line = scratch_stack.frames[i].line;
			/* names resolved after the generation's strings are read */
			x->f[i].func[0] = 0;
			snprintf(x->f[i].file, sizeof x->f[i].file, "#%llu#%llu",
				 (unsigned long long)scratch_stack.frames[i].func,
				 (unsigned long long)scratch_stack.frames[i].file);
		}
	}
	cr_assert_eq(r, 0, "stacks: %s", c.at.err);
}

/* add_types reads an AllocFree experimental batch: the info, or types. */
static void add_types(struct model *md, const struct gt_rbatch *b)
{
	struct ex_trace *t = md->t;
	cr_assert(b->len >= 1);
	if (b->data[0] == GT_ALLOCFREE_INFO) {
		t->heap_infos++;
		return;
	}
	cr_assert_eq(b->data[0], GT_ALLOCFREE_TYPES);
	size_t at = 1;
	while (at < b->len) {
		uint64_t v[5];
		for (int i = 0; i < 5; i++) {
			int n = gt_get_uvarint(b->data + at, b->len - at, &v[i]);
			cr_assert(n > 0);
			at += (size_t)n;
		}
		cr_assert(at + v[4] <= b->len);
		t->types = grow(t->types, t->ntypes, &md->cap_types, sizeof *t->types);
		struct ex_type *x = &t->types[t->ntypes++];
		x->gen = b->gen;
		x->id = v[0];
		x->stack = v[1];
		x->size = v[2];
		snprintf(x->name, sizeof x->name, "%.*s", (int)v[4], (const char *)b->data + at);
		at += v[4];
	}
}

/* names: each frame's function and file from the strings of its generation. */
static void names(struct ex_trace *t)
{
	for (size_t i = 0; i < t->nstk; i++) {
		struct ex_stack *s = &t->stk[i];
		for (unsigned k = 0; k < s->n; k++) {
			unsigned long long fn = 0, file = 0;
			sscanf(s->f[k].file, "#%llu#%llu", &fn, &file);
			snprintf(s->f[k].func, sizeof s->f[k].func, "%s", ex_string(t, s->gen, fn));
			snprintf(s->f[k].file, sizeof s->f[k].file, "%s", ex_string(t, s->gen, file));
		}
	}
}

/* keep copies the trace to $GT_UNIT_TRACE_DIR/<suite>.<test>.trace, when
 * that is set, for the Go readers (test/integration/test_engine.py). */
static void keep(void)
{
	const char *dir = getenv("GT_UNIT_TRACE_DIR");
	if (!dir || !*dir)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.%s.trace", dir, criterion_current_test->category,
		 criterion_current_test->name);
	FILE *out = fopen(path, "wb");
	cr_assert(out, "%s", path);
	char buf[65536];
	ssize_t n;
	for (off_t at = 0; (n = pread(ex_fd(), buf, sizeof buf, at)) > 0; at += n)
		cr_assert_eq(fwrite(buf, 1, (size_t)n, out), (size_t)n);
	cr_assert_eq(fclose(out), 0);
}

/* read_fd reads the trace in fd from its start. */
static struct ex_trace *read_fd(int fd)
{
	struct ex_trace *t = calloc(1, sizeof *t);
	struct gt_reader *r = malloc(sizeof *r);
	cr_assert(t && r);
	struct model md = { .t = t };
	FILE *f = fdopen(fd, "rb");
	cr_assert(f);
	cr_assert_eq(fseek(f, 0, SEEK_SET), 0);
	cr_assert_eq(gt_reader_init(r, f), 0, "header: %s", r->err);
	t->version = r->version;
	struct gt_rbatch b;
	int k;
	uint64_t last = 0;
	while ((k = gt_reader_next(r, &b)) == 1) {
		if (b.kind != GT_BATCH_END_OF_GEN && b.gen != last) {
			if (last)
				cr_assert_eq(b.gen, last + 1, "generation %llu after %llu", (unsigned long long)b.gen,
					     (unsigned long long)last);
			else
				t->first_gen = b.gen;
			last = b.gen;
			t->gens++;
		}
		switch (b.kind) {
		case GT_BATCH_EVENTS: add_events(&md, &b); break;
		case GT_BATCH_STRINGS: add_strings(&md, &b); break;
		case GT_BATCH_STACKS: add_stacks(&md, &b); break;
		case GT_BATCH_SYNC: {
			struct gt_sync s;
			char err[GT_READER_ERR];
			cr_assert_eq(gt_sync_decode(&b, &s, err), 0, "sync: %s", err);
			t->syncs++;
			break;
		}
		case GT_BATCH_EXPERIMENTAL:
			cr_assert_eq(b.exp, GT_EXP_ALLOCFREE);
			add_types(&md, &b);
			break;
		case GT_BATCH_END_OF_GEN: t->ends++; break;
		default: break;
		}
	}
	snprintf(t->err, sizeof t->err, "%s", k == 0 ? "" : r->err);
	cr_assert_eq(k, 0, "reader: %s", r->err);
	t->last_gen = last;
	names(t);
	fclose(f);
	free(r);
	return t;
}

struct ex_trace *ex_read(void)
{
	keep();
	int fd = dup(ex_fd());
	cr_assert(fd >= 0);
	return read_fd(fd);
}

struct ex_trace *ex_read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "%s", path);
	return read_fd(fd);
}

void ex_free_trace(struct ex_trace *t)
{
	for (size_t i = 0; i < t->nstr; i++)
		free(t->str[i].s);
	free(t->str);
	free(t->stk);
	free(t->ev);
	free(t->types);
	free(t);
}

const char *ex_string(const struct ex_trace *t, uint64_t gen, uint64_t id)
{
	for (size_t i = 0; i < t->nstr; i++)
		if (t->str[i].gen == gen && t->str[i].id == id)
			return t->str[i].s;
	return "";
}

const struct ex_stack *ex_stack(const struct ex_trace *t, uint64_t gen, uint64_t id)
{
	for (size_t i = 0; i < t->nstk; i++)
		if (t->stk[i].gen == gen && t->stk[i].id == id)
			return &t->stk[i];
	return NULL;
}

const struct ex_type *ex_type(const struct ex_trace *t, uint64_t gen, uint64_t id)
{
	for (size_t i = 0; i < t->ntypes; i++)
		if (t->types[i].gen == gen && t->types[i].id == id)
			return &t->types[i];
	return NULL;
}

size_t ex_next(const struct ex_trace *t, size_t from, uint8_t type, uint64_t g)
{
	for (size_t i = from; i < t->nev; i++)
		if (t->ev[i].type == type && (!g || t->ev[i].g == g))
			return i;
	return t->nev;
}

size_t ex_count(const struct ex_trace *t, uint8_t type, uint64_t g)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nev; i++)
		n += t->ev[i].type == type && (!g || t->ev[i].g == g);
	return n;
}

const char *ex_leaf(const struct ex_trace *t, const struct ex_ev *e, int i)
{
	const struct ex_stack *s = ex_stack(t, e->gen, e->args[i]);
	return s && s->n ? s->f[0].func : "";
}
