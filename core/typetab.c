/* typetab.c — per-generation heap type tables made of per-thread logs
 * (typetab.h). */
#include "typetab.h"

#include <string.h>

#include "region.h"

#define LOG_FIRST 1024   /* entries of a new log */
#define ID_BLOCK 64      /* ids a log reserves at a time */

void gt_typetab_init(struct gt_typetab *t)
{
	gt_lock_reset(&t->lock);
	t->logs = NULL;
	atomic_store_explicit(&t->next_id, 1, memory_order_relaxed);
}

static int grow(struct gt_typelog *l)
{
	uint32_t cap = l->cap ? l->cap * 2 : LOG_FIRST;
	if (cap < l->cap)
		return -1;
	struct gt_typelog_entry *v = gt_map((size_t)cap * sizeof *v);
	if (!v)
		return -1;
	if (l->v) {
		memcpy(v, l->v, (size_t)l->len * sizeof *v);
		gt_unmap(l->v, (size_t)l->cap * sizeof *l->v);
	}
	l->v = v;
	l->cap = cap;
	return 0;
}

uint64_t gt_typetab_add(struct gt_typetab *t, struct gt_typelog **log, uint64_t gen, uint64_t size,
			uint64_t stack)
{
	struct gt_typelog *l = *log;
	if (__builtin_expect(!l, 0)) {
		l = gt_map(sizeof *l); /* zeroed */
		if (!l)
			return 0;
		gt_lock(&t->lock);
		l->next = t->logs;
		t->logs = l;
		gt_unlock(&t->lock);
		*log = l;
	}
	if (l->gen != gen) {
		/* The first type of this thread in gen: whatever the log held
		 * (a generation two back) has been written and reset. */
		l->gen = gen;
		l->len = 0;
		l->next_id = l->end_id = 0;
	}
	if (l->len == l->cap && grow(l) != 0)
		return 0;
	if (l->next_id == l->end_id) {
		l->next_id = atomic_fetch_add_explicit(&t->next_id, ID_BLOCK, memory_order_relaxed);
		l->end_id = l->next_id + ID_BLOCK;
	}
	uint64_t id = l->next_id++;
	l->v[l->len++] = (struct gt_typelog_entry){ id, size, stack };
	return id;
}

void gt_typelog_release(struct gt_typetab *t, struct gt_typelog *log)
{
	if (!log)
		return;
	gt_lock(&t->lock);
	log->dead = 1;
	gt_unlock(&t->lock);
}

void gt_typetab_each(struct gt_typetab *t, void (*fn)(void *ctx, uint64_t id, uint64_t size, uint64_t stack),
		     void *ctx)
{
	gt_lock(&t->lock);
	for (struct gt_typelog *l = t->logs; l; l = l->next) {
		if (l->gen == 0)
			continue;
		for (uint32_t i = 0; i < l->len; i++)
			fn(ctx, l->v[i].id, l->v[i].size, l->v[i].stack);
	}
	gt_unlock(&t->lock);
}

void gt_typetab_reset(struct gt_typetab *t)
{
	gt_lock(&t->lock);
	for (struct gt_typelog **pl = &t->logs; *pl;) {
		struct gt_typelog *l = *pl;
		if (l->dead) {
			*pl = l->next;
			if (l->v)
				gt_unmap(l->v, (size_t)l->cap * sizeof *l->v);
			gt_unmap(l, sizeof *l);
			continue;
		}
		l->gen = 0;
		l->len = 0;
		pl = &l->next;
	}
	atomic_store_explicit(&t->next_id, 1, memory_order_relaxed);
	gt_unlock(&t->lock);
}

void gt_typetab_forget(struct gt_typetab *t)
{
	gt_lock_reset(&t->lock);
	t->logs = NULL;
	atomic_store_explicit(&t->next_id, 1, memory_order_relaxed);
}
