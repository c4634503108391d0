/* pressure.c — waiting for the flusher when the event budget is used up
 * (pressure.h). */
#include "pressure.h"

#include <time.h>

#include "chunk.h"
#include "clock.h"
#include "log.h"
#include "request.h"
#include "sys.h"
#include "tracer.h"

static _Atomic uint64_t waited_ns;  /* total time threads waited */
static _Atomic uint64_t waits;      /* how many waits */
static _Atomic uint64_t dropped;    /* events given up when tracing stopped */
static _Atomic int reported;

#define POLL_NS 50000000ull /* re-check progress every 50 ms */

int gt_pressure_wait(void)
{
	if (!atomic_load(&gt_req.flusher))
		return 0; /* nobody to wait for: the trace is written at exit */
	uint64_t start = gt_now(), progress_at = start;
	uint64_t returned = gt_chunk_returned();
	gt_request_early(); /* the queued chunks may all be this generation's */
	while (atomic_load_explicit(&gt_chunk_pressure, memory_order_acquire)) {
		if (!atomic_load(&gt_req.flusher))
			return 0; /* it stopped (one thread left): this thread switches (core/inline.h) */
		if (!atomic_load_explicit(&gt.on, memory_order_relaxed)) {
			atomic_fetch_add(&dropped, 1);
			return -1;
		}
		uint64_t now = gt_now(), r = gt_chunk_returned();
		if (r != returned) {
			returned = r;
			progress_at = now;
		} else if (now - progress_at > GT_PRESSURE_STUCK_NS) {
			if (atomic_exchange(&gt.on, 0))
				gt_warn("the trace writer made no progress for %llu s (output stuck?); tracing stops, the program goes on",
					(unsigned long long)(GT_PRESSURE_STUCK_NS / 1000000000ull));
			atomic_fetch_add(&dropped, 1);
			return -1;
		}
		struct timespec rel = { 0, (long)POLL_NS };
		gt_futex_wait((_Atomic int *)&gt_chunk_pressure, 1, &rel);
	}
	atomic_fetch_add(&waited_ns, gt_now() - start);
	atomic_fetch_add(&waits, 1);
	return 0;
}

void gt_pressure_report(void)
{
	uint64_t w = atomic_load(&waits), d = atomic_load(&dropped);
	if ((!w && !d) || atomic_exchange(&reported, 1))
		return;
	if (w)
		gt_warn("the trace writer fell behind: threads waited %.3f s in all (%llu waits) for the %llu MB event buffer (GOTRACE_BUFFER)",
			(double)atomic_load(&waited_ns) / 1e9, (unsigned long long)w,
			(unsigned long long)((gt.buffer_chunks * (uint64_t)GT_CHUNK_SIZE) >> 20));
	if (d)
		gt_warn("%llu events were dropped when tracing stopped", (unsigned long long)d);
}

void gt_pressure_forget_after_fork(void)
{
	atomic_store(&waited_ns, 0);
	atomic_store(&waits, 0);
	atomic_store(&dropped, 0);
	atomic_store(&reported, 0);
}
