/* clock.c — calibrating the TSC trace clock against CLOCK_MONOTONIC and
 * keeping it honest (clock.h). */
#include "clock.h"
#include "config.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct gt_clock gt_clock = { .begin = 1 }; /* CLOCK_MONOTONIC until calibrated */

/* The first calibration spans at least CAL_NS; each later one at most twice
 * the span before it (so the rate's error, about the readings' bracket over
 * the span, shrinks fast) and at most MAX_SPAN_NS; the flusher's checks at
 * generation switches come at least CHECK_NS apart. */
#define CAL_NS 1000000ull
#define CHECK_NS 1000000ull
#define MAX_SPAN_NS 250000000ull
/* The floor's rate is CLOCK_MONOTONIC's highest rate over the last span,
 * plus MARGIN_PPM for the kernel's own small corrections of its rate (NTP's
 * frequency, its error feedback): the clock's lead over CLOCK_MONOTONIC
 * grows by at most about that much between two calibrations. */
#define MARGIN_PPM 2
/* The clock's own line runs STEER_PPM slower than the floor, so a lead
 * shrinks by that much until the floor takes over. NTP slews
 * CLOCK_MONOTONIC by at most 500 ppm: a TSC rate further than
 * MAX_RATE_CHANGE_PPM from the last one means the TSC (or the machine's idea
 * of it) changed: fall back. */
#define STEER_PPM 500
#define MAX_RATE_CHANGE_PPM 2000

/* Calibration state: 0 nothing yet, 1 first pair taken, 2 done (TSC or not). */
static _Atomic int cal_state;
static _Atomic int cal_busy; /* one calibrator at a time; never waited for */
static uint64_t last_tsc, last_lo, last_mid; /* the last pair used (see pair) */
static uint64_t last_rate;                   /* the mid-to-mid rate then */
static int forced_monotonic = -1;  /* GOTRACE_CLOCK=monotonic; -1 not configured */

void gt_clock_configure(int monotonic)
{
	forced_monotonic = monotonic != 0;
}

#if defined(__x86_64__)

static uint64_t rdtsc_fenced(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* pair reads the TSC between two CLOCK_MONOTONIC readings, best of a few
 * tries: *lo and *hi are the readings of the tightest bracket (the kernel's
 * CLOCK_MONOTONIC at *tsc lies between them). */
static void pair(uint64_t *tsc, uint64_t *lo, uint64_t *hi)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 16; i++) {
		uint64_t a = gt_mono_ns();
		uint64_t c = rdtsc_fenced();
		uint64_t b = gt_mono_ns();
		if (b >= a && b - a < best) {
			best = b - a;
			*tsc = c;
			*lo = a;
			*hi = b;
		}
	}
}

/* The kernel keeps time with the TSC only when it found it synchronized
 * across CPUs and stable; it switches away when its watchdog sees it
 * drift. Read with raw system calls (never through a wrapper). */
