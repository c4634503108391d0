/* goroutine.h — a traced thread's life as a goroutine: created by another,
 * beginning (or announced as the main one), named, ending. For the
 * interposers and the library's set-up (core/emit.h, core/init.c). */
#ifndef GT_GOROUTINE_H
#define GT_GOROUTINE_H

#include <pthread.h>
#include <stdint.h>

#include "thread.h"

/* gt_create: the thread created goroutine new_g starting at start_pc;
 * writes GoCreate at time at (read before the real creation, so the new
 * thread's first GoStart may go back to its very beginning; 0 = now) and
 * returns the generation it went into (0: not written, the new thread will
 * announce itself). kept, if not NULL, gets the GoCreate's stack kept for
 * the life of the process (core/heapsite.h: the new thread's stack span
 * names it), 0 when none: the stack taken once serves both. */
uint64_t gt_create(struct gt_thread *t, uint64_t new_g, uintptr_t start_pc, uintptr_t site, uint64_t at,
		   uint32_t *kept);

/* gt_new_goroutine reserves a goroutine id. */
uint64_t gt_new_goroutine(void);

/* gt_thread_begin: first moment of a thread we created: registers it as
 * goroutine g and writes ProcStart + GoStart (GoStatus first when the
 * creation was in an earlier generation than create_gen), stamped when the
 * thread began running (gt_began_running: its CPU time so far back from
 * now), never before its creation at created. */
void gt_thread_begin(struct gt_thread *t, uint64_t g, uintptr_t start_pc, uint64_t create_gen, uint64_t created);

/* gt_thread_end: the thread is exiting: GoDestroy + ProcStop, then it is
 * never traced again. */
void gt_thread_end(struct gt_thread *t);
/* gt_thread_end_call: the exiting thread's call pending in the kernel (a
 * thread cancelled inside read) ends now, as its return would have ended it;
 * first of the thread's last events (gt_thread_end calls it too). */
void gt_thread_end_call(struct gt_thread *t);

/* gt_main_begin: announces the main thread (the constructor's thread) as
 * goroutine 1 in the first generation, running since ts. */
void gt_main_begin(struct gt_thread *t, uint64_t ts);

/* gt_label: the calling thread set the name of thread th. */
void gt_label(struct gt_thread *t, pthread_t th, const char *name);

#endif
