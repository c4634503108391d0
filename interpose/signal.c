/* signal.c — sigaction and signal pass straight through; the only thing
 * watched is a program taking the flight recorder's snapshot signal for
 * itself, which it may (its handler wins), but which ends snapshots: one
 * warning says so and how to pick another signal. */
#include <signal.h>

#include "../core/log.h"
#include "../core/tracer.h"
#include "interpose.h"

static void watch(int sig, int takes_over)
{
	static _Atomic int warned;
	if (!takes_over || !gt.flight_bytes || sig != gt.flight_signal || gt_self.inside)
		return;
	if (!atomic_exchange(&warned, 1))
		gt_warn("flight recorder: the program installed its own handler for signal %d; "
			"set GOTRACE_FLIGHT_SIGNAL to another signal for snapshots", sig);
}

GT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	watch(sig, act != NULL);
	return GT_REAL(sigaction)(sig, act, old);
}

GT_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	watch(sig, 1);
	return GT_REAL(signal)(sig, handler);
}
