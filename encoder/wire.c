/* wire.c — the event table: Go's name and timed-argument count per type.
 *
 * Checked against Go 1.27's internal/trace/tracev2/events.go and Go 1.23's
 * internal/trace/event/go122/event.go (identical for every type both know).
 * A wrong count here desynchronises the rest of a batch, so the unit tests
 * pin every entry. */
#include "wire.h"

#include <stddef.h>

struct ev_spec {
	const char *name;
	/* uvarint arguments after dt; -1 for structural events (no dt). */
	signed char nargs;
};

#define STRUCTURAL(n) { (n), -1 }
#define TIMED(n, a) { (n), (a) }

static const struct ev_spec base_specs[GT_EV_END_OF_GENERATION + 1] = {
	[GT_EV_BATCH] = STRUCTURAL("EventBatch"),
	[GT_EV_STACKS] = STRUCTURAL("Stacks"),
	[GT_EV_STACK] = STRUCTURAL("Stack"),
	[GT_EV_STRINGS] = STRUCTURAL("Strings"),
	[GT_EV_STRING] = STRUCTURAL("String"),
	[GT_EV_CPU_SAMPLES] = STRUCTURAL("CPUSamples"),
	[GT_EV_CPU_SAMPLE] = STRUCTURAL("CPUSample"), /* absolute time, not a dt */
	[GT_EV_FREQUENCY] = STRUCTURAL("Frequency"),
	[GT_EV_PROCS_CHANGE] = TIMED("ProcsChange", 2),
	[GT_EV_PROC_START] = TIMED("ProcStart", 2),
	[GT_EV_PROC_STOP] = TIMED("ProcStop", 0),
	[GT_EV_PROC_STEAL] = TIMED("ProcSteal", 3),
	[GT_EV_PROC_STATUS] = TIMED("ProcStatus", 2),
	[GT_EV_GO_CREATE] = TIMED("GoCreate", 3),
	[GT_EV_GO_CREATE_SYSCALL] = TIMED("GoCreateSyscall", 1),
	[GT_EV_GO_START] = TIMED("GoStart", 2),
	[GT_EV_GO_DESTROY] = TIMED("GoDestroy", 0),
	[GT_EV_GO_DESTROY_SYSCALL] = TIMED("GoDestroySyscall", 0),
	[GT_EV_GO_STOP] = TIMED("GoStop", 2),
	[GT_EV_GO_BLOCK] = TIMED("GoBlock", 2),
	[GT_EV_GO_UNBLOCK] = TIMED("GoUnblock", 3),
	[GT_EV_GO_SYSCALL_BEGIN] = TIMED("GoSyscallBegin", 2),
	[GT_EV_GO_SYSCALL_END] = TIMED("GoSyscallEnd", 0),
	[GT_EV_GO_SYSCALL_END_BLOCKED] = TIMED("GoSyscallEndBlocked", 0),
	[GT_EV_GO_STATUS] = TIMED("GoStatus", 3),
	[GT_EV_STW_BEGIN] = TIMED("STWBegin", 2),
	[GT_EV_STW_END] = TIMED("STWEnd", 0),
	[GT_EV_GC_ACTIVE] = TIMED("GCActive", 1),
	[GT_EV_GC_BEGIN] = TIMED("GCBegin", 2),
	[GT_EV_GC_END] = TIMED("GCEnd", 1),
	[GT_EV_GC_SWEEP_ACTIVE] = TIMED("GCSweepActive", 1),
	[GT_EV_GC_SWEEP_BEGIN] = TIMED("GCSweepBegin", 1),
	[GT_EV_GC_SWEEP_END] = TIMED("GCSweepEnd", 2),
	[GT_EV_GC_MARK_ASSIST_ACTIVE] = TIMED("GCMarkAssistActive", 1),
	[GT_EV_GC_MARK_ASSIST_BEGIN] = TIMED("GCMarkAssistBegin", 1),
	[GT_EV_GC_MARK_ASSIST_END] = TIMED("GCMarkAssistEnd", 0),
	[GT_EV_HEAP_ALLOC] = TIMED("HeapAlloc", 1),
	[GT_EV_HEAP_GOAL] = TIMED("HeapGoal", 1),
	[GT_EV_GO_LABEL] = TIMED("GoLabel", 1),
	[GT_EV_USER_TASK_BEGIN] = TIMED("UserTaskBegin", 4),
	[GT_EV_USER_TASK_END] = TIMED("UserTaskEnd", 2),
	[GT_EV_USER_REGION_BEGIN] = TIMED("UserRegionBegin", 3),
	[GT_EV_USER_REGION_END] = TIMED("UserRegionEnd", 3),
	[GT_EV_USER_LOG] = TIMED("UserLog", 4),
	[GT_EV_GO_SWITCH] = TIMED("GoSwitch", 2),
	[GT_EV_GO_SWITCH_DESTROY] = TIMED("GoSwitchDestroy", 2),
	[GT_EV_GO_CREATE_BLOCKED] = TIMED("GoCreateBlocked", 3),
	[GT_EV_GO_STATUS_STACK] = TIMED("GoStatusStack", 4),
	[GT_EV_EXPERIMENTAL_BATCH] = STRUCTURAL("ExperimentalBatch"),
	[GT_EV_SYNC] = STRUCTURAL("Sync"),
	/* Go marks ClockSnapshot as timed (it has a dt), although it is only
	 * legal inside a Sync batch. */
	[GT_EV_CLOCK_SNAPSHOT] = TIMED("ClockSnapshot", 3),
	[GT_EV_END_OF_GENERATION] = STRUCTURAL("EndOfGeneration"),
};

static const struct ev_spec exp_specs[GT_EV_MAX - GT_EV_SPAN + 1] = {
	[GT_EV_SPAN - GT_EV_SPAN] = TIMED("Span", 3),
	[GT_EV_SPAN_ALLOC - GT_EV_SPAN] = TIMED("SpanAlloc", 3),
	[GT_EV_SPAN_FREE - GT_EV_SPAN] = TIMED("SpanFree", 1),
	[GT_EV_HEAP_OBJECT - GT_EV_SPAN] = TIMED("HeapObject", 2),
	[GT_EV_HEAP_OBJECT_ALLOC - GT_EV_SPAN] = TIMED("HeapObjectAlloc", 2),
	[GT_EV_HEAP_OBJECT_FREE - GT_EV_SPAN] = TIMED("HeapObjectFree", 1),
	[GT_EV_GOROUTINE_STACK - GT_EV_SPAN] = TIMED("GoroutineStack", 2),
	[GT_EV_GOROUTINE_STACK_ALLOC - GT_EV_SPAN] = TIMED("GoroutineStackAlloc", 2),
	[GT_EV_GOROUTINE_STACK_FREE - GT_EV_SPAN] = TIMED("GoroutineStackFree", 1),
};

/* spec_of returns the table entry of type, or NULL for a number Go does not
 * define (0, 53..127, > 136). */
static const struct ev_spec *spec_of(unsigned type)
{
	const struct ev_spec *s = NULL;
	if (type < sizeof base_specs / sizeof base_specs[0])
		s = &base_specs[type];
	else if (type >= GT_EV_SPAN && type <= GT_EV_MAX)
		s = &exp_specs[type - GT_EV_SPAN];
	return s && s->name ? s : NULL;
}

int gt_ev_nargs(unsigned type)
{
	const struct ev_spec *s = spec_of(type);
	return s ? s->nargs : -1;
}

const char *gt_ev_name(unsigned type)
{
	const struct ev_spec *s = spec_of(type);
	return s ? s->name : "?";
}
