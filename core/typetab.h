/* typetab.h — a generation's heap type table: (requested size, allocation
 * site stack id) → type id, written as AllocFree experimental batches
 * (docs/heap.md).
 *
 * Each thread appends the types it meets to a log of its own, one per
 * generation parity, without a lock (its cache of them is the caller's
 * business: core/heap.c); ids come from the table's counter in blocks, so
 * they are unique in the generation. Two threads that allocate the same
 * size at the same site get two ids for it: the table is a little longer,
 * no thread waits for another, and a reader maps each id to its (size,
 * site) all the same. The flusher reads the logs of a closed generation
 * (every writer has left its sections of it) and then resets them. */
#ifndef GT_TYPETAB_H
#define GT_TYPETAB_H

#include <stdatomic.h>
#include <stdint.h>

#include "lock.h"

struct gt_typelog_entry {
	uint64_t id, size, stack;
};

/* One thread's types of the generations of one parity. */
struct gt_typelog {
	struct gt_typelog *next;      /* the table's list, under its lock */
	uint64_t gen;                 /* generation of the entries; 0: dumped */
	uint32_t len, cap;
	int dead;                     /* its thread exited: freed once dumped */
	uint64_t next_id, end_id;     /* ids reserved for this log in gen */
	struct gt_typelog_entry *v;   /* mmap'd, cap entries */
};

struct gt_typetab {
	gt_lock_t lock;               /* the list of logs */
	struct gt_typelog *logs;
	_Atomic uint64_t next_id;     /* the next id to reserve; the first is 1 */
};

void gt_typetab_init(struct gt_typetab *t);

/* gt_typetab_add gives (size, stack) a new type id in generation gen,
 * appending it to *log (created and listed in t on first use). Call inside
 * a write section of gen; t is gt.types[gen & 1]. Returns 0 when memory
 * runs out (the type is then unknown). */
uint64_t gt_typetab_add(struct gt_typetab *t, struct gt_typelog **log, uint64_t gen, uint64_t size,
			uint64_t stack);

/* gt_typelog_release: the log's thread exits; the flusher frees the log
 * after it has written its entries. */
void gt_typelog_release(struct gt_typetab *t, struct gt_typelog *log);

/* gt_typetab_each calls fn for every type of the table's last closed
 * generation. pre: no thread writes in that generation any more. */
void gt_typetab_each(struct gt_typetab *t, void (*fn)(void *ctx, uint64_t id, uint64_t size, uint64_t stack),
		     void *ctx);

/* gt_typetab_reset empties the table after gt_typetab_each, freeing the
 * logs of exited threads. pre: no thread writes in its parity. */
void gt_typetab_reset(struct gt_typetab *t);

/* gt_typetab_forget drops every log without freeing (the child of fork,
 * whose other threads are gone mid-use). */
void gt_typetab_forget(struct gt_typetab *t);

#endif
