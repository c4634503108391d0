/* chunk.h — the memory events are written into: fixed-size chunks, each
 * holding one wire-format batch of one thread and one generation.
 *
 * A thread owns at most one open chunk per generation slot; a full chunk
 * goes onto that generation's full list; the flusher writes chunks out and
 * returns them to the pool. Chunks come from mmap, never from malloc. */
#ifndef GT_CHUNK_H
#define GT_CHUNK_H

#include <stdatomic.h>
#include <stdint.h>

#include "../encoder/writer.h"

#define GT_CHUNK_SIZE (16u * 1024u)

struct gt_wake_ins;

struct gt_chunk {
	struct gt_chunk *next;
	uint64_t gen;     /* the batch's generation */
	uint64_t serial;  /* writer thread's registration order */
	uint32_t index;   /* chunk number within that thread */
	uint32_t full;    /* queued as full: counts against the budget */
	struct gt_batch b;
	/* Woken waiters' GoUnblocks to write inside this batch, at the marks
	 * its thread left when it released them (core/wake_ins.h). On a cache
	 * line of its own: other threads push here, while the owner keeps
	 * writing b. */
	_Atomic(struct gt_wake_ins *) ins __attribute__((aligned(64)));
	uint8_t ins_pad[64 - sizeof(void *)];
	uint8_t data[];
};

/* Bytes of batch data a chunk holds. */
#define GT_CHUNK_DATA (GT_CHUNK_SIZE - sizeof(struct gt_chunk))

/* gt_chunk_get returns an empty chunk, or NULL when memory is exhausted. */
struct gt_chunk *gt_chunk_get(void);

/* gt_chunk_put returns a chunk to the pool. */
void gt_chunk_put(struct gt_chunk *c);

/* A generation with gt.gen_full_chunks full chunks (a quarter of the
 * GOTRACE_BUFFER budget, at most 16 MiB) is ended early, so the flusher
 * writes long before the budget is used up (core/pressure.h). */
#define GT_GEN_FULL_CHUNKS_MAX 1024
#define GT_GEN_FULL_CHUNKS_MIN 8

/* gt_chunk_returned counts the full chunks the flusher has given back
 * (its progress, for core/pressure.c). */
uint64_t gt_chunk_returned(void);

/* Nonzero while the queued full chunks are at the GOTRACE_BUFFER budget
 * (a futex word: woken when they are below 3/4 of it again). Threads wait
 * for room before they open a write section (core/pressure.h). */
extern _Atomic int gt_chunk_pressure;

/* gt_chunk_push_full queues a chunk for the flusher (any thread). The
 * chunk that brings its generation to gt.gen_full_chunks asks for the
 * generation to end now (core/request.h). */
void gt_chunk_push_full(struct gt_chunk *c);

/* gt_chunk_take_full takes every queued chunk of generation gen (flusher). */
struct gt_chunk *gt_chunk_take_full(uint64_t gen);

/* The pool's lock, for the fork handlers (core/fork.c): take, release, and
 * forget its holder in the child. */
void gt_chunk_pool_lock(void);
void gt_chunk_pool_unlock(void);
void gt_chunk_pool_reset_lock(void);

#endif
