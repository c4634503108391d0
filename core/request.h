/* request.h — asking, from below, for the current generation to end now.
 *
 * The chunk pool (core/chunk.c) and back-pressure (core/pressure.c) sit
 * below the modules that end generations — the flusher (core/flusher.c)
 * and a program thread (core/inline.c) — and never call up into them.
 * Like the Go runtime's trace writer, which wakes its reader by setting a
 * flag, they raise one here (gt_request_early), and the writers own the
 * waiting side:
 *  - the flusher sleeps in a futex on gt_req.wake (with its period as the
 *    timeout); a request bumps that word and wakes it, so the flag is seen
 *    at once; the flusher takes it with an exchange (gt_req.early);
 *  - while no flusher serves, a request sets gt_inline_due to 0, so the
 *    next event a program thread writes ends the generation.
 * The two "a flusher is there" words are the writers' own, published here:
 * the flusher sets gt_req.flusher, the inline switch gt_req.inline_off.
 * The flusher also publishes its thread id once its own descriptor table is
 * set up (gt_req.own_tid), for the modules below that open files only where
 * the program cannot see them (core/gen_spans.c: gt_on_flusher). */
#ifndef GT_REQUEST_H
#define GT_REQUEST_H

#include <stdatomic.h>
#include <stdint.h>

struct gt_requests {
	_Atomic int early;      /* end the current generation now: the flusher takes it */
	_Atomic int wake;       /* the futex word the flusher sleeps on: bumped by every poke */
	_Atomic int flusher;    /* a flusher runs and was not asked to stop (gt_flusher_running):
				   it is poked, and back-pressure waits for it */
	_Atomic int inline_off; /* a flusher has taken the program threads' switches over
				   (gt_inline_flusher): requests leave gt_inline_due alone */
	_Atomic int own_tid;    /* the flusher's thread id while it runs with its own
				   descriptor table, else 0 */
};

extern struct gt_requests gt_req;

/* When the next switch is due on the program's threads (core/inline.h):
 * gt_section_open compares each event's time with it (one load);
 * UINT64_MAX while a flusher runs. */
extern _Atomic uint64_t gt_inline_due;

/* gt_request_early: the current generation should end now (it holds
 * gt.gen_full_chunks full chunks already, or threads wait for room). Cheap;
 * any thread, any context. */
void gt_request_early(void);

/* gt_on_flusher: the calling thread is the flusher, with its own
 * descriptor table (a file it opens is no descriptor of the program's). */
int gt_on_flusher(void);

/* gt_request_poke wakes the flusher (if it sleeps) to look at its flags. */
void gt_request_poke(void);

#endif
