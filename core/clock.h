/* clock.h — the trace clock: CLOCK_MONOTONIC nanoseconds, one clock for every
 * thread (so events of different threads order correctly), frequency 1e9.
 * The same clock as Go's nanotime on Linux. */
#ifndef GT_CLOCK_H
#define GT_CLOCK_H

#include <stdint.h>
#include <time.h>

#define GT_CLOCK_FREQ 1000000000ull

static inline uint64_t gt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
