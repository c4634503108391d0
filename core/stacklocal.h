/* stacklocal.h — the stack module's per-thread state (core/stack.c), kept
 * in the thread's side area (struct gt_side, core/thread.h): remembered
 * stacks and the stack-id cache. Apart from stack.h, whose inline fast
 * paths need struct gt_thread, so that thread.h can hold them. */
#ifndef GT_STACKLOCAL_H
#define GT_STACKLOCAL_H

#include <stdint.h>

/* (hash, generation) -> stack id (core/stack.h, gt_stack_id). */
#define GT_STACK_CACHE 64

struct gt_stack_cache_entry {
	uint64_t hash;
	uint64_t gen;
	uint64_t id;
};

/* A remembered stack: the frames above one call site, with the stack slot
 * each return address was read from, and its id in the stack table of
 * generation id_gen (with the interposed function id_site as the leaf). */
#define GT_MEMO_SETS 16
#define GT_MEMO_WAYS 4 /* stacks remembered per set */
#define GT_MEMO_FRAMES 32

/* Requested sizes below this have their heap type cached in the remembered
 * stack (sizes). */
#define GT_SIZES 4096

struct gt_stack_memo {
	uintptr_t ra0, cfa0; /* the interposed function's caller and its SP */
	uint32_t n;
	uint32_t stamp;      /* last use, for replacement within a set */
	uint64_t id_gen, id;
	uintptr_t id_site;
	/* Heap types of small requested sizes allocated from this stack
	 * (core/heap.c): sizes[size] = binding << 32 | type id, where binding
	 * numbers each (generation, stack id) the entry has stood for
	 * (bumped whenever id_gen or id changes): mapped on first use, reused
	 * by whatever the entry remembers next. */
	uint64_t *sizes;
	uint32_t binding;
	uintptr_t ip[GT_MEMO_FRAMES];
	uintptr_t slot[GT_MEMO_FRAMES];
};

#endif
