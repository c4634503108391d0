/* deadlock.h — deadlocks reported while they happen (GOTRACE_DEADLOCK).
 *
 * The flusher looks at the registered threads' current waits (the state,
 * block_ts, wait_key, wait_reason and wait_timed of core/thread.h) and
 * builds the wait-for graph: a thread waiting on a mutex points at the
 * mutex's owner (glibc keeps its thread id in the mutex), on a rwlock held
 * for writing at its writer, in a join at the joined thread. Each thread
 * waits for at most one other, so a cycle is found by walking. Reported,
 * once, on stderr (lines starting "gotrace: "), then the trace so far is
 * written (a generation ends now; a flight-recorder snapshot):
 *  - a cycle (a thread re-locking a mutex it holds is one of length one)
 *    whose every thread has waited longer than the threshold, the same
 *    waits (same block_ts) at two looks a quarter threshold apart;
 *  - "all threads are asleep": every thread of the process is traced and
 *    blocked, longer than the threshold, in a wait that only another
 *    thread of the program can end (an untimed, process-private mutex,
 *    write-held rwlock, condition variable, join or barrier), also at two
 *    looks. A sleep, I/O, a readiness or signal wait, a semaphore (a
 *    signal handler may post it), a timed wait, a call pending in the
 *    kernel, or a running thread rules it out.
 * Nothing here runs on the program's threads, except the single-threaded
 * self-relock (gt_deadlock_relock): there is no flusher then.
 *
 * The objects are read with process_vm_readv on the own process: a waiter
 * may have returned and freed its mutex since it was seen, and such a read
 * fails instead of faulting. Without that system call (a sandbox) only
 * joins give edges. */
#ifndef GT_DEADLOCK_H
#define GT_DEADLOCK_H

#include <pthread.h>
#include <stdint.h>

/* The threshold (ns, 0: off) and whether to abort after a report;
 * set once by the engine from GOTRACE_DEADLOCK before any thread waits. */
extern uint64_t gt_deadlock_ns;
extern int gt_deadlock_abort;

/* gt_deadlock_poll: the flusher's look, when one is due at now. Returns
 * when the next look is due (UINT64_MAX: detection is off): a quarter of
 * the threshold after a look that saw a thread waiting that long, else when
 * the longest wait seen reaches the threshold, else half a threshold. */
uint64_t gt_deadlock_poll(uint64_t now);

/* gt_deadlock_relock: the calling thread t (traced, its GoBlock written)
 * waits on mutex m, which it holds itself, and no flusher runs (a single-
 * threaded program): the real lock would never return. It takes the real
 * lock with a time-out of the threshold; at the time-out it reports, writes
 * the trace so far, and then waits in the real untimed lock as the program
 * would have. Returns the lock's result, or -1 (nothing done) when the
 * case does not apply; gt_deadlock_self_held says whether it may. */
int gt_deadlock_relock(pthread_mutex_t *m);

/* gt_deadlock_self_held: detection is on, no flusher runs, and m is a
 * plain (normal or adaptive, not robust, PI or shared) mutex that the
 * calling thread (tid) holds. Two loads when detection is on. */
int gt_deadlock_alone(void);
static inline int gt_deadlock_self_held(const pthread_mutex_t *m, uint64_t tid)
{
	/* __kind: the type in bits 0-1 (0 normal, 3 adaptive), then robust
	 * (16), PI (32), PP (64) and process-shared (128) flags. */
	int kind = m->__data.__kind & 0xff;
	return __builtin_expect(gt_deadlock_ns != 0, 0) && (uint64_t)(unsigned)m->__data.__owner == tid &&
	       (kind == 0 || kind == 3) && gt_deadlock_alone();
}

#endif
