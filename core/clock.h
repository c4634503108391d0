/* clock.h — the trace clock: nanoseconds on one clock for every thread (so
 * events of different threads order correctly), frequency 1e9,
 * CLOCK_MONOTONIC (the same clock as Go's nanotime on Linux) or a little
 * ahead of it, never behind: no event is stamped before a CLOCK_MONOTONIC
 * reading the program took before it.
 *
 * Reading CLOCK_MONOTONIC through the vDSO costs ~20 ns on a virtual
 * machine; every event needs one reading. Where the time-stamp counter is
 * safe (x86-64, constant_tsc and nonstop_tsc, and the kernel itself keeps
 * time with it: clocksource "tsc"), the clock is the TSC scaled to
 * nanoseconds instead: the later of two lines from base_tsc, the clock's
 * own (base_ns, mult: continuing its past, steered towards CLOCK_MONOTONIC)
 * and a floor (floor_ns, floor_mult: CLOCK_MONOTONIC's highest possible
 * value), one rdtsc (~8 ns) and two multiplies. Until the first
 * calibration, 1 ms after the first reading, the clock is CLOCK_MONOTONIC
 * itself; re-calibrations follow 2, 4, 8 ... ms later (at most 250 ms; the
 * first reading past lim does it) and at every generation switch
 * (gt_clock_check). When the kernel stops using the TSC, or the TSC strays
 * from CLOCK_MONOTONIC by more than a plausible NTP correction, the clock
 * falls back to CLOCK_MONOTONIC (plus the lead it had, so it never goes
 * back). docs/design.md, "Clock", has the reasoning.
 *
 * The parameters are published with a seqlock of two counters, so a reader
 * never mixes two sets; the counters differ whenever the clock is not the
 * TSC (and while new parameters are written), so one compare sends every
 * reading that cannot use the TSC to gt_now_slow. */
#ifndef GT_CLOCK_H
#define GT_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define GT_CLOCK_FREQ 1000000000ull

struct gt_clock {
	_Atomic int mode;          /* GT_CLOCK_MONO / GT_CLOCK_TSC */
	_Atomic uint32_t begin;    /* seqlock: end + 1 while the parameters
	                            * change and while the clock is not the TSC */
	uint64_t base_tsc;         /* both lines start at this TSC value */
	uint64_t base_ns, mult;    /* the clock's own line: continues its past */
	uint64_t floor_ns, floor_mult; /* CLOCK_MONOTONIC's upper bound */
	uint64_t lim;              /* ticks after base_tsc until a re-calibration */
	_Atomic uint32_t end;      /* set to begin once they are valid */
	uint64_t mono_offset;      /* added to CLOCK_MONOTONIC in GT_CLOCK_MONO */
};

enum { GT_CLOCK_MONO = 0, GT_CLOCK_TSC = 1 };

extern struct gt_clock gt_clock;

static inline uint64_t gt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* gt_thread_cpu_ns: the calling thread's CPU time so far
 * (CLOCK_THREAD_CPUTIME_ID; a system call). */
static inline uint64_t gt_thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* gt_began_running: the latest time at which the calling thread can have
 * begun running, given the clock's now: now less the CPU time it has used
 * (it cannot have used more than the time since it began), but not before
 * floor. A thread's first GoStart is stamped there, so the tracer's work
 * before it and whatever the thread did before the tracer saw it count as
 * running. */
static inline uint64_t gt_began_running(uint64_t now, uint64_t floor)
{
	uint64_t cpu = gt_thread_cpu_ns();
	uint64_t t = now > cpu ? now - cpu : 0;
	return t > floor ? t : floor;
}

/* gt_now_slow: the clock when it is not (yet) the TSC. */
uint64_t gt_now_slow(void);

#if defined(__x86_64__)
static inline uint64_t gt_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* gt_clock_at: the clock at d ticks after base_tsc, with parameters read
 * under the seqlock: the later of the clock's own line (its past, steered
 * towards CLOCK_MONOTONIC) and the floor (never behind CLOCK_MONOTONIC). */
static inline uint64_t gt_clock_at(uint64_t d, uint64_t bn, uint64_t m, uint64_t fn, uint64_t fm)
{
	uint64_t a = bn + (uint64_t)(((unsigned __int128)d * m) >> 32);
	uint64_t f = fn + (uint64_t)(((unsigned __int128)d * fm) >> 32);
	return a > f ? a : f;
}

/* gt_now_late: a reading past the parameters' re-calibration point. */
uint64_t gt_now_late(uint64_t value);

static inline uint64_t gt_now(void)
{
	uint32_t e = atomic_load_explicit(&gt_clock.end, memory_order_acquire);
	uint64_t bt = gt_clock.base_tsc, bn = gt_clock.base_ns, m = gt_clock.mult;
	uint64_t fn = gt_clock.floor_ns, fm = gt_clock.floor_mult, lim = gt_clock.lim;
	atomic_thread_fence(memory_order_acquire);
	if (__builtin_expect(atomic_load_explicit(&gt_clock.begin, memory_order_relaxed) == e, 1)) {
		/* A counter read just before new parameters took effect reads
		 * as their start, never as the past. */
		uint64_t d = gt_rdtsc() - bt;
		if ((int64_t)d < 0)
			d = 0;
		uint64_t v = gt_clock_at(d, bn, m, fn, fm);
		if (__builtin_expect(d > lim, 0))
			return gt_now_late(v);
		return v;
	}
	return gt_now_slow();
}
#else
static inline uint64_t gt_now(void)
{
	return gt_now_slow();
}
#endif

/* gt_clock_check re-calibrates the TSC scale (or falls back to
 * CLOCK_MONOTONIC); called by the flusher at each generation switch. */
void gt_clock_check(void);

/* gt_clock_configure passes GOTRACE_CLOCK as loaded by the option table
 * (core/config.c): monotonic = 1 never uses the TSC. Call before the first
 * event; without it the clock reads the variable through the same table. */
void gt_clock_configure(int monotonic);

/* gt_clock_after_fork repairs the clock in the child of fork (a
 * calibration the parent's flusher had under way never finishes there). */
void gt_clock_after_fork(void);

#endif
