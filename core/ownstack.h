/* ownstack.h — running the tracer's heavy work on a stack of its own.
 *
 * A generation switch symbolizes with libdw and encodes tables: tens of KiB
 * of stack, more than a program's thread may have (16 KiB thread stacks
 * exist). When a program thread does that work itself (core/inline.c), it
 * runs here instead, on a 1 MiB stack mapped on first use, with every
 * signal blocked: no handler of the program runs on it, and no handler can
 * see the descriptors the work opens and closes. One at a time: the caller
 * holds gt.advance_lock. */
#ifndef GT_OWNSTACK_H
#define GT_OWNSTACK_H

/* gt_ownstack_run calls fn(arg) on the tracer's stack with all signals
 * blocked, and restores the caller's stack and signal mask. Returns 0, or -1
 * (fn not called) when the stack cannot be mapped. Preserves errno. */
int gt_ownstack_run(void (*fn)(void *), void *arg);

/* gt_ownstack_forget_after_fork: the child keeps the mapping (fork copies
 * it); nothing to do but documented for symmetry. */

#endif