static int kernel_uses_tsc(void)
{
	int fd = (int)gt_sys_call(SYS_openat, AT_FDCWD, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
			      O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[16];
	long n = gt_sys_call(SYS_read, fd, buf, sizeof buf - 1);
	gt_sys_call(SYS_close, fd);
	return n >= 4 && memcmp(buf, "tsc\n", 4) == 0;
}

/* invariant_tsc: CPUID 8000_0007H EDX bit 8, what Linux shows as
 * constant_tsc + nonstop_tsc: the TSC ticks at one rate in every P-, C-
 * and T-state. */
static int invariant_tsc(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
	if (a < 0x80000007u)
		return 0;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
	return (d >> 8) & 1;
}

static int tsc_usable(void)
{
	if (forced_monotonic < 0) { /* not configured: the table's parser, no warning */
		struct gt_config c;
		const char *e = secure_getenv(gt_config_options[GT_OPT_CLOCK].name);
		forced_monotonic = e && gt_config_set(&c, GT_OPT_CLOCK, e) == 0 && c.clock_monotonic;
	}
	if (forced_monotonic)
		return 0;
	return invariant_tsc() && kernel_uses_tsc();
}

static uint64_t scale(uint64_t ns, uint64_t ticks)
{
	return (uint64_t)(((unsigned __int128)ns << 32) / ticks);
}

/* scale_up: scale rounded up (a rate never below the true one). */
static uint64_t scale_up(uint64_t ns, uint64_t ticks)
{
	return (uint64_t)((((unsigned __int128)ns << 32) + ticks - 1) / ticks);
}

/* invalidate makes readers take gt_now_slow (begin = end + 1). */
static void invalidate(void)
{
	uint32_t e = atomic_load_explicit(&gt_clock.end, memory_order_relaxed);
	atomic_store_explicit(&gt_clock.begin, e + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

/* publish sets new parameters under the seqlock and makes them valid. */
static void publish(uint64_t base_tsc, uint64_t base_ns, uint64_t mult, uint64_t floor_ns, uint64_t floor_mult,
		    uint64_t lim)
{
	invalidate();
	gt_clock.base_tsc = base_tsc;
	gt_clock.base_ns = base_ns;
	gt_clock.mult = mult;
	gt_clock.floor_ns = floor_ns;
	gt_clock.floor_mult = floor_mult;
	gt_clock.lim = lim;
	atomic_store_explicit(&gt_clock.end, atomic_load_explicit(&gt_clock.begin, memory_order_relaxed),
			      memory_order_release);
}

/* current: the clock at TSC value tsc with the current parameters (the
 * caller serializes against publish). */
static uint64_t current(uint64_t tsc)
{
	int64_t d = (int64_t)(tsc - gt_clock.base_tsc);
	return gt_clock_at(d < 0 ? 0 : (uint64_t)d, gt_clock.base_ns, gt_clock.mult, gt_clock.floor_ns,
			   gt_clock.floor_mult);
}

/* fall_back: the clock becomes CLOCK_MONOTONIC, continuing from where the
 * TSC clock is at tsc (it may be ahead, never behind); lo: a
 * CLOCK_MONOTONIC reading from before tsc. */
static void fall_back(uint64_t tsc, uint64_t lo)
{
	uint64_t ours = current(tsc);
	gt_clock.mono_offset = ours > lo ? ours - lo : 0;
	atomic_store_explicit(&gt_clock.mode, GT_CLOCK_MONO, memory_order_release);
	invalidate();
}

/* recalibrate publishes new parameters from the pair (t, lo, hi) and the
 * last one (the caller holds cal_busy). Why the clock is never behind
 * CLOCK_MONOTONIC: CLOCK_MONOTONIC at t is at most hi (read after the
 * TSC), and it advanced from the last pair to this one by at most
 * hi - last_lo: so while its rate stays at most that (plus the margin),
 * the floor hi + (tsc - t) * floor_mult stays ahead of it, and the clock is
 * never below its floor. first: the clock was CLOCK_MONOTONIC until now
 * (never past hi), not a line to continue. Returns 0 after a fall back. */
static int recalibrate(uint64_t t, uint64_t lo, uint64_t hi, int first)
{
	uint64_t mid = lo + (hi - lo) / 2;
	if (t <= last_tsc || hi <= last_lo || mid <= last_mid)
		goto bad;
	uint64_t rate = scale(mid - last_mid, t - last_tsc);
	if (!first) {
		uint64_t change = rate > last_rate ? rate - last_rate : last_rate - rate;
		if (change > last_rate / 1000000 * MAX_RATE_CHANGE_PPM)
			goto bad;
	}
	uint64_t fm = scale_up(hi - last_lo, t - last_tsc);
	fm += fm / 1000000 * MARGIN_PPM + 1;
	uint64_t m = fm - fm / 1000000 * STEER_PPM;
	uint64_t ours = first ? hi : current(t);
	if (ours < hi)
		ours = hi; /* never behind the floor (a step forward) */
	uint64_t span = mid - last_mid;
	uint64_t next = span * 2 < MAX_SPAN_NS ? span * 2 : MAX_SPAN_NS;
	publish(t, ours, m, hi, fm, (uint64_t)(((unsigned __int128)next << 32) / fm));
	last_tsc = t;
	last_lo = lo;
	last_mid = mid;
	last_rate = rate;
	return 1;
bad:
	if (!first)
		fall_back(t, lo);
	return 0;
}

/* calibrate: state 0 takes the first pair (or gives up on the TSC); state 1,
 * CAL_NS later, the second, and switches the clock to the TSC. */
static void calibrate(uint64_t now)
{
	if (atomic_exchange_explicit(&cal_busy, 1, memory_order_acquire))
		return;
	int saved = errno; /* reading sysfs may fail */
	int st = atomic_load_explicit(&cal_state, memory_order_relaxed);
	if (st == 0) {
		if (tsc_usable()) {
			uint64_t hi;
			pair(&last_tsc, &last_lo, &hi);
			last_mid = last_lo + (hi - last_lo) / 2;
			atomic_store_explicit(&cal_state, 1, memory_order_relaxed);
		} else {
			atomic_store_explicit(&cal_state, 2, memory_order_relaxed);
		}
	} else if (st == 1 && now - last_mid >= CAL_NS) {
		uint64_t t, lo, hi;
		pair(&t, &lo, &hi);
		uint64_t freq_mhz = (t - last_tsc) / ((lo - last_mid) / 1000 + 1);
		if (t > last_tsc && lo > last_mid && freq_mhz >= 100 && freq_mhz <= 20000 &&
		    recalibrate(t, lo, hi, 1))
			atomic_store_explicit(&gt_clock.mode, GT_CLOCK_TSC, memory_order_release);
		atomic_store_explicit(&cal_state, 2, memory_order_relaxed);
	}
	errno = saved;
	atomic_store_explicit(&cal_busy, 0, memory_order_release);
}

uint64_t gt_now_late(uint64_t value)
{
	if (atomic_exchange_explicit(&cal_busy, 1, memory_order_acquire))
		return value; /* being re-calibrated: the floor still holds */
	if (atomic_load_explicit(&gt_clock.mode, memory_order_relaxed) == GT_CLOCK_TSC) {
		uint64_t t, lo, hi;
		pair(&t, &lo, &hi);
		recalibrate(t, lo, hi, 0);
	}
	atomic_store_explicit(&cal_busy, 0, memory_order_release);
	uint64_t now = gt_now();
	return now > value ? now : value;
}

void gt_clock_check(void)
{
	if (atomic_load_explicit(&gt_clock.mode, memory_order_relaxed) != GT_CLOCK_TSC)
		return;
	if (atomic_exchange_explicit(&cal_busy, 1, memory_order_acquire))
		return;
	uint64_t t, lo, hi;
	pair(&t, &lo, &hi);
	if (!kernel_uses_tsc())
		fall_back(t, lo);
	else if (lo - last_mid >= CHECK_NS || t <= last_tsc || lo <= last_mid)
		recalibrate(t, lo, hi, 0);
	atomic_store_explicit(&cal_busy, 0, memory_order_release);
}

void gt_clock_after_fork(void)
{
	atomic_store_explicit(&cal_busy, 0, memory_order_relaxed);
	if (atomic_load_explicit(&gt_clock.mode, memory_order_relaxed) != GT_CLOCK_TSC)
		return;
	/* The forking thread may have been the only one left of a publish
	 * cut short: start again from a fresh pair (the child's trace is new,
	 * so the clock need not continue the parent's), both lines at the
	 * floor's rate, re-calibrated CAL_NS later. */
	uint64_t t, lo, hi;
	pair(&t, &lo, &hi);
	uint64_t fm = gt_clock.floor_mult;
	publish(t, hi, fm, hi, fm, (uint64_t)(((unsigned __int128)CAL_NS << 32) / fm));
	last_tsc = t;
	last_lo = lo;
	last_mid = lo + (hi - lo) / 2;
}

#else

void gt_clock_after_fork(void)
{
	atomic_store_explicit(&cal_busy, 0, memory_order_relaxed);
}

static void calibrate(uint64_t now)
{
	(void)now;
	atomic_store_explicit(&cal_state, 2, memory_order_relaxed);
}

void gt_clock_check(void)
{
}

#endif

uint64_t gt_now_slow(void)
{
	/* New parameters being written: they are valid in a moment. */
	while (atomic_load_explicit(&gt_clock.mode, memory_order_acquire) == GT_CLOCK_TSC) {
		uint32_t e = atomic_load_explicit(&gt_clock.end, memory_order_acquire);
		if (atomic_load_explicit(&gt_clock.begin, memory_order_relaxed) == e)
			return gt_now();
		__builtin_ia32_pause();
	}
	uint64_t now = gt_mono_ns() + gt_clock.mono_offset;
	if (__builtin_expect(atomic_load_explicit(&cal_state, memory_order_relaxed) != 2, 0)) {
		calibrate(now);
		if (atomic_load_explicit(&gt_clock.mode, memory_order_acquire) == GT_CLOCK_TSC)
			return gt_now();
	}
	return now;
}
