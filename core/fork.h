/* fork.h — fork: the parent's trace goes on undisturbed; the child writes a
 * trace of its own (its one thread, from generation 1). */
#ifndef GT_FORK_H
#define GT_FORK_H

/* gt_fork_install registers the fork handlers (once, in the constructor).
 * child_restart starts the child's own trace; it runs in the child's only
 * thread, after the handlers freed every tracer lock. */
void gt_fork_install(void (*child_restart)(void));

#endif
