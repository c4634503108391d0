/* test_writer_wire.c — the event table matches Go's tracev2 table entry by entry. */
#include <criterion/criterion.h>
#include <string.h>

#include "encoder/wire.h"

/* Transcribed from Go 1.27 internal/trace/tracev2/events.go (Args minus
 * "dt" for timed events; -1 for structural ones). Go 1.23's go122 table has
 * the same counts for types 1-49 and 128-136. */
static const struct {
	unsigned type;
	const char *name;
	int nargs;
} go_table[] = {
	{ 1, "EventBatch", -1 },
	{ 2, "Stacks", -1 },
	{ 3, "Stack", -1 },
	{ 4, "Strings", -1 },
	{ 5, "String", -1 },
	{ 6, "CPUSamples", -1 },
	{ 7, "CPUSample", -1 },
	{ 8, "Frequency", -1 },
	{ 9, "ProcsChange", 2 },
	{ 10, "ProcStart", 2 },
	{ 11, "ProcStop", 0 },
	{ 12, "ProcSteal", 3 },
	{ 13, "ProcStatus", 2 },
	{ 14, "GoCreate", 3 },
	{ 15, "GoCreateSyscall", 1 },
	{ 16, "GoStart", 2 },
	{ 17, "GoDestroy", 0 },
	{ 18, "GoDestroySyscall", 0 },
	{ 19, "GoStop", 2 },
	{ 20, "GoBlock", 2 },
	{ 21, "GoUnblock", 3 },
	{ 22, "GoSyscallBegin", 2 },
	{ 23, "GoSyscallEnd", 0 },
	{ 24, "GoSyscallEndBlocked", 0 },
	{ 25, "GoStatus", 3 },
	{ 26, "STWBegin", 2 },
	{ 27, "STWEnd", 0 },
	{ 28, "GCActive", 1 },
	{ 29, "GCBegin", 2 },
	{ 30, "GCEnd", 1 },
	{ 31, "GCSweepActive", 1 },
	{ 32, "GCSweepBegin", 1 },
	{ 33, "GCSweepEnd", 2 },
	{ 34, "GCMarkAssistActive", 1 },
	{ 35, "GCMarkAssistBegin", 1 },
	{ 36, "GCMarkAssistEnd", 0 },
	{ 37, "HeapAlloc", 1 },
	{ 38, "HeapGoal", 1 },
	{ 39, "GoLabel", 1 },
	{ 40, "UserTaskBegin", 4 },
	{ 41, "UserTaskEnd", 2 },
	{ 42, "UserRegionBegin", 3 },
	{ 43, "UserRegionEnd", 3 },
	{ 44, "UserLog", 4 },
	{ 45, "GoSwitch", 2 },
	{ 46, "GoSwitchDestroy", 2 },
	{ 47, "GoCreateBlocked", 3 },
	{ 48, "GoStatusStack", 4 },
	{ 49, "ExperimentalBatch", -1 },
	{ 50, "Sync", -1 },
	{ 51, "ClockSnapshot", 3 },
	{ 52, "EndOfGeneration", -1 },
	{ 128, "Span", 3 },
	{ 129, "SpanAlloc", 3 },
	{ 130, "SpanFree", 1 },
	{ 131, "HeapObject", 2 },
	{ 132, "HeapObjectAlloc", 2 },
	{ 133, "HeapObjectFree", 1 },
	{ 134, "GoroutineStack", 2 },
	{ 135, "GoroutineStackAlloc", 2 },
	{ 136, "GoroutineStackFree", 1 },
};

Test(wire, nargs_and_names_match_go)
{
	for (size_t i = 0; i < sizeof go_table / sizeof go_table[0]; i++) {
		unsigned t = go_table[i].type;
		cr_expect_eq(gt_ev_nargs(t), go_table[i].nargs, "type %u", t);
		cr_expect_str_eq(gt_ev_name(t), go_table[i].name, "type %u", t);
	}
}

Test(wire, undefined_types)
{
	size_t known = 0;
	for (unsigned t = 0; t < 300; t++) {
		bool in_table = false;
		for (size_t i = 0; i < sizeof go_table / sizeof go_table[0]; i++)
			in_table |= go_table[i].type == t;
		if (in_table) {
			known++;
			continue;
		}
		cr_expect_eq(gt_ev_nargs(t), -1, "type %u", t);
		cr_expect_str_eq(gt_ev_name(t), "?", "type %u", t);
	}
	cr_assert_eq(known, 52 + 9);
	cr_assert_eq(gt_ev_nargs(UINT32_MAX), -1);
}

Test(wire, timed_events_fit_max_args)
{
	for (unsigned t = 0; t <= GT_EV_MAX; t++)
		cr_assert_leq(gt_ev_nargs(t), GT_MAX_ARGS, "type %u", t);
}

Test(wire, enum_numbers_match_go)
{
	cr_assert_eq(GT_EV_GO_BLOCK, 20);
	cr_assert_eq(GT_EV_EXPERIMENTAL_BATCH, 49);
	cr_assert_eq(GT_EV_END_OF_GENERATION, 52);
	cr_assert_eq(GT_EV_HEAP_OBJECT_ALLOC, 132);
	cr_assert_str_eq(gt_ev_name(GT_EV_HEAP_OBJECT_ALLOC), "HeapObjectAlloc");
	cr_assert_str_eq(gt_ev_name(GT_EV_GO_BLOCK), "GoBlock");
}
