/* flusher.h — the background thread that ends a generation every period. */
#ifndef GT_FLUSHER_H
#define GT_FLUSHER_H

/* gt_flusher_start starts the thread with every signal blocked. 0 or errno. */
int gt_flusher_start(void);

/* gt_flusher_forget_after_fork: the child of fork has no flusher thread. */
void gt_flusher_forget_after_fork(void);

/* gt_flusher_generation_full asks for the current generation to end now:
 * it holds gt.gen_full_chunks full chunks already, or threads wait for
 * room (core/pressure.h). Cheap; any thread. */
void gt_flusher_generation_full(void);

/* gt_flusher_stop asks it to stop (it finishes a generation in progress). */
void gt_flusher_stop(void);

/* gt_flusher_final has the flusher write the final generation and waits for
 * it at most timeout_ms; safe in a signal handler (futexes only). Does the
 * work itself when the flusher is not running. */
void gt_flusher_final(int timeout_ms);

/* gt_flusher_running: the thread exists and was not asked to stop. */
int gt_flusher_running(void);

/* gt_flusher_snapshot asks for a flight-recorder snapshot; safe in a
 * signal handler (an atomic add and a futex wake). */
void gt_flusher_snapshot(void);

#endif
