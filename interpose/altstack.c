/* altstack.c — sigaltstack: the unwinder learns each thread's alternate
 * signal stack, so that a stack captured in a handler running there is
 * walked through the whole alternate stack (and on through the signal
 * frame into the interrupted stack), not just the page holding sp.
 *
 * The range is per thread (like the kernel's); a fork child keeps it (the
 * kernel keeps the child's alternate stack). Stored so that a handler
 * interrupting the update never sees a range mixing old and new ends: the
 * end goes to 0 first (no range), then the start, then the end. */
#include <signal.h>

#include "interpose.h"

GT_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	int r = GT_REAL(sigaltstack)(ss, old);
	if (r != 0 || !ss)
		return r;
	struct gt_stack_bounds *b = &gt_self.bounds;
	uintptr_t lo = (uintptr_t)ss->ss_sp, hi = lo + ss->ss_size;
	b->alt_hi = 0;
	atomic_signal_fence(memory_order_seq_cst);
	if ((ss->ss_flags & SS_DISABLE) || hi < lo || ss->ss_size < 64)
		return r;
	b->alt_lo = lo;
	atomic_signal_fence(memory_order_seq_cst);
	b->alt_hi = hi;
	return r;
}
