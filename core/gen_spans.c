/* gen_spans.c — each generation's snapshot of mapped memory (gen_spans.h). */
#include "gen_spans.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>

#include "clock.h"
#include "lock.h"
#include "ownmaps.h"
#include "region.h"
#include "snapout.h"
#include "request.h"
#include "spantab.h"
#include "heapsite.h"
#include "sys.h"
#include "thread.h"
#include "tracer.h"

#define PAGE ((uintptr_t)GT_SPAN_PAGE)
#define SNAP_EVENT_MAX GT_EVENT_MAX(3)

/* The snapshot's batches (core/snapout.h), taken at a generation's start
 * and written with it. */
static struct gt_snapout batches;

static struct gt_region scratch; /* the map being read: emptied after each take */

/* A line of the process's map that is anonymous memory with some access. */
enum { R_ANON, R_HEAP, R_STACK };
struct range {
	uintptr_t lo, hi;
	int kind;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

static int ranges_add(struct ranges *r, uintptr_t lo, uintptr_t hi, int kind)
{
	if (r->n && r->v[r->n - 1].hi == lo && r->v[r->n - 1].kind == kind && kind == R_ANON) {
		r->v[r->n - 1].hi = hi; /* two lines of one run (different access) */
		return 0;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		struct range *v = gt_region_alloc(&scratch, cap * sizeof *v);
		if (!v)
			return -1;
		if (r->n)
			memcpy(v, r->v, r->n * sizeof *v);
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = (struct range){ lo, hi, kind };
	return 0;
}

static const char *hex(const char *p, const char *end, uintptr_t *v)
{
	uintptr_t x = 0;
	for (; p < end; p++) {
		unsigned c = (unsigned char)*p, d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			break;
		x = x << 4 | d;
	}
	*v = x;
	return p;
}

/* line: "lo-hi perms offset dev inode   path". */
static void parse_line(struct ranges *r, const char *p, const char *end)
{
	uintptr_t lo, hi, off, inode = 0;
	p = hex(p, end, &lo);
	if (p >= end || *p != '-')
		return;
	p = hex(p + 1, end, &hi);
	if (end - p < 6 || p[0] != ' ')
		return;
	const char *perms = p + 1;
	if (perms[0] == '-' && perms[1] == '-' && perms[2] == '-')
		return; /* no access: a reservation or a guard, no memory */
	p = hex(perms + 5, end, &off);
	p++; /* the device "00:00" */
	while (p < end && *p != ' ')
		p++;
	while (p < end && *p == ' ')
		p++;
	while (p < end && *p >= '0' && *p <= '9')
		inode = inode * 10 + (uintptr_t)(*p++ - '0');
	if (inode)
		return; /* a file */
	while (p < end && *p == ' ')
		p++;
	size_t n = (size_t)(end - p);
	int kind;
	if (n == 0 || (n > 6 && memcmp(p, "[anon:", 6) == 0))
		kind = R_ANON;
	else if (n == 6 && memcmp(p, "[heap]", 6) == 0)
		kind = R_HEAP;
	else if (n == 7 && memcmp(p, "[stack]", 7) == 0)
		kind = R_STACK;
	else
		return; /* [vdso], [vvar], a deleted file ... */
	if (hi > lo)
		ranges_add(r, lo, hi, kind);
}

/* read_map reads /proc/self/maps into r. The descriptor is the flusher's
 * own (its private table), or one opened only while the process has a
 * single thread and with every signal blocked: no code of the program can
 * see it or close it. -1 when not read. */
static int read_map(struct ranges *r)
{
	int own = gt_on_flusher();
	if (!own) {
		gt_lock(&gt.reg_lock);
		unsigned n = gt.nthreads;
		gt_unlock(&gt.reg_lock);
		if (n > 1)
			return -1;
	}
	sigset_t all, old;
	memset(&all, 0xff, sizeof all);
	gt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, &all, &old, 8);
	int fd = (int)gt_sys_call(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int rc = -1;
	char *buf = fd >= 0 ? gt_region_alloc(&scratch, 1 << 16) : NULL;
	if (buf) {
		size_t have = 0;
		for (;;) {
			long got = gt_sys_call(SYS_read, fd, buf + have, (1 << 16) - have);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				rc = got == 0 ? 0 : -1;
				break;
			}
			have += (size_t)got;
			char *s = buf, *e;
			while ((e = memchr(s, '\n', have - (size_t)(s - buf))) != NULL) {
				parse_line(r, s, e);
				s = e + 1;
			}
			have -= (size_t)(s - buf);
			memmove(buf, s, have);
			if (have == 1 << 16)
				have = 0; /* a line longer than the buffer: a path, skipped */
		}
	}
	if (fd >= 0)
		gt_sys_call(SYS_close, fd);
	gt_sys_call(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
	return rc;
}

/* without_own takes the tracer's own mappings (core/ownmaps.h) out of r:
 * the rest, in order, into a new list. */
static struct ranges without_own(const struct ranges *r)
{
	uintptr_t *own = gt_region_alloc(&scratch, 2 * (GT_OWNMAPS + 1) * sizeof *own);
	if (!own)
		return *r;
	size_t n = gt_ownmaps_copy(own, GT_OWNMAPS);
	/* The library's own .bss (anonymous, after its file's pages). */
	uintptr_t slo = gt.self_lo, shi = (gt.self_hi + PAGE - 1) & ~(PAGE - 1);
	if (shi > slo) {
		size_t k = n++;
		while (k > 0 && own[2 * (k - 1)] > slo) {
			own[2 * k] = own[2 * (k - 1)];
			own[2 * k + 1] = own[2 * (k - 1) + 1];
			k--;
		}
		own[2 * k] = slo;
		own[2 * k + 1] = shi;
	}
	struct ranges out = { 0 };
	size_t k = 0;
	for (size_t i = 0; i < r->n; i++) {
		uintptr_t lo = r->v[i].lo, hi = r->v[i].hi;
		while (k < n && own[2 * k + 1] <= lo)
			k++;
		for (size_t j = k; j < n && own[2 * j] < hi && lo < hi; j++) {
			if (own[2 * j] > lo)
				ranges_add(&out, lo, own[2 * j], r->v[i].kind);
			if (own[2 * j + 1] > lo)
				lo = own[2 * j + 1];
		}
		if (lo < hi)
			ranges_add(&out, lo, hi, r->v[i].kind);
	}
	return out;
}

/* --- the batches --------------------------------------------------------- */

static void w_span(struct gt_snapout *w, uintptr_t lo, uintptr_t hi, unsigned cls, uint64_t site)
{
	if (hi < lo + PAGE || gt_snapout_room(w, SNAP_EVENT_MAX) != 0)
		return;
	uint64_t args[3] = { lo / PAGE, (hi - lo) / PAGE, GT_SPAN_KINDCLASS(site <= UINT32_MAX ? site : 0, cls) };
	gt_batch_event(&w->b, GT_EV_SPAN, w->ts, 3, args);
}

static void w_stack(struct gt_snapout *w, uintptr_t base, uintptr_t len)
{
	if (!len || gt_snapout_room(w, SNAP_EVENT_MAX) != 0)
		return;
	uint64_t args[2] = { base / PAGE, gt_span_stack_order(len) };
	gt_batch_event(&w->b, GT_EV_GOROUTINE_STACK, w->ts, 2, args);
}

/* The merge of the map with the table (under the table's lock): each
 * known span inside a range of the map is written whole with its class,
 * once; the rest of the range as class GT_SPAN_UNSEEN (GT_SPAN_BRK for
 * [heap], GT_SPAN_STACK for [stack]); a known span no range meets is gone
 * (unmapped by a call the wrappers did not see, or made inaccessible) and
 * leaves the table. */
struct merge {
	struct gt_snapout *w;
	const struct ranges *r;
	size_t i;          /* the range being covered */
	uintptr_t cur;     /* its part written so far ends here */
};

static unsigned range_class(int kind)
{
	return kind == R_HEAP ? GT_SPAN_BRK : kind == R_STACK ? GT_SPAN_STACK : GT_SPAN_UNSEEN;
}

/* flush_until writes the unknown parts of the ranges below a. */
static void flush_until(struct merge *m, uintptr_t a)
{
	while (m->i < m->r->n && m->r->v[m->i].hi <= a) {
		const struct range *g = &m->r->v[m->i];
		if (m->cur < g->lo)
			m->cur = g->lo;
		w_span(m->w, m->cur, g->hi, range_class(g->kind), 0);
		m->i++;
	}
	if (m->i < m->r->n) {
		const struct range *g = &m->r->v[m->i];
		if (m->cur < g->lo)
			m->cur = g->lo;
		if (a > m->cur) {
			w_span(m->w, m->cur, a, range_class(g->kind), 0);
			m->cur = a;
		}
	}
}

static int merge_span(void *ctx, struct gt_span *s)
{
	struct merge *m = ctx;
	uintptr_t end = s->base + s->len;
	/* Does some range meet it? The ranges are sorted: look from i on. */
	size_t k = m->i;
	while (k < m->r->n && m->r->v[k].hi <= s->base)
		k++;
	if (k == m->r->n || m->r->v[k].lo >= end)
		return 1; /* gone */
	flush_until(m, s->base > m->cur ? s->base : m->cur);
	w_span(m->w, s->base, end, s->cls, gt_heapsite_stack_id(s->site_ref, m->w->gen));
	if (m->cur < end)
		m->cur = end;
	return 0;
}

/* A thread's stack for the GoroutineStack events. */
struct tstack {
	uintptr_t base, len, hi;
};

void gt_gen_spans_take(uint64_t gen, uint64_t ts)
{
	gt_snapout_begin(&batches, gen, ts);
	if (!gt.malloc_events)
		return;
	int saved = errno;
	struct ranges r = { 0 };
	if (read_map(&r) != 0)
		goto out;
	/* The brk heap's start, for the spans of sbrk/brk (core/spans.h). */
	for (size_t k = 0; k < r.n; k++)
		if (r.v[k].kind == R_HEAP)
			gt_span_brk_start(r.v[k].lo);
	if (gen == 1) {
		long b = gt_sys_call(SYS_brk, 0);
		if (b > 0)
			gt_span_brk_start((uintptr_t)b);
	}
	r = without_own(&r);
	/* The threads' stacks: known ones, and main's [stack] (its bounds lie
	 * in it). */
	struct tstack *ts_v = NULL;
	size_t nts = 0;
	gt_lock(&gt.reg_lock);
	unsigned cap = gt.nthreads;
	ts_v = cap ? gt_region_alloc(&scratch, cap * sizeof *ts_v) : NULL;
	for (struct gt_thread *t = gt.threads; t && ts_v && nts < cap; t = t->next)
		ts_v[nts++] = (struct tstack){ t->side ? t->side->stack_base : 0, t->side ? t->side->stack_len : 0,
						t->bounds.hi };
	gt_unlock(&gt.reg_lock);

	struct merge m = { .w = &batches, .r = &r };
	gt_spans_lock();
	gt_spans_each(merge_span, &m);
	gt_spans_unlock();
	flush_until(&m, UINTPTR_MAX);
	for (size_t i = 0; i < nts; i++) {
		if (ts_v[i].len) {
			w_stack(&batches, ts_v[i].base, ts_v[i].len);
			continue;
		}
		for (size_t k = 0; k < r.n; k++)
			if (r.v[k].kind == R_STACK && ts_v[i].hi > r.v[k].lo && ts_v[i].hi <= r.v[k].hi)
				w_stack(&batches, r.v[k].lo, r.v[k].hi - r.v[k].lo);
	}
	gt_snapout_end(&batches);
out:
	gt_region_reset(&scratch);
	errno = saved;
}

void gt_gen_spans_write(struct gt_gen_out *o, uint64_t gen)
{
	gt_snapout_write(&batches, o, gen);
}

void gt_gen_spans_done(void)
{
	gt_snapout_done(&batches);
}
