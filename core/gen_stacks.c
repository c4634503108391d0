/* gen_stacks.c — a closed generation's stack table (gen_stacks.h). */
#include "gen_stacks.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "modgone.h"
#include "stack.h"
#include "symbols.h"
#include "tracer.h"

static struct gt_symbolizer *symbolizer;

/* open_symbolizer: the tracer's own functions (the wrappers, the leaf
 * of most stacks) read as the calls the program made (symbols.h). */
static void open_symbolizer(void)
{
	symbolizer = gt_sym_open();
	gt_sym_set_self(symbolizer, gt.self_lo, gt.self_hi);
}

/* bare: this switch must not allocate through malloc, which is the
 * program's own (Chromium's PartitionAlloc, a static jemalloc): the final
 * generation of a death by signal, whose interrupted thread may hold the
 * allocator's lock. PCs never looked up before keep a module+offset name. */
static int bare(int final)
{
	return final && atomic_load(&gt.dying) && gt.foreign_malloc;
}

/* unsymbolized names a PC without the symbolizer: "libfoo.so+0x1a2b" from
 * glibc's lock-free _dl_find_object, else its address. */
static uint64_t unsymbolized(struct gt_strtab *st, uintptr_t pc)
{
	char buf[320];
	struct dl_find_object fo;
	const struct link_map *lm = _dl_find_object((void *)pc, &fo) == 0 ? fo.dlfo_link_map : NULL;
	if (lm) {
		const char *name = lm->l_name && *lm->l_name ? lm->l_name : "program";
		const char *slash = strrchr(name, '/');
		snprintf(buf, sizeof buf, "%s+0x%lx", slash ? slash + 1 : name, (unsigned long)(pc - lm->l_addr));
	} else {
		snprintf(buf, sizeof buf, "0x%lx", (unsigned long)pc);
	}
	return gt_strtab_put(st, buf, strlen(buf));
}

/* The symbolizer's names are interned (one pointer per distinct string, for
 * as long as it lives), so the stack dump keeps the string id of each name
 * pointer it has seen this generation: a deep stack repeats the same few
 * hundred names thousands of times, and hashing each one again cost more
 * than the symbolization (node: 20 M instructions at exit). Emptied at
 * each dump. */
#define NAME_IDS 4096
static struct name_id {
	const char *name;
	uint64_t id;
} name_ids[NAME_IDS];

