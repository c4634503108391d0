/* test_clock.c — the trace clock (core/clock.c) against CLOCK_MONOTONIC:
 * never behind it, at most a few microseconds ahead, never going back;
 * through the first calibration, the doubling re-calibrations and the
 * flusher's checks (gt_clock_check). */
#include <criterion/criterion.h>
#include <stdint.h>

#include "core/clock.h"

static void spin_ns(uint64_t ns)
{
	uint64_t end = gt_mono_ns() + ns;
	while (gt_mono_ns() < end)
		;
}

/* run reads the clock between two CLOCK_MONOTONIC readings for ms
 * milliseconds, calling gt_clock_check every check_ms (0: never). */
static void run(unsigned ms, unsigned check_ms)
{
	uint64_t start = gt_mono_ns(), last_check = start, prev = 0;
	uint64_t behind = 0, lead = 0, back = 0, n = 0;
	for (;;) {
		uint64_t m0 = gt_mono_ns();
		uint64_t v = gt_now();
		uint64_t m1 = gt_mono_ns();
		if (v < m0 && m0 - v > behind)
			behind = m0 - v;
		if (v > m1 && v - m1 > lead)
			lead = v - m1;
		if (v < prev && prev - v > back)
			back = prev - v;
		prev = v;
		n++;
		if (m1 - start >= ms * 1000000ull)
			break;
		if (check_ms && m1 - last_check >= check_ms * 1000000ull) {
			gt_clock_check();
			last_check = m1;
		}
		spin_ns(n % 7 * 1000);
	}
	cr_log_info("%llu readings, mode %d: worst behind %llu ns, lead %llu ns, back %llu ns", (unsigned long long)n,
		    atomic_load(&gt_clock.mode), (unsigned long long)behind, (unsigned long long)lead,
		    (unsigned long long)back);
	cr_assert_eq(behind, 0, "the clock ran %llu ns behind CLOCK_MONOTONIC", (unsigned long long)behind);
	cr_assert_lt(lead, 20000, "the clock ran %llu ns ahead of CLOCK_MONOTONIC", (unsigned long long)lead);
	cr_assert_eq(back, 0, "the clock went back %llu ns", (unsigned long long)back);
}

Test(clock, never_behind_monotonic_through_recalibrations, .timeout = 60)
{
	run(600, 0);
}

Test(clock, never_behind_monotonic_with_generation_checks, .timeout = 60)
{
	run(400, 5);
}
