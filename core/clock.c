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

/* The first calibration spans at least this long (its error is about
 * 20 ns / CAL_NS, 20 ppm), later checks at least CHECK_NS. */
#define CAL_NS 1000000ull
#define CHECK_NS 1000000ull
/* NTP slews CLOCK_MONOTONIC by at most 500 ppm, and the steering below adds
 * at most STEER_PPM: a TSC rate further than this from the last one means
 * the TSC (or the machine's idea of it) changed: fall back. */
#define STEER_PPM 500
#define MAX_RATE_CHANGE_PPM 2000

/* Calibration state: 0 nothing yet, 1 first pair taken, 2 done (TSC or not). */
static _Atomic int cal_state;
static _Atomic int cal_busy; /* one calibrator at a time; never waited for */
static uint64_t cal_tsc, cal_ns;   /* the first pair */
static uint64_t last_tsc, last_ns; /* the last pair used */
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
 * tries: *ns_mid is the middle of the tightest bracket, *ns_end its end. */
static void pair(uint64_t *tsc, uint64_t *ns_mid, uint64_t *ns_end)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 16; i++) {
		uint64_t a = gt_mono_ns();
		uint64_t c = rdtsc_fenced();
		uint64_t b = gt_mono_ns();
		if (b >= a && b - a < best) {
			best = b - a;
			*tsc = c;
			*ns_mid = a + (b - a) / 2;
			*ns_end = b;
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

/* invalidate makes readers take gt_now_slow (begin = end + 1). */
static void invalidate(void)
{
	uint32_t e = atomic_load_explicit(&gt_clock.end, memory_order_relaxed);
	atomic_store_explicit(&gt_clock.begin, e + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

/* publish sets new parameters under the seqlock and makes them valid. */
static void publish(uint64_t base_tsc, uint64_t base_ns, uint64_t mult)
{
	invalidate();
	gt_clock.base_tsc = base_tsc;
	gt_clock.base_ns = base_ns;
	gt_clock.mult = mult;
	atomic_store_explicit(&gt_clock.end, atomic_load_explicit(&gt_clock.begin, memory_order_relaxed),
			      memory_order_release);
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
			uint64_t end;
			pair(&cal_tsc, &cal_ns, &end);
			atomic_store_explicit(&cal_state, 1, memory_order_relaxed);
		} else {
			atomic_store_explicit(&cal_state, 2, memory_order_relaxed);
		}
	} else if (st == 1 && now - cal_ns >= CAL_NS) {
		uint64_t t, mid, end;
		pair(&t, &mid, &end);
		uint64_t freq_mhz = (t - cal_tsc) / ((mid - cal_ns) / 1000 + 1);
		if (t > cal_tsc && mid > cal_ns && freq_mhz >= 100 && freq_mhz <= 20000) {
			/* Start at the end of the bracket: never behind the
			 * CLOCK_MONOTONIC readings handed out so far. */
			publish(t, end, scale(mid - cal_ns, t - cal_tsc));
			last_tsc = t;
			last_ns = mid;
			atomic_store_explicit(&gt_clock.mode, GT_CLOCK_TSC, memory_order_release);
		}
		atomic_store_explicit(&cal_state, 2, memory_order_relaxed);
	}
	errno = saved;
	atomic_store_explicit(&cal_busy, 0, memory_order_release);
}

/* tsc_ns converts with the current parameters (the caller serializes
 * against publish). */
static uint64_t tsc_ns(uint64_t tsc)
{
	int64_t d = (int64_t)(tsc - gt_clock.base_tsc);
	if (d < 0)
		d = 0;
	return gt_clock.base_ns + (uint64_t)(((unsigned __int128)(uint64_t)d * gt_clock.mult) >> 32);
}

void gt_clock_check(void)
{
	if (atomic_load_explicit(&gt_clock.mode, memory_order_relaxed) != GT_CLOCK_TSC)
		return;
	if (atomic_exchange_explicit(&cal_busy, 1, memory_order_acquire))
		return;
	uint64_t t, n, end;
	pair(&t, &n, &end);
	uint64_t ours = tsc_ns(t);
	if (n - last_ns < CHECK_NS && t > last_tsc && n > last_ns)
		goto out; /* too soon to measure a rate well */
	uint64_t mult = gt_clock.mult;
	uint64_t rate = t > last_tsc && n > last_ns ? scale(n - last_ns, t - last_tsc) : 0;
	uint64_t change = rate > mult ? rate - mult : mult - rate;
	if (rate == 0 || change > mult / 1000000 * MAX_RATE_CHANGE_PPM || !kernel_uses_tsc()) {
		/* Fall back to CLOCK_MONOTONIC, continuing from where the TSC
		 * clock is (it may be ahead, never behind). */
		gt_clock.mono_offset = ours > n ? ours - n : 0;
		atomic_store_explicit(&gt_clock.mode, GT_CLOCK_MONO, memory_order_release);
		invalidate();
		goto out;
	}
	/* Follow CLOCK_MONOTONIC's rate over the last interval, and steer the
	 * offset between the two clocks towards 0 over an interval as long,
	 * by at most STEER_PPM. */
	uint64_t span = n - last_ns;
	int64_t off = (int64_t)(ours - n);
	int64_t lim = (int64_t)(span / 1000000 * STEER_PPM);
	if (off > lim)
		off = lim;
	if (off < -lim)
		off = -lim;
	publish(t, ours, scale((uint64_t)((int64_t)span - off), t - last_tsc));
	last_tsc = t;
	last_ns = n;
out:
	atomic_store_explicit(&cal_busy, 0, memory_order_release);
}

void gt_clock_after_fork(void)
{
	atomic_store_explicit(&cal_busy, 0, memory_order_relaxed);
	if (atomic_load_explicit(&gt_clock.mode, memory_order_relaxed) != GT_CLOCK_TSC)
		return;
	/* The forking thread may have been the only one left of a publish
	 * cut short: start again from a fresh pair (the child's trace is new,
	 * so the clock need not continue the parent's). */
	uint64_t t, n, end;
	pair(&t, &n, &end);
	publish(t, end, gt_clock.mult);
	last_tsc = t;
	last_ns = n;
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