static uint64_t name_id(struct gt_strtab *st, const char *s)
{
	if (!s || !*s)
		return 0;
	struct name_id *e = &name_ids[((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ull >> 52];
	if (e->name != s)
		*e = (struct name_id){ s, gt_strtab_put(st, s, strlen(s)) };
	return e->id;
}

#define STD_ENTRY_SPAN 64

struct stack_dump {
	struct gt_gen_batch tb;
	struct gt_strtab *strings;
	uint64_t main_id, wake_id; /* the synthetic frames' names */
	uint64_t gen;
	int bare;
};

/* lookup names one PC of stack id: from the module that was loaded there
 * when the stack was captured, if a dlclose has unloaded it since
 * (core/modgone.h), else from what is loaded there now. */
static size_t lookup(const struct stack_dump *d, uint64_t id, uintptr_t pc, bool is_ret,
		     struct gt_sym_frame *sf, size_t max)
{
	const struct gt_modgone *g = gt_modgone_find(d->gen, id, is_ret && pc ? pc - 1 : pc);
	if (g) {
		struct gt_sym_gone sg = { g->serial, g->path, g->lo, g->hi, g->build_id,
					  g->build_id_len };
		return gt_sym_lookup_gone(symbolizer, &sg, pc, is_ret, sf, max, d->bare);
	}
	return d->bare ? gt_sym_lookup_cached(symbolizer, pc, is_ret, sf, max)
		       : gt_sym_lookup(symbolizer, pc, is_ret, sf, max);
}

/* unloaded: live names cached for an unloaded module's range are dropped
 * once (a module loaded there later is another). */
static void unloaded(struct gt_modgone *g, void *arg)
{
	(void)arg;
	if (!g->purged && symbolizer)
		gt_sym_unloaded(symbolizer, g->lo, g->hi);
	g->purged = 1;
}

static void forget(const struct gt_modgone *g, void *arg)
{
	(void)arg;
	if (g->state == GT_GONE_DONE && !g->purged && symbolizer)
		gt_sym_unloaded(symbolizer, g->lo, g->hi);
	if (symbolizer)
		gt_sym_forget(symbolizer, g->serial);
}

static void dump_stack(void *ctx, const struct gt_idmap_entry *e)
{
	struct stack_dump *d = ctx;
	const uintptr_t *pcs = (const uintptr_t *)e->key;
	size_t n = e->len / sizeof *pcs;
	struct gt_frame frames[GT_MAX_FRAMES];
	size_t nf = 0;
	/* A std::thread's outermost frame, in libstdc++'s thread start
	 * routine, is left off: its stacks end at its callable's _M_run
	 * (interpose/thread.c). The routine is a few dozen bytes long. */
	uintptr_t std = gt_stack_std_entry();
	if (std && n > 1 && pcs[n - 1] > std && pcs[n - 1] - std <= STD_ENTRY_SPAN)
		n--;
	for (size_t i = 0; i < n && nf < GT_MAX_FRAMES; i++) {
		if (pcs[i] >= GT_PC_SYNTHETIC) {
			frames[nf++] = (struct gt_frame){ pcs[i], pcs[i] == GT_PC_WAKE ? d->wake_id : d->main_id, 0, 0 };
			continue;
		}
		struct gt_sym_frame sf[16];
		size_t k = lookup(d, e->id, pcs[i], i > 0, sf, 16);
		if (k == 0 && d->bare) {
			frames[nf++] = (struct gt_frame){ pcs[i], unsymbolized(d->strings, pcs[i]), 0, 0 };
			continue;
		}
		size_t j = 0;
		/* pcs[0] is a function's own address (an interposed function, a
		 * start routine): its entry may carry inlined code's line info;
		 * the frame is the function itself, the outermost one. */
		if (i == 0 && k > 1)
			j = k - 1;
		for (; j < k && nf < GT_MAX_FRAMES; j++)
			frames[nf++] = (struct gt_frame){ sf[j].pc, name_id(d->strings, sf[j].func),
							  name_id(d->strings, sf[j].file), sf[j].line };
	}
	if (nf == 0)
		return;
	if (gt_gen_batch_room(&d->tb, GT_STACK_EVENT_MAX(nf)) != 0)
		return;
	gt_batch_stack(&d->tb.b, e->id, frames, nf);
}

void gt_gen_stacks_write(struct gt_gen_out *o, uint64_t old, uint64_t ts, int final)
{
	struct gt_strtab *strings = &gt.strings[old & 1];
	struct stack_dump d = {
		.tb = { .o = o, .section = GT_EV_STACKS, .gen = old, .m = GT_NO_THREAD, .ts = ts },
		.strings = strings,
		.gen = old,
		.bare = bare(final),
	};
	if (!symbolizer && !d.bare)
		open_symbolizer();
	/* The synthetic frames' names: among the strings every generation
	 * carries first (core/gen_strings.h), so this finds their ids. */
	d.main_id = gt_strtab_put(strings, GT_PC_MAIN_NAME, strlen(GT_PC_MAIN_NAME));
	d.wake_id = gt_strtab_put(strings, GT_PC_WAKE_NAME, strlen(GT_PC_WAKE_NAME));
	memset(name_ids, 0, sizeof name_ids); /* ids are this generation's */
	gt_modgone_each(unloaded, NULL);
	gt_idmap_each(&gt.stacks[old & 1].map, dump_stack, &d);
	gt_gen_batch_close(&d.tb);
	gt_modgone_trim(old, forget, NULL);
}

void gt_gen_stacks_warm(void)
{
	if (!symbolizer)
		open_symbolizer();
	uintptr_t entry = getauxval(AT_ENTRY);
	struct gt_sym_frame f[16];
	if (symbolizer && entry)
		gt_sym_lookup(symbolizer, entry, false, f, 16);
}

size_t gt_gen_stacks_name(uintptr_t pc, int is_ret, struct gt_sym_frame *out, size_t max)
{
	if (!symbolizer)
		open_symbolizer();
	if (!symbolizer || max == 0)
		return 0;
	return gt_sym_lookup(symbolizer, pc, is_ret, out, max);
}
