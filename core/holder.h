/* holder.h — who holds the lock a thread is about to wait for.
 *
 * glibc keeps the owner's kernel thread id in the lock itself: a mutex's
 * __data.__owner (every mutex kind sets it once taken; robust and PI
 * mutexes may carry FUTEX_OWNER_DIED / FUTEX_WAITERS bits, masked off),
 * a rwlock's __data.__cur_writer while a writer holds it. On the contended
 * path only (the trylock said EBUSY), the waiter reads that id, finds the
 * traced thread with it (its goroutine id, and its name or start
 * function), and writes the holder carrier just before its GoBlock: a
 * UserLog on the waiting goroutine, task 0, category "gotrace.holder",
 * message "held by G<goid> <name or start function> (tid <tid>)", with the
 * GoBlock's stack (the same site). Nothing is written when the lock was
 * released meanwhile (owner 0) or its owner is not a traced thread.
 * docs/design.md, "Lock holders". */
#ifndef GT_HOLDER_H
#define GT_HOLDER_H

#include <pthread.h>
#include <stdint.h>

#include "thread.h"

#define GT_HOLDER_CATEGORY "gotrace.holder"

/* glibc's robust/PI flag bits in a lock word (FUTEX_TID_MASK keeps the id). */
#define GT_HOLDER_TID_MASK 0x3fffffff

/* gt_holder_note: t (running, not inside the tracer) is about to block at
 * site on a lock whose owner has thread id tid (0: none); writes the
 * holder UserLog when tid is a traced thread. Takes gt.reg_lock briefly,
 * outside any write section. Preserves errno. */
void gt_holder_note(struct gt_thread *t, int tid, uintptr_t site);

/* gt_holder_mutex_owner / gt_holder_rwlock_writer: the lock's owner as
 * glibc records it (0: none known). A racy read: the owner may change
 * right after, which only makes the carrier name the holder at the read. */
static inline int gt_holder_mutex_owner(pthread_mutex_t *m)
{
	int o = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
	if (o >= 0x7ffffffe) /* glibc's INCONSISTENT / NOTRECOVERABLE markers */
		return 0;
	return o & GT_HOLDER_TID_MASK;
}

static inline int gt_holder_rwlock_writer(pthread_rwlock_t *l)
{
	return (int)(__atomic_load_n(&l->__data.__cur_writer, __ATOMIC_RELAXED) & GT_HOLDER_TID_MASK);
}

/* The one line each wait path calls, before its gt_block. */
static inline void gt_holder_mutex(struct gt_thread *t, pthread_mutex_t *m, uintptr_t site)
{
	gt_holder_note(t, gt_holder_mutex_owner(m), site);
}

static inline void gt_holder_rwlock(struct gt_thread *t, pthread_rwlock_t *l, uintptr_t site)
{
	gt_holder_note(t, gt_holder_rwlock_writer(l), site);
}

#endif
