/* flusher.c — the flusher thread: never traced, wakes every GOTRACE_PERIOD
 * and writes the generation that just ended. */
#include "flusher.h"

#include <signal.h>
#include <stdatomic.h>

#include "advance.h"
#include "clock.h"
#include "real.h"
#include "sys.h"
#include "thread.h"

static _Atomic int stop;

static void *flusher_main(void *arg)
{
	(void)arg;
	gt_self.inside = 1; /* invariant 6: the flusher is never traced */
	uint64_t next = gt_now() + gt.period_ns;
	while (!atomic_load(&stop)) {
		uint64_t now = gt_now();
		if (now < next) {
			uint64_t left = next - now;
			struct timespec rel = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
			gt_futex_wait(&stop, 0, &rel);
			continue;
		}
		gt_advance(0);
		next += gt.period_ns;
		if (next < gt_now())
			next = gt_now() + gt.period_ns; /* fell behind: do not burst */
	}
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
	int err = GT_REAL(pthread_create)(&th, &attr, flusher_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err == 0)
		GT_REAL(pthread_setname_np)(th, "gotrace-flush");
	return err;
}

void gt_flusher_stop(void)
{
	atomic_store(&stop, 1);
	gt_futex_wake(&stop, 1);
}
