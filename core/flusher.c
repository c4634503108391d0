/* flusher.c — the flusher thread: started with the program's second thread,
 * never traced, writes the generation that just ended every period
 * (flusher.h). */
#include "flusher.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "advance.h"
#include "clock.h"
#include "deadlock.h"
#include "inline.h"
#include "lock.h"
#include "log.h"
#include "real.h"
#include "request.h"
#include "sink.h"
#include "sys.h"
#include "thread.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif

/* Start and stop are serialized; requests are atomics the thread reads:
 * these, and those the modules below raise (core/request.h: an early end
 * of the generation; the wake word it sleeps on). gt_req.flusher is
 * `running && !stop`, for them. */
static gt_lock_t life_lock = GT_LOCK_INIT;
static pthread_t thread;
static _Atomic int running;        /* started, not joined nor stopped for exit */
static _Atomic int stop;
static _Atomic int final_requested;
static _Atomic int final_done;
static _Atomic int snapshots;      /* flight-recorder snapshots asked for */
static _Atomic int ready;          /* 1: own table set up; -1: it failed */
static _Atomic int tid;            /* the flusher's thread id, 0 when none */

/* private_table gives the flusher a descriptor table of its own holding
 * nothing of the program's (only the output, if it is a stream or the
 * engine's caller's descriptor, at keep). */
static int private_table(int keep)
{
	if (gt_sys_call(SYS_unshare, CLONE_FILES) != 0)
		return -1;
	if (keep < 0) {
		gt_sys_call(SYS_close_range, 0U, ~0U, 0U);
	} else {
		if (keep > 0)
			gt_sys_call(SYS_close_range, 0U, (unsigned)keep - 1, 0U);
		gt_sys_call(SYS_close_range, (unsigned)keep + 1, ~0U, 0U);
	}
	return 0;
}

static void *flusher_main(void *arg)
{
	(void)arg;
	gt_self.inside = 1; /* invariant 6: the flusher is never traced */
	atomic_store(&tid, gt_gettid());
	if (private_table(gt_sink_keep_fd()) != 0) {
		atomic_store(&ready, -1);
		gt_futex_wake(&ready, INT32_MAX);
		return NULL;
	}
	gt_log_private_table();
	/* Named from inside: naming another thread opens its /proc comm file
	 * in the program's table. */
	gt_sys_set_name("gotrace-flush");
	gt_sink_hold();
	atomic_store(&gt_req.own_tid, gt_gettid());
	atomic_store(&ready, 1);
	gt_futex_wake(&ready, INT32_MAX);
	gt_advance_warm(); /* the symbol table of the program's own code, now */
	uint64_t next = gt_advance_next_due();
	while (!atomic_load(&stop)) {
		int w = atomic_load(&gt_req.wake);
		if (atomic_load(&final_requested)) {
			gt_advance(1);
			atomic_store(&final_done, 1);
			gt_futex_wake(&final_done, INT32_MAX);
			break;
		}
		uint64_t now = gt_now();
		if (atomic_exchange(&snapshots, 0)) {
			gt_advance_snapshot();
			next = gt_now() + gt.period_ns;
			continue;
		}
		if (atomic_exchange(&gt_req.early, 0)) { /* core/request.h */
			gt_advance(0);
			next = gt_now() + gt.period_ns;
			continue;
		}
		/* Deadlock detection (core/deadlock.h): a look when one is due;
		 * the sleep ends at the next one. */
		uint64_t until = gt_deadlock_poll(now);
		if (now < next) {
			if (until > next || until <= now)
				until = next;
			uint64_t left = until - now;
			struct timespec rel = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
			gt_futex_wait(&gt_req.wake, w, &rel);
			continue;
		}
		gt_advance(0);
		next += gt.period_ns;
		if (next < gt_now())
			next = gt_now() + gt.period_ns; /* fell behind: do not burst */
	}
	/* Asked for the final generation as it was told to stop (the last
	 * other thread ending while main exits): it is written all the same.
	 * A request after this point finds tid 0 and is done inline. */
	if (atomic_load(&final_requested) && !atomic_load(&final_done)) {
		gt_advance(1);
		atomic_store(&final_done, 1);
		gt_futex_wake(&final_done, INT32_MAX);
	}
	gt_sink_release();
	atomic_store(&gt_req.own_tid, 0);
	atomic_store(&tid, 0);
	return NULL;
}

