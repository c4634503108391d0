/* gen_status.c — a closed generation's statuses of quiet threads and its
 * pending calls (gen_status.h). */
#include "gen_status.h"

#include <stdatomic.h>

#include "call.h"
#include "sys.h"
#include "thread.h"

/* A P id nobody uses, for gt_gen_status_idle. */
#define IDLE_PROC_ID 1000000

/* A consistent copy of what the switch needs of a thread. */
struct snap {
	uint8_t state, state_before;
	uint64_t wrote_gen, prev_gen, born_gen, g, m, p;
};

static void snapshot(struct gt_thread *t, struct snap *sn)
{
	for (;;) {
		uint32_t s = atomic_load_explicit(&t->wseq, memory_order_acquire);
		if (s & 1) {
			gt_sys_yield();
			continue;
		}
		sn->state = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
		sn->state_before = __atomic_load_n(&t->state_before, __ATOMIC_RELAXED);
		sn->wrote_gen = __atomic_load_n(&t->wrote_gen, __ATOMIC_RELAXED);
		sn->prev_gen = __atomic_load_n(&t->prev_gen, __ATOMIC_RELAXED);
		sn->born_gen = __atomic_load_n(&t->born_gen, __ATOMIC_RELAXED);
		sn->g = __atomic_load_n(&t->g, __ATOMIC_RELAXED);
		sn->m = __atomic_load_n(&t->m, __ATOMIC_RELAXED);
		struct gt_proc *p = __atomic_load_n(&t->p, __ATOMIC_RELAXED);
		sn->p = p ? __atomic_load_n(&p->id, __ATOMIC_RELAXED) : UINT64_MAX;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&t->wseq, memory_order_relaxed) == s)
			return;
	}
}

int gt_gen_status_thread(struct gt_gen_out *o, struct gt_thread *t, uint64_t old, uint64_t ts, uint64_t start_ts)
{
	struct snap snap, *sn = &snap;
	snapshot(t, sn);
	if (sn->born_gen == 0 || sn->born_gen > old || sn->p == UINT64_MAX)
		return 0;
	int wrote = sn->wrote_gen == old || (sn->wrote_gen == old + 1 && sn->prev_gen == old);
	uint8_t st = sn->wrote_gen == old + 1 ? sn->state_before : sn->state;
	struct gt_gen_batch tb = { .o = o, .gen = old, .m = sn->m, .ts = start_ts < ts ? start_ts : ts };
	if (sn->wrote_gen <= old && st == GT_T_RUNNING) {
		if (gt_gen_batch_room(&tb, 128) != 0)
			return 0;
		if (gt_call_convert(t, old, ts, wrote, &tb.b)) {
			gt_gen_batch_close(&tb);
			return 1;
		}
	}
	if (wrote) {
		if (tb.open) /* room taken, nothing written: leave an empty batch out */
			tb.open = 0;
		return 0;
	}
	uint64_t gs, m = GT_NO_THREAD, ps = GT_P_RUNNING;
	switch (st) {
	case GT_T_RUNNING: gs = GT_G_RUNNING; m = sn->m; break;
	case GT_T_RUNNABLE: gs = GT_G_RUNNABLE; break;
	case GT_T_BLOCKED: gs = GT_G_WAITING; break;
	case GT_T_SYSCALL: gs = GT_G_SYSCALL; m = sn->m; ps = GT_P_SYSCALL; break;
	default: tb.open = 0; return 0;
	}
	if (gt_gen_batch_room(&tb, 64) != 0)
		return 0;
	uint64_t pa[2] = { sn->p, ps };
	gt_batch_event(&tb.b, GT_EV_PROC_STATUS, ts, 2, pa);
	uint64_t ga[3] = { sn->g, m, gs };
	gt_batch_event(&tb.b, GT_EV_GO_STATUS, ts, 3, ga);
	gt_gen_batch_close(&tb);
	return 1;
}

void gt_gen_status_idle(struct gt_gen_out *o, uint64_t old, uint64_t ts)
{
	struct gt_gen_batch tb = { .o = o, .gen = old, .m = GT_NO_THREAD, .ts = ts };
	if (gt_gen_batch_room(&tb, 64) != 0)
		return;
	uint64_t a[2] = { IDLE_PROC_ID, GT_P_IDLE };
	gt_batch_event(&tb.b, GT_EV_PROC_STATUS, ts, 2, a);
	gt_gen_batch_close(&tb);
}
