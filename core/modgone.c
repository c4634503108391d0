/* modgone.c — the modules a dlclose unloaded (modgone.h). */
#include "modgone.h"

#include <link.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lock.h"
#include "mem.h"
#include "symbols.h"
#include "tracer.h"

static gt_lock_t gone_lock;
static _Atomic(struct gt_modgone *) head;  /* oldest first (gone_lock) */
static uint32_t next_serial;                /* gone_lock */
/* Candidates a dlclose left loaded: off the list at once (so a program
 * that dlcloses often does not make every lookup walk them), freed by the
 * next trim (the symbolizer's thread may still use one it found). */
static struct gt_modgone *kept;             /* gone_lock */

struct begin_ctx {
	const struct gt_modtab *cur;
	uintptr_t handle_base;
	struct gt_modgone *batch;
};

static int permanent_base(const struct gt_modtab *cur, uintptr_t base)
{
	for (uint32_t i = 0; cur && i < cur->nmods; i++)
		if (cur->mods[i].base == base && cur->mods[i].permanent)
			return 1;
	return 0;
}

static int note_candidate(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct begin_ctx *c = arg;
	if (!info->dlpi_name || !info->dlpi_name[0] || info->dlpi_name[0] != '/')
		return 0; /* the program, the vDSO: never unloaded */
	if (info->dlpi_addr != c->handle_base && permanent_base(c->cur, info->dlpi_addr))
		return 0;
	struct gt_modgone *g = gt_mem_calloc(1, sizeof *g);
	if (!g)
		return 0;
	if (!gt_sym_module_range(info, &g->lo, &g->hi)) {
		gt_mem_free(g);
		return 0;
	}
	char *path = gt_mem_alloc(PATH_MAX);
	if (path && !realpath(info->dlpi_name, path)) {
		gt_mem_free(path);
		path = gt_mem_strdup(info->dlpi_name);
	}
	if (!path) {
		gt_mem_free(g);
		return 0;
	}
	g->path = path;
	g->build_id_len = gt_build_id_in_memory(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr,
						g->build_id, sizeof g->build_id);
	g->state = GT_GONE_PENDING;
	g->batch_next = c->batch;
	c->batch = g;
	return 0;
}

struct gt_modgone *gt_modgone_begin(const struct gt_modtab *cur, uintptr_t handle_base)
{
	struct begin_ctx c = { cur, handle_base, NULL };
	dl_iterate_phdr(note_candidate, &c);
	if (!c.batch)
		return NULL;
	gt_lock(&gone_lock);
	struct gt_modgone *last = atomic_load_explicit(&head, memory_order_relaxed);
	while (last && last->next)
		last = last->next;
	for (struct gt_modgone *g = c.batch; g; g = g->batch_next) {
		g->serial = ++next_serial ? next_serial : ++next_serial;
		if (last)
			last->next = g;
		else
			atomic_store_explicit(&head, g, memory_order_release);
		last = g;
	}
	gt_unlock(&gone_lock);
	return c.batch;
}

struct still_ctx {
	struct gt_modgone *batch;
};

/* mark_loaded: a candidate still loaded (same range and file) is kept. */
static int mark_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct still_ctx *c = arg;
	uintptr_t lo, hi;
	if (!info->dlpi_name || info->dlpi_name[0] != '/' || !gt_sym_module_range(info, &lo, &hi))
		return 0;
	for (struct gt_modgone *g = c->batch; g; g = g->batch_next)
		if (g->lo == lo && g->hi == hi && g->state == GT_GONE_PENDING)
			g->seen = 1;
	return 0;
}

/* stamp: the current generation and its stack table's next id, read
 * together (a switch in between: again, with the new generation). */
static void stamp(uint64_t *gen, uint64_t *boundary)
{
	for (;;) {
		uint64_t g = atomic_load(&gt.gen);
		struct gt_stacktab *t = &gt.stacks[g & 1];
		gt_lock(&t->lock);
		uint64_t b = t->map.next_id;
		gt_unlock(&t->lock);
		if (atomic_load(&gt.gen) == g) {
			*gen = g;
			*boundary = b;
			return;
		}
	}
}

void gt_modgone_end(struct gt_modgone *batch)
{
	if (!batch)
		return;
	struct still_ctx c = { batch };
	/* The marks are private to this thread until published below. */
	dl_iterate_phdr(mark_loaded, &c);
	uint64_t gen, boundary;
	stamp(&gen, &boundary);
	gt_lock(&gone_lock);
	for (struct gt_modgone *g = batch; g; g = g->batch_next) {
		if (g->seen) {
			g->state = GT_GONE_KEPT;
		} else {
			g->gen = gen;
			g->boundary = boundary;
			g->state = GT_GONE_DONE;
		}
	}
	struct gt_modgone *prev = NULL;
	for (struct gt_modgone *g = atomic_load_explicit(&head, memory_order_relaxed), *next; g; g = next) {
		next = g->next;
		if (g->state != GT_GONE_KEPT) {
			prev = g;
			continue;
		}
		if (prev)
			prev->next = next;
		else
			atomic_store_explicit(&head, next, memory_order_release);
		g->next = kept;
		kept = g;
	}
	gt_unlock(&gone_lock);
}

void gt_modgone_after_fork(void)
{
	gt_lock_reset(&gone_lock);
}

const struct gt_modgone *gt_modgone_find(uint64_t gen, uint64_t id, uintptr_t addr)
{
	if (!atomic_load_explicit(&head, memory_order_acquire))
		return NULL;
	const struct gt_modgone *found = NULL;
	gt_lock(&gone_lock);
	for (const struct gt_modgone *g = atomic_load_explicit(&head, memory_order_relaxed); g;
	     g = g->next) {
		if (addr < g->lo || addr >= g->hi || g->state == GT_GONE_KEPT)
			continue;
		if (g->state == GT_GONE_DONE && !(gen < g->gen || (gen == g->gen && id < g->boundary)))
			continue;
		found = g; /* pending: still its module, or just unloaded */
		break;
	}
	gt_unlock(&gone_lock);
	return found;
}

void gt_modgone_each(void (*fn)(struct gt_modgone *g, void *arg), void *arg)
{
	if (!atomic_load_explicit(&head, memory_order_acquire))
		return;
	gt_lock(&gone_lock);
	for (struct gt_modgone *g = atomic_load_explicit(&head, memory_order_relaxed); g; g = g->next)
		if (g->state == GT_GONE_DONE)
			fn(g, arg);
	gt_unlock(&gone_lock);
}

void gt_modgone_trim(uint64_t written, void (*forget)(const struct gt_modgone *g, void *arg),
		     void *arg)
{
	gt_lock(&gone_lock);
	struct gt_modgone *dead = kept;
	kept = NULL;
	struct gt_modgone *g = atomic_load_explicit(&head, memory_order_relaxed);
	struct gt_modgone *prev = NULL;
	while (g) {
		struct gt_modgone *next = g->next;
		if (g->state == GT_GONE_KEPT || (g->state == GT_GONE_DONE && g->gen <= written)) {
			if (prev)
				prev->next = next;
			else
				atomic_store_explicit(&head, next, memory_order_release);
			g->next = dead;
			dead = g;
		} else {
			prev = g;
		}
		g = next;
	}
	gt_unlock(&gone_lock);
	while (dead) {
		struct gt_modgone *n = dead->next;
		if (forget)
			forget(dead, arg);
		gt_mem_free(dead->path);
		gt_mem_free(dead);
		dead = n;
	}
}
