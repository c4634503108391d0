/* inline.c — generation switches done by a program thread (inline.h). */
#include "inline.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "advance.h"
#include "clock.h"
#include "ownstack.h"
#include "request.h"
#include "sys.h"
#include "thread.h"
#include "tracer.h"

static _Atomic int snapshot_wanted; /* snapshots asked for and not taken */

int gt_inline_flusher(int running, int *snapshots)
{
	atomic_store(&gt_req.inline_off, running); /* core/request.h */
	if (!running) {
		atomic_store(&gt_inline_due, gt_advance_next_due());
		return 0;
	}
	/* Requests not served yet go to the flusher. */
	int early = atomic_exchange(&gt_inline_due, UINT64_MAX) == 0;
	*snapshots = atomic_exchange(&snapshot_wanted, 0);
	return early;
}

void gt_inline_request_snapshot(void)
{
	atomic_fetch_add(&snapshot_wanted, 1);
	if (!atomic_load(&gt_req.inline_off))
		atomic_store(&gt_inline_due, 0);
}

/* safe: nothing of the tracer is interrupted on t but its current operation
 * (own raises of inside) and pending calls (quiet). */
static int safe(struct gt_thread *t, int own)
{
	return t->inside - t->quiet == own && getpid() == gt.pid;
}

struct job {
	int kind;
};

static void run(void *arg)
{
	struct job *j = arg;
	gt_advance_locked(j->kind);
}

/* switch_now does one switch of the given kind on this thread's own stack.
 * pre: advance_lock held. */
static void switch_now(int kind)
{
	struct job j = { kind };
	if (gt_ownstack_run(run, &j) != 0)
		gt_advance_locked(kind); /* no stack to be had: the thread's own */
}

void gt_inline_try_now(struct gt_thread *t, int own)
{
	if (atomic_load(&gt_req.inline_off) || gt.finished || !safe(t, own))
		return;
	if (!gt_trylock(&gt.advance_lock))
		return; /* another thread is switching: the work is being done */
	int saved = errno;
	t->inside++;
	if (!gt.finished) {
		int snaps = atomic_exchange(&snapshot_wanted, 0);
		if (snaps && gt.flight_bytes)
			switch_now(GT_ADV_SNAPSHOT);
		else if (gt_now() >= atomic_load(&gt_inline_due))
			switch_now(GT_ADV_NEXT);
	}
	if (!atomic_load(&gt_req.inline_off))
		atomic_store(&gt_inline_due, gt_advance_next_due());
	t->inside--;
	gt_unlock(&gt.advance_lock);
	errno = saved;
}

void gt_inline_advance(struct gt_thread *t)
{
	gt_inline_try_now(t, 1);
}

int gt_inline_switch(struct gt_thread *t, int own, int kind, int timeout_ms)
{
	if (!safe(t, own))
		return -1;
	uint64_t deadline = gt_now() + (uint64_t)timeout_ms * 1000000ull;
	/* Another thread may be switching: it never waits for this one (its
	 * signals are blocked, it is outside any section of ours). */
	while (!gt_trylock(&gt.advance_lock)) {
		if (gt_now() >= deadline)
			return -1;
		gt_sys_call(SYS_sched_yield);
	}
	int saved = errno;
	t->inside++;
	if (!gt.finished)
		switch_now(kind);
	t->inside--;
	gt_unlock(&gt.advance_lock);
	errno = saved;
	return 0;
}
