/* modlive.c — the module table unwinding threads read: publication,
 * hazard pointers, and rebuilding when modules come and go.
 *
 * Readers (gt_modules_enter/leave, on every unwind) store the table they
 * read in their thread's hazard slot and check it is still the published
 * one: no lock, no system call (with membarrier a compiler barrier; without
 * it a full fence, like a write section, core/section.h).
 *
 * Publishers serialize on pub_lock: store the new table, issue
 * membarrier(PRIVATE_EXPEDITED) (a full barrier on every thread), then wait
 * until no registered thread's hazard holds the old table, and only then
 * unmap it. A reader is never stopped by this (it never waits for the
 * publisher) and never takes long (an unwind is bounded). A reader that
 * never finishes — a signal handler that longjmp'd out of an unwind leaves
 * its thread's hazard set for good (and its tracer guard raised, so it never
 * unwinds again) — is waited for at most 1 s, after which the old table is
 * leaked, not unmapped: a bounded leak of one table per such thread and
 * change, never a read of freed memory.
 *
 * When the table changes:
 *   - gt_modules_refresh (each generation switch): when the loader's
 *     load/unload counters moved (dl_iterate_phdr);
 *   - dlclose (interpose/dl.c): before the real call, a table without the
 *     modules it may unmap is published (the permanent ones stay: loaded
 *     before the tracer started, never unloaded; the closed handle's own
 *     module goes even if it was) and its grace period waited for; after
 *     it, a full table;
 *   - modules a dlopen added since the last table are found without the
 *     table, through glibc's lock-free _dl_find_object (core/modules.h),
 *     except while a dlclose is in progress.
 * dlopen itself is not wrapped: glibc finds the caller's RUNPATH, $ORIGIN
 * and namespace from dlopen's return address, so a wrapper that calls the
 * real dlopen changes which libraries a program finds.
 *
 * Known gap: a module loaded before the tracer's constructor by another
 * library's dlopen, and unloaded as a dependency of a later dlclose of a
 * different handle, stays in the reduced table during that dlclose. */
#include "modules.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "clock.h"
#include "lock.h"
#include "modgone.h"
#include "real.h"
#include "sys.h"
#include "thread.h"
#include "tracer.h"

#ifndef MEMBARRIER_CMD_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#endif

static _Atomic(struct gt_modtab *) live;
static gt_lock_t pub_lock;
static unsigned closing;   /* dlcloses in progress (pub_lock) */
static uint64_t epoch;     /* the last table's (pub_lock) */
static int force_rebuild;  /* the next refresh rebuilds (pub_lock) */

const struct gt_modtab *gt_modules_enter(struct gt_thread *t)
{
	struct gt_modtab *m = atomic_load_explicit(&live, memory_order_acquire);
	for (;;) {
		atomic_store_explicit(&t->mod_hazard, (void *)m, memory_order_relaxed);
		/* The hazard store before the second load: a publisher that
		 * missed our hazard has published before this load. */
		if (gt.asym_fence)
			atomic_signal_fence(memory_order_seq_cst);
		else
			atomic_thread_fence(memory_order_seq_cst);
		struct gt_modtab *again = atomic_load_explicit(&live, memory_order_acquire);
		if (again == m)
			return m;
		m = again;
	}
}

void gt_modules_leave(struct gt_thread *t)
{
	atomic_store_explicit(&t->mod_hazard, NULL, memory_order_release);
}

