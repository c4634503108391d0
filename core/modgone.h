/* modgone.h — the modules a dlclose unloaded, kept until every generation
 * that may hold their PCs is written.
 *
 * Stacks are stored as raw PCs and named when their generation is written
 * (core/gen_stacks.c), which may be after the library is gone. So
 * gt_modules_dlclose (core/modlive.c) notes, before the real call, every
 * module the call may unload (path, load range, build ID), and after it
 * keeps those really unloaded with the point the dlclose happened at: the
 * generation and the stack table's next id then. A stack of an earlier
 * generation, or of that one with a smaller id, was captured while the
 * module was loaded, so its PCs in the module's range are named from that
 * module's file; later stacks are named from whatever is loaded there now
 * (a library dlopen'ed at the same address). While a dlclose is under way
 * its candidates name every stack in their ranges (they are either still
 * loaded or just unloaded: nothing else can be there yet). */
#ifndef GT_MODGONE_H
#define GT_MODGONE_H

#include <stdint.h>

#include "modules.h"
#include "symfile.h"

enum gt_gone_state {
	GT_GONE_PENDING, /* the dlclose is under way */
	GT_GONE_DONE,    /* unloaded by it */
	GT_GONE_KEPT,    /* still loaded after it: off the list, to free */
};

struct gt_modgone {
	uint32_t serial;            /* > 0, unique */
	int state;                  /* enum gt_gone_state (the list's lock) */
	uint64_t gen, boundary;     /* GT_GONE_DONE: where it was unloaded */
	int purged;                 /* the symbolizer's thread only */
	int seen;                   /* gt_modgone_end's thread only */
	uintptr_t lo, hi;           /* its range, as the symbolizer reports it */
	char *path;
	uint8_t build_id[GT_BUILD_ID_MAX];
	size_t build_id_len;
	struct gt_modgone *next;        /* the list, oldest first */
	struct gt_modgone *batch_next;  /* the same dlclose's candidates */
};

/* gt_modgone_begin notes the modules a dlclose of the module loaded at
 * handle_base may unload: every module but the permanent ones of cur
 * (loaded before the tracer; the handle's own module always counts).
 * Returns the batch for gt_modgone_end (NULL: none). Calls
 * dl_iterate_phdr and allocates: not for a signal handler. */
struct gt_modgone *gt_modgone_begin(const struct gt_modtab *cur, uintptr_t handle_base);

/* gt_modgone_end: after the real dlclose, keeps the batch's modules that
 * are gone (stamped with the generation and stack id now) and marks the
 * others to drop. */
void gt_modgone_end(struct gt_modgone *batch);

/* gt_modgone_after_fork: the child's lock is free (a thread of the parent
 * may have held it). */
void gt_modgone_after_fork(void);

/* gt_modgone_find returns the unloaded module that PC addr of stack id of
 * generation gen belongs to, or NULL (then it is named as loaded now).
 * The pointer stays valid until the next gt_modgone_trim (the same
 * thread: the one writing generations). One atomic load when the list is
 * empty. */
const struct gt_modgone *gt_modgone_find(uint64_t gen, uint64_t id, uintptr_t addr);

/* gt_modgone_each calls fn on every unloaded (GT_GONE_DONE) module. */
void gt_modgone_each(void (*fn)(struct gt_modgone *g, void *arg), void *arg);

/* gt_modgone_trim frees the modules no generation after written can
 * refer to (unloaded in a generation <= written, or left loaded), calling
 * forget on each first. */
void gt_modgone_trim(uint64_t written, void (*forget)(const struct gt_modgone *g, void *arg),
		     void *arg);

#endif
