/* sleep.c — the sleep family as GoBlock("sleep"), and sched_yield as
 * GoStop + GoStart. A zero-length sleep records nothing.
 *
 * The flight recorder's snapshot signal (core/signals.c) is ours, not the
 * program's: a sleep only it interrupted (no handler of the program's ran
 * on the thread meanwhile) goes on sleeping for the time left, as if the
 * signal had never come. Every sleep here is therefore done with
 * nanosleep/clock_nanosleep and their remaining time. */
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "../core/signals.h"
#include "interpose.h"

/* sleep_rel sleeps *req on CLOCK_REALTIME (what nanosleep uses), resuming
 * after a snapshot signal; returns 0, or -1 with errno (EINTR: another
 * signal, *rem then holding the time left). */
static int sleep_rel(const struct timespec *req, struct timespec *rem)
{
	struct timespec left = *req, r;
	for (;;) {
		struct gt_sigmarks m;
		gt_signals_marks(&m);
		int e = GT_REAL(clock_nanosleep)(CLOCK_REALTIME, 0, &left, &r);
		if (e == 0)
			return 0;
		if (e != EINTR || !gt_signals_only_snapshot_since(&m)) {
			if (rem)
				*rem = r;
			errno = e;
			return -1;
		}
		left = r;
	}
}

static int positive(const struct timespec *ts)
{
	return ts && (ts->tv_sec > 0 || (ts->tv_sec == 0 && ts->tv_nsec > 0));
}

GT_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	struct gt_thread *t = gt_enter();
	if (!t || !positive(req))
		return GT_REAL(nanosleep)(req, rem);
	int blocked = gt_block(t, GT_STR_SLEEP, GT_SITE(nanosleep), 0);
	int r = sleep_rel(req, rem);
	if (blocked)
		gt_unblock(t, 0);
	return r;
}

GT_EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	struct gt_thread *t = gt_enter();
	int abs = (flags & TIMER_ABSTIME) != 0;
	if (!t || !req || (!abs && !positive(req)))
		return GT_REAL(clock_nanosleep)(clk, flags, req, rem);
	int blocked = gt_block(t, GT_STR_SLEEP, GT_SITE(clock_nanosleep), 0);
	/* Returns the error number (errno untouched), as glibc's does; the
	 * time left is written only for a relative sleep a signal cut short. */
	struct timespec left = *req, r;
	int e;
	for (;;) {
		struct gt_sigmarks m;
		gt_signals_marks(&m);
		e = GT_REAL(clock_nanosleep)(clk, flags, &left, &r);
		if (e != EINTR || !gt_signals_only_snapshot_since(&m))
			break;
		if (!abs)
			left = r;
	}
	if (e == EINTR && !abs && rem)
		*rem = r;
	if (blocked)
		gt_unblock(t, 0);
	return e;
}

GT_EXPORT int usleep(useconds_t us)
{
	struct gt_thread *t = gt_enter();
	if (!t || us == 0)
		return GT_REAL(usleep)(us);
	int blocked = gt_block(t, GT_STR_SLEEP, GT_SITE(usleep), 0);
	struct timespec req = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	int r = sleep_rel(&req, NULL);
	if (blocked)
		gt_unblock(t, 0);
	return r;
}

GT_EXPORT unsigned sleep(unsigned s)
{
	struct gt_thread *t = gt_enter();
	if (!t || s == 0)
		return GT_REAL(sleep)(s);
	int saved = errno;
	int blocked = gt_block(t, GT_STR_SLEEP, GT_SITE(sleep), 0);
	struct timespec req = { (time_t)s, 0 }, rem;
	unsigned r = 0;
	/* As glibc's sleep: interrupted, the whole seconds left (truncated)
	 * with errno EINTR; otherwise 0 with errno as it was. */
	if (sleep_rel(&req, &rem) != 0)
		r = (unsigned)rem.tv_sec;
	else
		errno = saved;
	if (blocked)
		gt_unblock(t, 0);
	return r;
}

/* yield: GoStop at site, the real sched_yield, GoStart. */
static int yield(struct gt_thread *t, uintptr_t site)
{
	gt_yield_begin(t, site);
	int r = GT_REAL(sched_yield)();
	gt_yield_end(t);
	return r;
}

GT_EXPORT int sched_yield(void)
{
	struct gt_thread *t = gt_enter();
	return t ? yield(t, GT_SITE(sched_yield)) : GT_REAL(sched_yield)();
}

/* pthread_yield: glibc's older name for sched_yield. Programs built
 * against glibc 2.34+ headers call sched_yield directly (the header
 * redirects the name); older binaries (sysbench) call pthread_yield, whose
 * libc definition reaches sched_yield inside libc, out of our sight. The
 * header's redirect is bypassed with an assembler name. */
int gt_pthread_yield(void) __asm__("pthread_yield");
GT_EXPORT int gt_pthread_yield(void)
{
	struct gt_thread *t = gt_enter();
	return t ? yield(t, GT_SITE(gt_pthread_yield)) : GT_REAL(sched_yield)();
}