static void fence_all_threads(void)
{
	if (gt.asym_fence && gt_sys_call(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return;
	gt.asym_fence = 0; /* readers fence themselves from now on */
	atomic_thread_fence(memory_order_seq_cst);
}

/* no_readers: no registered thread (other than the caller) reads old any
 * more; 0 when one still did after a second. */
static int no_readers(const struct gt_modtab *old)
{
	struct gt_thread *self = &gt_self;
	uint64_t deadline = 0;
	int ok = 1;
	gt_lock(&gt.reg_lock);
	for (struct gt_thread *t = gt.threads; t && ok; t = t->next) {
		if (t == self)
			continue; /* never inside an unwind while publishing */
		while (atomic_load_explicit(&t->mod_hazard, memory_order_acquire) == old) {
			uint64_t now = gt_now();
			if (!deadline)
				deadline = now + 1000000000ull;
			if (now > deadline) {
				ok = 0;
				break;
			}
			GT_REAL(sched_yield)();
		}
	}
	gt_unlock(&gt.reg_lock);
	return ok;
}

/* publish makes n the table (pre: pub_lock) and retires the old one. */
static void publish(struct gt_modtab *n)
{
	struct gt_modtab *old = atomic_exchange_explicit(&live, n, memory_order_seq_cst);
	if (!old)
		return;
	fence_all_threads();
	if (no_readers(old))
		gt_modtab_free(old);
}

static void child_after_fork(void)
{
	gt_lock_reset(&pub_lock);
	closing = 0;          /* a dlclose of another thread is gone */
	force_rebuild = 1;    /* its reduced table may be the live one */
	gt_modgone_after_fork();
}

void gt_modules_init(void)
{
	int saved = errno;
	gt_lock(&pub_lock);
	struct gt_modtab *t = gt_modtab_build(++epoch, NULL, 1);
	if (t)
		publish(t);
	gt_unlock(&pub_lock);
	pthread_atfork(NULL, NULL, child_after_fork);
	errno = saved;
}

/* rebuild publishes a fresh table (pre: pub_lock). */
static void rebuild(void)
{
	struct gt_modtab *cur = atomic_load_explicit(&live, memory_order_relaxed);
	struct gt_modtab *t = gt_modtab_build(++epoch, cur, 0);
	if (t)
		publish(t);
	force_rebuild = 0;
}

void gt_modules_refresh(void)
{
	int saved = errno;
	/* Never wait here: a dlclose in progress holds the lock only
	 * briefly, and the next switch refreshes again. */
	int c = 0;
	if (!atomic_compare_exchange_strong_explicit(&pub_lock.v, &c, 1, memory_order_acquire, memory_order_relaxed)) {
		errno = saved;
		return;
	}
	if (!closing && (force_rebuild || gt_modtab_changed(atomic_load_explicit(&live, memory_order_relaxed))))
		rebuild();
	gt_unlock(&pub_lock);
	errno = saved;
}

static struct gt_modgone *closing_begin(void *handle)
{
	struct gt_modgone *batch = NULL;
	int saved = errno;
	struct link_map *lm = NULL;
	uintptr_t base = 0;
	if (handle && dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm)
		base = lm->l_addr;
	gt_lock(&pub_lock);
	closing++;
	struct gt_modtab *cur = atomic_load_explicit(&live, memory_order_relaxed);
	/* What the call may unload, named later from its file (modgone.h). */
	batch = gt_modgone_begin(cur, base);
	if (cur) {
		struct gt_modtab *t = gt_modtab_only_permanent(cur, ++epoch, base);
		if (t) {
			publish(t);
		} else {
			/* No memory for a smaller table: none at all (the
			 * walk then follows frame pointers only). */
			atomic_store_explicit(&live, NULL, memory_order_seq_cst);
			fence_all_threads();
			if (no_readers(cur))
				gt_modtab_free(cur);
		}
	}
	gt_unlock(&pub_lock);
	errno = saved;
	return batch;
}

static void closing_end(struct gt_modgone *batch)
{
	int saved = errno;
	gt_modgone_end(batch);
	gt_lock(&pub_lock);
	if (closing > 0 && --closing == 0)
		rebuild();
	gt_unlock(&pub_lock);
	errno = saved;
}

int gt_modules_dlclose(void *handle)
{
	int (*real)(void *) = GT_REAL(dlclose); /* resolved before the bracket */
	/* The bracket's own work (realpath, dl_iterate_phdr) is the
	 * tracer's; the real call's (the library's destructors) the program's. */
	gt_self.inside++;
	struct gt_modgone *batch = closing_begin(handle);
	gt_self.inside--;
	int r = real(handle);
	gt_self.inside++;
	closing_end(batch);
	gt_self.inside--;
	return r;
}
