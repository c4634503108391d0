/* owntable.h — a few system calls with a descriptor table of the tracer's.
 *
 * A program thread that writes a generation or maps a file to symbolize
 * opens a descriptor for a moment. When every slot of the program's table is
 * taken (RLIMIT_NOFILE all in use: EMFILE), that work runs in a short-lived
 * task instead: clone(CLONE_VM | CLONE_VFORK) without CLONE_FILES gives it a
 * copy of the table, in which it closes everything but 0-2 first, so it has
 * room. It shares our memory (a mapping it makes stays ours), is not a
 * thread of the program (not in /proc/self/task), delivers no signal when it
 * ends (exit signal 0; wait() without __WALL does not see it), and the
 * caller waits for it (CLONE_VFORK). Closing its copies releases no lock of
 * the program's: POSIX record locks belong to the table that took them. */
#ifndef GT_OWNTABLE_H
#define GT_OWNTABLE_H

/* gt_owntable_run runs fn(arg) in such a task and returns its result, or
 * -1 when no task could be made (or one is running already). fn may make
 * system calls and touch memory only: no locks, no malloc, no stdio. The
 * caller's errno is kept. */
int gt_owntable_run(int (*fn)(void *), void *arg);

#endif
