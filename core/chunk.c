/* chunk.c — the chunk pool and the per-generation full lists. */
#include "chunk.h"

#include "lock.h"
#include "region.h"
#include "request.h"
#include "sys.h"
#include "tracer.h"

#define SLAB_CHUNKS 32

static gt_lock_t pool_lock = GT_LOCK_INIT;
static struct gt_chunk *pool;
static _Atomic unsigned full_count[2]; /* full chunks queued per gen & 1 */
static uint64_t queued;                 /* full chunks not yet returned (pool_lock) */
static _Atomic uint64_t returned;       /* full chunks ever returned: progress */

_Atomic int gt_chunk_pressure;

struct gt_chunk *gt_chunk_get(void)
{
	gt_lock(&pool_lock);
	if (!pool) {
		char *slab = gt_map((size_t)GT_CHUNK_SIZE * SLAB_CHUNKS);
		if (!slab) {
			gt_unlock(&pool_lock);
			return NULL;
		}
		for (int i = SLAB_CHUNKS - 1; i >= 0; i--) {
			struct gt_chunk *c = (struct gt_chunk *)(slab + (size_t)i * GT_CHUNK_SIZE);
			c->next = pool;
			pool = c;
		}
	}
	struct gt_chunk *c = pool;
	pool = c->next;
	gt_unlock(&pool_lock);
	c->next = NULL;
	atomic_store_explicit(&c->ins, NULL, memory_order_relaxed);
	return c;
}

void gt_chunk_put(struct gt_chunk *c)
{
	int wake = 0;
	gt_lock(&pool_lock);
	c->next = pool;
	pool = c;
	if (c->full) {
		c->full = 0;
		queued--;
		atomic_fetch_add_explicit(&returned, 1, memory_order_relaxed);
		/* Room again below 3/4 of the budget: let the waiters go. */
		if (atomic_load_explicit(&gt_chunk_pressure, memory_order_relaxed) &&
		    queued < gt.buffer_chunks - gt.buffer_chunks / 4) {
			atomic_store_explicit(&gt_chunk_pressure, 0, memory_order_release);
			wake = 1;
		}
	}
	gt_unlock(&pool_lock);
	if (wake)
		gt_futex_wake(&gt_chunk_pressure, INT32_MAX);
}

uint64_t gt_chunk_returned(void)
{
	return atomic_load_explicit(&returned, memory_order_relaxed);
}

void gt_chunk_push_full(struct gt_chunk *c)
{
	gt_lock(&pool_lock);
	c->full = 1;
	if (++queued >= gt.buffer_chunks)
		atomic_store_explicit(&gt_chunk_pressure, 1, memory_order_relaxed);
	gt_unlock(&pool_lock);
	_Atomic(struct gt_chunk *) *head = &gt.full[c->gen & 1];
	struct gt_chunk *old = atomic_load_explicit(head, memory_order_relaxed);
	do {
		c->next = old;
	} while (!atomic_compare_exchange_weak_explicit(head, &old, c, memory_order_release, memory_order_relaxed));
	if (atomic_fetch_add_explicit(&full_count[c->gen & 1], 1, memory_order_relaxed) + 1 == gt.gen_full_chunks)
		gt_request_early(); /* the flusher, or the next event, ends it */
}

struct gt_chunk *gt_chunk_take_full(uint64_t gen)
{
	atomic_store_explicit(&full_count[gen & 1], 0, memory_order_relaxed);
	return atomic_exchange_explicit(&gt.full[gen & 1], NULL, memory_order_acquire);
}

void gt_chunk_pool_lock(void)
{
	gt_lock(&pool_lock);
}

void gt_chunk_pool_unlock(void)
{
	gt_unlock(&pool_lock);
}

void gt_chunk_pool_reset_lock(void)
{
	gt_lock_reset(&pool_lock);
	queued = 0; /* the child never returns its parent's chunks */
	atomic_store(&gt_chunk_pressure, 0);
	atomic_store(&full_count[0], 0);
	atomic_store(&full_count[1], 0);
}
