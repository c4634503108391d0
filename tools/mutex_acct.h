/* mutex_acct.h — the mutex profile of a trace, with Go's semantics: each
 * wait on a lock (sync.mutex, sync.rwlock) that another thread's release
 * ended is one contention, and its delay (GoBlock to GoUnblock) is charged
 * to the releasing stack — the GoUnblock's stack — each waiter's delay
 * counted, as Go's runtime (and Abseil's profiler) count it at Unlock.
 *
 * The releasing stack and thread, in both forms a gotrace trace has: the
 * GoUnblock written by the releaser, on its M while its goroutine runs,
 * with its whole stack (the releaser is the goroutine running on the
 * event's M); or the GoUnblock written by the waiter on its own M with no
 * goroutine running, whose stack is the waker's two-frame call site
 * (pthread_mutex_unlock ← caller). A GoUnblock whose stack is the single
 * "kernel.wakeup" frame had no releaser (a timeout, an error): no
 * contention. The holder charged: the releasing goroutine when the event
 * names one, else the goroutine the waiter's "gotrace.holder" log named
 * (core/holder.h), else none.
 *
 * Fed by the state machine of `gotrace stat` (stat_acct.c), so `gotrace
 * stat` and `gotrace mutex` share one reading of the trace. */
#ifndef TOOLS_MUTEX_ACCT_H
#define TOOLS_MUTEX_ACCT_H

#include <stddef.h>
#include <stdint.h>

#include "tools/heap_map.h"

#define TOOL_MUTEX_NONE UINT32_MAX

/* The contentions charged to one (releasing site, holder thread). */
struct tool_mcont {
	uint32_t site;   /* tool_sites site of the releasing stack */
	uint32_t holder; /* index in tool_stat.th, or TOOL_MUTEX_NONE */
	uint64_t count;
	uint64_t delay;  /* ns */
};

struct tool_mutex {
	struct tool_mcont *c;
	size_t n, cap;
	struct tool_hmap index;  /* site << 32 | holder -> index in c */
	uint64_t contentions, delay;
	uint64_t no_release;     /* lock waits that no release ended */
	uint64_t from_log;       /* contentions whose holder came from the gotrace.holder log */
};

void tool_mutex_init(struct tool_mutex *m);
void tool_mutex_free(struct tool_mutex *m);

/* tool_mutex_add counts one contention of delay ns. Returns 0, or -1 when
 * out of memory. */
int tool_mutex_add(struct tool_mutex *m, uint32_t site, uint32_t holder, uint64_t delay);

/* tool_mutex_holder_goid reads the goroutine id of a gotrace.holder log
 * message ("held by G<goid> ..."); 0 when the message is not one. */
uint64_t tool_mutex_holder_goid(const char *msg);

#endif
