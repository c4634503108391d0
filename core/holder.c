/* holder.c — the holder carrier of a contended lock (holder.h). */
#include "holder.h"

#include <errno.h>
#include <string.h>

#include "annotate.h"
#include "lock.h"

/* What the waiter needs of the holder, copied under reg_lock: the thread
 * stays registered (its TLS alive) only while the lock is held. */
struct holder {
	uint64_t g;
	uintptr_t start_pc;
	char label[16];
};

/* find looks tid up among the registered threads. reg_lock is taken by no
 * thread inside a write section (tracer.h), and the caller is in none. The
 * caller's `inside` is raised while the lock is held: a signal handler
 * that interrupts it and waits for a contended mutex passes straight
 * through (gt_enter), instead of taking reg_lock again on this thread. */
static int find(struct gt_thread *self, int tid, struct holder *h)
{
	int found = 0;
	self->inside++;
	gt_lock(&gt.reg_lock);
	for (struct gt_thread *t = gt.threads; t; t = t->next) {
		if (t->m != (uint64_t)tid)
			continue;
		h->g = t->g;
		h->start_pc = t->start_pc;
		/* labels are written under reg_lock (core/thread.c): stable here */
		memcpy(h->label, t->label, sizeof h->label);
		h->label[sizeof h->label - 1] = 0;
		found = 1;
		break;
	}
	gt_unlock(&gt.reg_lock);
	self->inside--;
	return found;
}

/* The message is built without stdio (no locale, no allocation, nothing a
 * signal handler's wait could find half done). */
struct text {
	char *p;
	size_t n, cap;
};

static void put(struct text *x, const char *s, size_t n)
{
	for (size_t i = 0; i < n && x->n + 1 < x->cap; i++)
		x->p[x->n++] = s[i];
	x->p[x->n] = 0;
}

static void put_num(struct text *x, uint64_t v, unsigned base)
{
	char d[24];
	int k = 0;
	do
		d[k++] = "0123456789abcdef"[v % base];
	while ((v /= base) != 0);
	while (k > 0)
		put(x, &d[--k], 1);
}

void gt_holder_note(struct gt_thread *t, int tid, uintptr_t site)
{
	if (tid <= 0)
		return;
	int saved = errno;
	struct holder h;
	if (find(t, tid, &h)) {
		char buf[96];
		struct text x = { buf, 0, sizeof buf };
		put(&x, "held by G", 9);
		put_num(&x, h.g, 10);
		put(&x, " ", 1);
		/* The name: the thread's label, else "main" for goroutine 1,
		 * else its start function's address (symbols are not read on a
		 * program's thread; the tools name it from the trace). */
		if (h.label[0]) {
			put(&x, h.label, strlen(h.label));
		} else if (h.g == 1) {
			put(&x, "main", 4);
		} else {
			put(&x, "0x", 2);
			put_num(&x, h.start_pc, 16);
		}
		put(&x, " (tid ", 6);
		put_num(&x, (uint64_t)tid, 10);
		put(&x, ")", 1);
		gt_user_log(t, 0, GT_HOLDER_CATEGORY, buf, site);
	}
	errno = saved;
}
