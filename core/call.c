/* call.c — the generation switch's side of a call pending in the kernel:
 * its beginning written into the closing generation (call.h). */
#include "call.h"

#include <stdatomic.h>

#include "../encoder/writer.h"
#include "hash.h"
#include "stacktab.h"
#include "strtab.h"
#include "thread.h"
#include "tracer.h"

int gt_call_convert(struct gt_thread *t, uint64_t old, uint64_t ts, int wrote_status, struct gt_batch *b)
{
	uint64_t v = atomic_load_explicit(&t->call_t0, memory_order_acquire);
	/* However young: left to the thread, a wait that began before the
	 * switch would be written into the next generation, stamped before
	 * its start, and the readers would move it to that start (the time
	 * before shown as running). */
	if (v == 0 || v >= GT_CALL_CLAIMED || ts < v)
		return 0;
	if (t->state != GT_T_RUNNING || !t->p || t->born_gen == 0 || t->born_gen > old)
		return 0;
	if (!atomic_compare_exchange_strong_explicit(&t->call_t0, &v, GT_CALL_CLAIMED, memory_order_acq_rel,
						     memory_order_relaxed))
		return 0;
	/* The thread is inside its call and waits for GT_CALL_CONVERTED before
	 * it touches its trace state again: it is ours until then. */
	struct gt_proc *p = t->p;
	if (!wrote_status) {
		uint64_t pa[2] = { p->id, GT_P_RUNNING };
		gt_batch_event(b, GT_EV_PROC_STATUS, v, 2, pa);
		uint64_t ga[3] = { t->g, t->m, GT_G_RUNNING };
		gt_batch_event(b, GT_EV_GO_STATUS, v, 3, ga);
		p->status_gen = old;
		p->seq = 0;
		t->g_seq = 0;
	}
	/* The flusher cannot unwind another thread's stack: the interposed
	 * function and its caller. The thread itself, switching during its
	 * call (switch_during_call, core/callwait.c), has taken its whole stack. */
	uintptr_t two[2] = { t->call_site, t->call_caller };
	const uintptr_t *pcs = two;
	unsigned n = t->call_caller ? 2 : 1;
	if (t->call_stack && t->block_n) {
		pcs = t->block_pcs;
		n = t->block_n;
	}
	uint64_t stk = gt_stacktab_put(&gt.stacks[old & 1], gt_hash_words(pcs, n), pcs, n);
	uint64_t reason = gt_call_reason(t->call_kind);
	if (reason) {
		uint64_t ba[2] = { reason, stk };
		gt_batch_event(b, GT_EV_GO_BLOCK, v, 2, ba);
		t->state = GT_T_BLOCKED;
		t->block_ts = v;
		if (pcs == two) {
			t->block_pcs[0] = two[0];
			t->block_pcs[1] = two[1];
			t->block_n = n;
		}
		t->wait_key = 0;
	} else {
		uint64_t sa[2] = { ++p->seq, stk };
		gt_batch_event(b, GT_EV_GO_SYSCALL_BEGIN, v, 2, sa);
		t->state = GT_T_SYSCALL;
	}
	atomic_store_explicit(&t->call_t0, GT_CALL_CONVERTED, memory_order_release);
	return 1;
}
