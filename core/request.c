/* request.c — the words that ask for a generation to end (request.h). */
#include "request.h"

#include "sys.h"

struct gt_requests gt_req;

_Atomic uint64_t gt_inline_due = UINT64_MAX;

void gt_request_poke(void)
{
	atomic_fetch_add(&gt_req.wake, 1);
	gt_futex_wake(&gt_req.wake, 1);
}

void gt_request_early(void)
{
	if (!atomic_exchange(&gt_req.early, 1) && atomic_load(&gt_req.flusher))
		gt_request_poke();
	if (!atomic_load(&gt_req.inline_off))
		atomic_store(&gt_inline_due, 0); /* no flusher: the next event switches */
}

int gt_on_flusher(void)
{
	int id = atomic_load(&gt_req.own_tid);
	return id != 0 && id == gt_gettid();
}
