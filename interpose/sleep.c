/* sleep.c — the sleep family as GoBlock("sleep"), and sched_yield as
 * GoStop + GoStart. A zero-length sleep records nothing. */
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "interpose.h"

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
	int r = GT_REAL(nanosleep)(req, rem);
	if (blocked)
		gt_unblock(t, 0);
	return r;
}

GT_EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	struct gt_thread *t = gt_enter();
	if (!t || (!(flags & TIMER_ABSTIME) && !positive(req)))
		return GT_REAL(clock_nanosleep)(clk, flags, req, rem);
	int blocked = gt_block(t, GT_STR_SLEEP, GT_SITE(clock_nanosleep), 0);
	int r = GT_REAL(clock_nanosleep)(clk, flags, req, rem);
	if (blocked)
		gt_unblock(t, 0);
	return r;
}

GT_EXPORT int usleep(useconds_t us)
{
	struct gt_thread *t = gt_enter();
	if (!t || us == 0)
		return GT_REAL(usleep)(us);
	int blocked = gt_block(t, GT_STR_SLEEP, GT_SITE(usleep), 0);
	int r = GT_REAL(usleep)(us);
	if (blocked)
		gt_unblock(t, 0);
	return r;
}

GT_EXPORT unsigned sleep(unsigned s)
{
	struct gt_thread *t = gt_enter();
	if (!t || s == 0)
		return GT_REAL(sleep)(s);
	int blocked = gt_block(t, GT_STR_SLEEP, GT_SITE(sleep), 0);
	unsigned r = GT_REAL(sleep)(s);
	if (blocked)
		gt_unblock(t, 0);
	return r;
}

GT_EXPORT int sched_yield(void)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(sched_yield)();
	gt_yield_begin(t, GT_SITE(sched_yield));
	int r = GT_REAL(sched_yield)();
	gt_yield_end(t);
	return r;
}
