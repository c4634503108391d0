/* flusher.c — the flusher thread: never traced, wakes every GOTRACE_PERIOD
 * and writes the generation that just ended. */
#include "flusher.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "advance.h"
#include "clock.h"
#include "real.h"
#include "sys.h"
#include "thread.h"

static _Atomic int stop;
static _Atomic int running;
static _Atomic int final_requested;
static _Atomic int early;          /* a generation grew big: end it now */
static _Atomic int wake_word;      /* the futex the flusher sleeps on */
static _Atomic int snapshots;      /* flight-recorder snapshots asked for */

static void poke(void)
{
	atomic_fetch_add(&wake_word, 1);
	gt_futex_wake(&wake_word, 1);
}
static _Atomic int final_done;

static void *flusher_main(void *arg)
{
	(void)arg;
	gt_self.inside = 1; /* invariant 6: the flusher is never traced */
	uint64_t next = gt_now() + gt.period_ns;
	while (!atomic_load(&stop)) {
		int w = atomic_load(&wake_word);
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
		if (atomic_exchange(&early, 0)) {
			gt_advance(0);
			next = gt_now() + gt.period_ns;
			continue;
		}
		if (now < next) {
			uint64_t left = next - now;
			struct timespec rel = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
			gt_futex_wait(&wake_word, w, &rel);
			continue;
		}
		gt_advance(0);
		next += gt.period_ns;
		if (next < gt_now())
			next = gt_now() + gt.period_ns; /* fell behind: do not burst */
	}
	atomic_store(&running, 0);
	return NULL;
}

int gt_flusher_start(void)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t th;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	atomic_store(&running, 1);
	int err = GT_REAL(pthread_create)(&th, &attr, flusher_main, NULL);
	if (err)
		atomic_store(&running, 0);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err == 0)
		GT_REAL(pthread_setname_np)(th, "gotrace-flush");
	return err;
}

void gt_flusher_forget_after_fork(void)
{
	atomic_store(&stop, 0);
	atomic_store(&running, 0);
	atomic_store(&final_requested, 0);
	atomic_store(&early, 0);
	atomic_store(&final_done, 0);
	atomic_store(&snapshots, 0);
}

int gt_flusher_running(void)
{
	return atomic_load(&running) && !atomic_load(&stop);
}

void gt_flusher_snapshot(void)
{
	atomic_fetch_add(&snapshots, 1);
	poke();
}

void gt_flusher_generation_full(void)
{
	if (!atomic_exchange(&early, 1))
		poke();
}

void gt_flusher_stop(void)
{
	atomic_store(&stop, 1);
	poke();
}

void gt_flusher_final(int timeout_ms)
{
	if (!atomic_load(&running) || atomic_load(&stop)) {
		gt_advance(1);
		return;
	}
	atomic_store(&final_requested, 1);
	poke();
	uint64_t deadline = gt_now() + (uint64_t)timeout_ms * 1000000ull;
	while (!atomic_load(&final_done)) {
		uint64_t now = gt_now();
		if (now >= deadline)
			return;
		uint64_t left = deadline - now;
		struct timespec rel = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
		gt_futex_wait(&final_done, 0, &rel);
	}
}
