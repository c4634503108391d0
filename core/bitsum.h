/* bitsum.h — one bit per counter, set exactly while the counter is
 * non-zero, so that a hot path asks "any?" with one load from a table small
 * enough to stay in the L1 cache (the sampled-object filter read by every
 * free, core/heapset.h; the waiter counts read by every unlock,
 * core/wake.h). The counters stay where they are; their owners call these
 * when a count leaves or reaches zero.
 *
 * A bit is cleared only after its counter reached zero, and set again if
 * the counter is non-zero by the time the clear is done: with seq_cst
 * operations a counter that another thread raised meanwhile never stays
 * without its bit. */
#ifndef GT_BITSUM_H
#define GT_BITSUM_H

#include <stdatomic.h>
#include <stdint.h>

static inline int gt_bitsum_test(_Atomic uint64_t *bits, uint32_t h)
{
	return (atomic_load_explicit(&bits[h >> 6], memory_order_relaxed) >> (h & 63)) & 1;
}

/* gt_bitsum_raised: counter h left zero. */
static inline void gt_bitsum_raised(_Atomic uint64_t *bits, uint32_t h)
{
	atomic_fetch_or(&bits[h >> 6], UINT64_C(1) << (h & 63));
}

/* gt_bitsum_clear: counter h reached zero. The caller then reads the
 * counter again and calls gt_bitsum_raised if it is no longer zero. */
static inline void gt_bitsum_clear(_Atomic uint64_t *bits, uint32_t h)
{
	atomic_fetch_and(&bits[h >> 6], ~(UINT64_C(1) << (h & 63)));
}

#endif