/* start: pre: life_lock held, no flusher. */
static int start(void)
{
	sigset_t all, old;
	sigfillset(&all);
	GT_REAL(pthread_sigmask)(SIG_SETMASK, &all, &old);
	atomic_store(&stop, 0);
	atomic_store(&ready, 0);
	int err = GT_REAL(pthread_create)(&thread, NULL, flusher_main, NULL);
	GT_REAL(pthread_sigmask)(SIG_SETMASK, &old, NULL);
	if (err)
		return err;
	/* Wait for its own table: until then it holds copies of the program's
	 * descriptors (a pipe's reader would not see the end of a pipe the
	 * program closes). Microseconds. */
	while (atomic_load(&ready) == 0)
		gt_futex_wait(&ready, 0, NULL);
	if (atomic_load(&ready) < 0) {
		GT_REAL(pthread_join)(thread, NULL);
		return EPERM;
	}
	atomic_store(&running, 1);
	atomic_store(&gt_req.flusher, 1);
	int snaps = 0;
	if (gt_inline_flusher(1, &snaps))
		atomic_store(&gt_req.early, 1);
	if (snaps)
		atomic_fetch_add(&snapshots, snaps);
	gt_request_poke();
	return 0;
}

int gt_flusher_ensure(void)
{
	if (atomic_load_explicit(&running, memory_order_acquire))
		return 0;
	int saved = errno;
	gt_lock(&life_lock);
	int err = 0;
	if (!atomic_load(&running) && atomic_load(&gt.on) && !gt.finished) {
		err = start();
		static int warned;
		if (err && !warned++)
			gt_warn("cannot start the flusher thread (%s); generations are written by the program's threads",
				err == EPERM ? "no private descriptor table" : "pthread_create failed");
	}
	gt_unlock(&life_lock);
	errno = saved;
	return err;
}

/* halt asks the thread to stop and waits until it is gone from the kernel
 * (pthread_join: its tid cleared). pre: life_lock held, it runs. */
static void halt(void)
{
	atomic_store(&stop, 1);
	atomic_store(&gt_req.flusher, 0);
	gt_request_poke();
	GT_REAL(pthread_join)(thread, NULL);
	atomic_store(&running, 0);
	gt_inline_flusher(0, NULL);
}

void gt_flusher_alone(void)
{
	if (gt_sink_stream() || !atomic_load(&running))
		return;
	int saved = errno;
	gt_lock(&life_lock);
	if (atomic_load(&running))
		halt();
	gt_unlock(&life_lock);
	errno = saved;
}

void gt_flusher_stop_for_exit(void)
{
	/* The destructor writes the final generation itself (advance_lock
	 * orders it after any switch the flusher is doing); the thread just
	 * stops switching. Not joined: exit ends it. */
	atomic_store(&stop, 1);
	atomic_store(&gt_req.flusher, 0);
	gt_request_poke();
	atomic_store(&running, 0);
}

void gt_flusher_forget_after_fork(void)
{
	gt_lock_reset(&life_lock);
	atomic_store(&stop, 0);
	atomic_store(&running, 0);
	atomic_store(&gt_req.flusher, 0);
	atomic_store(&final_requested, 0);
	atomic_store(&gt_req.early, 0);
	atomic_store(&final_done, 0);
	atomic_store(&snapshots, 0);
	atomic_store(&gt_req.own_tid, 0);
	atomic_store(&tid, 0);
	gt_inline_flusher(0, NULL);
}

int gt_flusher_running(void)
{
	return atomic_load(&gt_req.flusher); /* running and not asked to stop */
}

void gt_flusher_snapshot(void)
{
	if (gt_flusher_running()) {
		atomic_fetch_add(&snapshots, 1);
		gt_request_poke();
		return;
	}
	gt_inline_request_snapshot();
	gt_inline_try_now(&gt_self, 0); /* at once if this thread can */
}

void gt_flusher_final(int timeout_ms)
{
	if (atomic_load(&running) && !atomic_load(&stop) && atomic_load(&tid) != gt_gettid()) {
		atomic_store(&final_requested, 1);
		gt_request_poke();
		uint64_t deadline = gt_now() + (uint64_t)timeout_ms * 1000000ull;
		/* The flusher may be told to stop meanwhile (another thread's
		 * exit leaves this one alone, gt_flusher_alone): once it is gone
		 * without the final generation, this thread writes it. */
		while (!atomic_load(&final_done) && !(atomic_load(&stop) && atomic_load(&tid) == 0)) {
			uint64_t now = gt_now();
			if (now >= deadline) {
				gt_warn("the flusher did not write the final generation within %d ms; "
					"the trace ends with the last generation written", timeout_ms);
				return;
			}
			uint64_t left = deadline - now;
			if (left > 10000000ull)
				left = 10000000ull; /* look at the flusher again every 10 ms */
			struct timespec rel = { 0, (long)left };
			gt_futex_wait(&final_done, 0, &rel);
		}
		if (atomic_load(&final_done))
			return;
	}
	gt_inline_switch(&gt_self, gt_self.state == GT_T_DEAD, GT_ADV_FINAL, timeout_ms);
}
