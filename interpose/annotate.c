/* annotate.c — the functions behind include/gotrace.h (weak references in
 * the program, resolved to these when the library is preloaded). */
#include "../core/annotate.h"
#include "interpose.h"

GT_EXPORT uint64_t gotrace_task_begin_impl(const char *name, uint64_t parent)
{
	struct gt_thread *t = gt_enter();
	return t ? gt_task_begin(t, name, parent, GT_SITE(gotrace_task_begin_impl)) : 0;
}

GT_EXPORT void gotrace_task_end_impl(uint64_t task)
{
	struct gt_thread *t = gt_enter();
	if (t && task)
		gt_task_end(t, task, GT_SITE(gotrace_task_end_impl));
}

GT_EXPORT void gotrace_region_begin_impl(uint64_t task, const char *name)
{
	struct gt_thread *t = gt_enter();
	if (t)
		gt_region_begin(t, task, name, GT_SITE(gotrace_region_begin_impl));
}

GT_EXPORT void gotrace_region_end_impl(uint64_t task, const char *name)
{
	struct gt_thread *t = gt_enter();
	if (t)
		gt_region_end(t, task, name, GT_SITE(gotrace_region_end_impl));
}

GT_EXPORT void gotrace_log_impl(uint64_t task, const char *category, const char *message)
{
	struct gt_thread *t = gt_enter();
	if (t)
		gt_user_log(t, task, category, message, GT_SITE(gotrace_log_impl));
}

GT_EXPORT void gotrace_set_label_impl(const char *label)
{
	struct gt_thread *t = gt_enter();
	if (t && label)
		gt_label(t, pthread_self(), label);
}
