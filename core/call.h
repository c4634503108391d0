/* call.h — the protocol of calls that may wait in the kernel (I/O, poll,
 * waitpid ...), and the generation switch's side of it.
 *
 * The thread's side is core/callwait.h (gt_call_begin, gt_call_end): while
 * such a call runs, t->call_t0 holds its start time. A call still running
 * when a generation ends is converted by the switch (gt_call_convert, here;
 * called for each thread by core/gen_status.c): it claims call_t0 with a
 * CAS (GT_CALL_CLAIMED), writes the call's beginning into the closing
 * generation (stack: the interposed function and its caller) and publishes
 * GT_CALL_CONVERTED, so a long wait is never shown as running. The thread,
 * on return, exchanges call_t0 with 0; seeing CLAIMED it waits for
 * CONVERTED, then writes only the end. Until then the thread's trace state
 * is the switch's. Two files: the thread's side may run a whole switch
 * itself (core/inline.h), of which this side is a part. */
#ifndef GT_CALL_H
#define GT_CALL_H

#include <stdint.h>

#include "strtab.h"

struct gt_batch;
struct gt_thread;

/* What a call waits in: a socket (GoBlock "network"), the kernel (a
 * syscall), time alone (GoBlock "sleep": select/poll without descriptors),
 * a signal (GoBlock "sync.signal": pause, sigsuspend, the sigwait family),
 * an eventfd (GoBlock "sync.eventfd": a readiness wait for another thread's
 * wake-up, issue 15 item 2; core/readiness.h has the rule), another thread's
 * futex wake (GoBlock "sync.futex": syscall(SYS_futex, FUTEX_WAIT...),
 * interpose/syscall.c). */
enum gt_call_kind {
	GT_CALL_NETWORK = 1, GT_CALL_SYSCALL = 2, GT_CALL_SLEEP = 3, GT_CALL_SIGNAL = 4,
	GT_CALL_EVENTFD = 5, /* issue 15 item 2 */
	GT_CALL_FUTEX = 6,   /* issue 15 item 1: raw futex waits */
};

/* gt_call_reason: the GoBlock reason of a call of this kind, 0 for a
 * syscall. */
static inline uint64_t gt_call_reason(int kind)
{
	switch (kind) {
	case GT_CALL_NETWORK: return GT_STR_NETWORK;
	case GT_CALL_SLEEP: return GT_STR_SLEEP;
	case GT_CALL_SIGNAL: return GT_STR_SYNC_SIGNAL;
	case GT_CALL_EVENTFD: return GT_STR_SYNC_EVENTFD;
	case GT_CALL_FUTEX: return GT_STR_SYNC_FUTEX;
	default: return 0;
	}
}
#define GT_CALL_CLAIMED (UINT64_MAX - 1)   /* the flusher is converting it */
#define GT_CALL_CONVERTED UINT64_MAX       /* the flusher wrote its beginning */

/* Waits shorter than this are not worth a block in the trace: a barrier's
 * last arrival, a read that found data. */
#define GT_SHORT_WAIT_NS 10000

/* gt_call_convert is the switch's side: called under reg_lock for a thread
 * outside any write section at the end of generation old; writes into b
 * (a batch of the thread's M) the beginning of its pending call, if any,
 * re-stating statuses first when wrote_status is 0. Returns 1 if it did. */
int gt_call_convert(struct gt_thread *t, uint64_t old, uint64_t ts, int wrote_status, struct gt_batch *b);

#endif
