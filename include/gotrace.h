/* gotrace.h — annotate a C or C++ program for gotrace (optional).
 *
 * Tasks, regions, logs and labels show in `go tool trace`'s "User-defined
 * tasks" and "User-defined regions" pages, in the timelines and in the
 * region-restricted profiles. A program using this header links and runs
 * normally without libgotrace.so: the functions behind it are weak
 * references that are null unless the library is preloaded, and each call
 * is then a test of one pointer.
 *
 *     uint64_t task = gotrace_task_begin("request", 0);
 *     gotrace_region_begin(task, "parse");
 *     ...
 *     gotrace_region_end(task, "parse");
 *     gotrace_log(task, "user", "alice");
 *     gotrace_task_end(task);
 *
 * Rules (Go's): regions nest per thread and must end on the thread that
 * began them, innermost first (a mismatched end closes the regions opened
 * inside it; an end with no matching begin is ignored); a task may end on
 * any thread. Strings are copied (at most 1024 bytes each). */
#ifndef GOTRACE_H
#define GOTRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t gotrace_task_begin_impl(const char *name, uint64_t parent) __attribute__((weak));
void gotrace_task_end_impl(uint64_t task) __attribute__((weak));
void gotrace_region_begin_impl(uint64_t task, const char *name) __attribute__((weak));
void gotrace_region_end_impl(uint64_t task, const char *name) __attribute__((weak));
void gotrace_log_impl(uint64_t task, const char *category, const char *message) __attribute__((weak));
void gotrace_set_label_impl(const char *label) __attribute__((weak));

/* gotrace_task_begin starts a task (a logical operation, e.g. a request)
 * under parent (0: none) and returns its id (0 when not traced). */
static inline uint64_t gotrace_task_begin(const char *name, uint64_t parent)
{
	return gotrace_task_begin_impl ? gotrace_task_begin_impl(name, parent) : 0;
}

/* gotrace_task_end ends a task, on any thread. */
static inline void gotrace_task_end(uint64_t task)
{
	if (gotrace_task_end_impl)
		gotrace_task_end_impl(task);
}

/* gotrace_region_begin / _end bracket a region of this thread's work,
 * within task (0: no task). */
static inline void gotrace_region_begin(uint64_t task, const char *name)
{
	if (gotrace_region_begin_impl)
		gotrace_region_begin_impl(task, name);
}

static inline void gotrace_region_end(uint64_t task, const char *name)
{
	if (gotrace_region_end_impl)
		gotrace_region_end_impl(task, name);
}

/* gotrace_log records a message under a category, within task (0: none). */
static inline void gotrace_log(uint64_t task, const char *category, const char *message)
{
	if (gotrace_log_impl)
		gotrace_log_impl(task, category, message);
}

/* gotrace_set_label labels this thread's goroutine ("G7 worker (label)"). */
static inline void gotrace_set_label(const char *label)
{
	if (gotrace_set_label_impl)
		gotrace_set_label_impl(label);
}

#ifdef __cplusplus
}
#endif

#endif
