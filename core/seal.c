/* seal.c — a thread leaves the trace before it loses its system calls
 * (seal.h). */
#include "seal.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "annotate.h"
#include "cpusample.h"
#include "emit.h"
#include "flusher.h"
#include "engine.h"
#include "signals.h"
#include "sys.h"
#include "tracer.h"

void gt_seal_before_strict(uintptr_t site)
{
	struct gt_thread *self = &gt_self;
	if (self->inside >= GT_INSIDE_SEALED)
		return;
	int saved = errno;
	/* Already in a mode (or no seccomp in the kernel): the call fails
	 * and the thread keeps its system calls. */
	if (gt_sys_call(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0) != 0) {
		errno = saved;
		return;
	}
	/* A vfork child shares the parent's memory (and trace state): it
	 * only stops using it. Its raise of `inside` below is the parent
	 * thread's too (the same thread-local storage): that thread stays
	 * untraced after the child is gone, which is better than a child
	 * killed by the tracer's next clock read. */
	struct gt_thread *t = gt_sigview_own_process() ? gt_enter() : NULL;
	if (t) {
		gt_user_log(t, 0, "gotrace",
			    "this thread enters seccomp strict mode: the tracer stops here (its events end)", site);
		if (!gt_flusher_running() && gt.nthreads <= 1) {
			atomic_store(&gt.on, 0);
			gt_flusher_final(10000);
			gt_lock(&gt.reg_lock);
			gt_cpu_thread_stop(t); /* its CPU-time timer */
			gt_unlock(&gt.reg_lock);
			gt_signals_give_back();
		} else {
			gt_engine_thread_leave();
		}
	}
	self->inside += GT_INSIDE_SEALED;
	errno = saved;
}
