/* annotate.h — user tasks, regions, logs and labels (include/gotrace.h). */
#ifndef GT_ANNOTATE_H
#define GT_ANNOTATE_H

#include <stdint.h>

struct gt_thread;

uint64_t gt_task_begin(struct gt_thread *t, const char *name, uint64_t parent, uintptr_t site);
void gt_task_end(struct gt_thread *t, uint64_t task, uintptr_t site);
void gt_region_begin(struct gt_thread *t, uint64_t task, const char *name, uintptr_t site);
void gt_region_end(struct gt_thread *t, uint64_t task, const char *name, uintptr_t site);
void gt_user_log(struct gt_thread *t, uint64_t task, const char *category, const char *message, uintptr_t site);

#endif
