/* test_engine_fixture.c — the engine started into a memfd, and the
 * wrappers' side of the core's event functions (test_engine_fixture.h).
 * Each function below follows its interpose/ counterpart step for step,
 * with the real libc function called directly (this executable has no
 * wrappers). */
#include "test_engine_fixture.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/annotate.h"
#include "core/config.h"
#include "core/emit.h"
#include "core/engine.h"
#include "core/flusher.h"
#include "core/heap.h"
#include "core/heapset.h"
#include "core/stack.h"
#include "core/sys.h"

static int memfd = -1;

/* options fills cfg from "GOTRACE_NAME=value" strings. */
static void options(struct gt_config *cfg, const char *const *opts)
{
	gt_config_defaults(cfg);
	for (; opts && *opts; opts++) {
		const char *eq = strchr(*opts, '=');
		cr_assert(eq, "option %s", *opts);
		int found = 0;
		for (int o = 0; o < GT_OPT_COUNT; o++) {
			if (strncmp(gt_config_options[o].name, *opts, (size_t)(eq - *opts)) == 0 &&
			    gt_config_options[o].name[eq - *opts] == 0) {
				cr_assert_eq(gt_config_set(cfg, (enum gt_opt)o, eq + 1), 0, "option %s", *opts);
				found = 1;
			}
		}
		cr_assert(found, "no option %s", *opts);
	}
}

void ex_start_path(const char *const *opts, const char *pattern)
{
	struct gt_config cfg;
	options(&cfg, opts);
	cr_assert_eq(gt_config_set(&cfg, GT_OPT_OUT, pattern), 0);
	static char *argv[] = { "engine-test", NULL };
	struct gt_engine_output out = { .fd = -1 };
	cr_assert_eq(gt_engine_start(&cfg, &out, 1, argv), 0);
}

void ex_start(const char *const *opts)
{
	struct gt_config cfg;
	options(&cfg, opts);
	memfd = memfd_create("engine-test.trace", MFD_CLOEXEC);
	cr_assert(memfd >= 0);
	static char *argv[] = { "engine-test", "--with", "two words", NULL };
	struct gt_engine_output out = { .fd = memfd, .later_image = 0, .claimed = NULL };
	cr_assert_eq(gt_engine_start(&cfg, &out, 3, argv), 0);
}

void ex_stop(void)
{
	gt_engine_stop();
}

int ex_fd(void)
{
	return memfd;
}

/* The wrapper's frame: its own address, and its caller and CFA for the
 * remembered stacks (interpose/interpose.h, GT_SITE). */
#define EX_SITE(fn)                                                                      \
	(gt_self.site_ra = (uintptr_t)__builtin_return_address(0),                        \
	 gt_self.site_cfa = (uintptr_t)__builtin_dwarf_cfa(), (uintptr_t)(fn))

/* --- threads (interpose/thread.c) ------------------------------------------ */

struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t g, gen, created;
	_Atomic int ready; /* 0 wait, 1 GoCreate written, 2 not written */
	sigset_t mask;
	struct gt_stack_hint stack;
};

__attribute__((noinline)) static void *trampoline(void *p)
{
	struct start *st = p;
	gt_self.inside++;
	gt_stack_thread_start(&gt_self, &st->stack);
	pthread_sigmask(SIG_SETMASK, &st->mask, NULL);
	while (!atomic_load_explicit(&st->ready, memory_order_acquire))
		sched_yield();
	void *(*fn)(void *) = st->fn;
	void *arg = st->arg;
	if (atomic_load_explicit(&st->ready, memory_order_relaxed) == 1)
		gt_thread_begin(&gt_self, st->g, (uintptr_t)fn, st->gen, st->created);
	free(st);
	gt_self.inside--;
	void *ret = fn(arg);
	__asm__ volatile("" ::: "memory");
	return ret;
}

__attribute__((noinline)) uint64_t ex_create(pthread_t *th, void *(*fn)(void *), void *arg)
{
	struct gt_thread *t = gt_enter();
	cr_assert(t, "the creating thread is traced");
	gt_flusher_ensure(); /* a second thread: the flusher writes from now on */
	struct start *st = calloc(1, sizeof *st);
	cr_assert(st);
	gt_stack_hint(NULL, &st->stack);
	st->fn = fn;
	st->arg = arg;
	st->g = gt_new_goroutine();
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &st->mask);
	st->created = gt_now();
	int r = pthread_create(th, NULL, trampoline, st);
	pthread_sigmask(SIG_SETMASK, &st->mask, NULL);
	cr_assert_eq(r, 0);
	uint64_t g = st->g;
	uint64_t gen = gt_create(t, g, (uintptr_t)fn, EX_SITE(ex_create), st->created, NULL);
	st->gen = gen;
	atomic_store_explicit(&st->ready, gen ? 1 : 2, memory_order_release);
	return g;
}

__attribute__((noinline)) void ex_join(pthread_t th)
{
	struct gt_thread *t = gt_enter();
	if (!t || pthread_tryjoin_np(th, NULL) != EBUSY) {
		if (!t)
			pthread_join(th, NULL);
		return;
	}
	int blocked = gt_block(t, GT_STR_SYNC_JOIN, EX_SITE(ex_join), (uintptr_t)th);
	int r = pthread_join(th, NULL);
	if (blocked)
		gt_unblock(t, r == 0);
}

/* --- a mutex (interpose/mutex.c) ------------------------------------------- */

__attribute__((noinline)) void ex_lock(pthread_mutex_t *m)
{
	if (pthread_mutex_trylock(m) != EBUSY)
		return;
	struct gt_thread *t = gt_enter();
	if (!t) {
		pthread_mutex_lock(m);
		return;
	}
	int blocked = gt_block(t, GT_STR_SYNC_MUTEX, EX_SITE(ex_lock), (uintptr_t)m);
	int r = pthread_mutex_lock(m);
	if (blocked)
		gt_unblock(t, r == 0);
}

__attribute__((noinline)) void ex_unlock(pthread_mutex_t *m)
{
	gt_release((uintptr_t)m, (uintptr_t)ex_unlock, (uintptr_t)__builtin_return_address(0));
	pthread_mutex_unlock(m);
}

/* --- calls that may wait in the kernel (interpose/io.c) --------------------- */

__attribute__((noinline)) long ex_read_call(int kind, int fd, void *buf, size_t n)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return read(fd, buf, n);
	gt_call_begin(t, kind, EX_SITE(ex_read_call), (uintptr_t)__builtin_return_address(0));
	long r = read(fd, buf, n);
	gt_call_end(t);
	return r;
}

/* A raw futex wait and wake, as interpose/syscall.c records them (issue 15
 * item 1). */
__attribute__((noinline)) long ex_futex_wait(_Atomic int *word, int val, const struct timespec *rel)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return gt_sys_call(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, rel);
	gt_call_begin_key(t, GT_CALL_FUTEX, EX_SITE(ex_futex_wait), (uintptr_t)__builtin_return_address(0),
			  (uintptr_t)word);
	long r = gt_sys_call(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, rel);
	gt_call_end_woken(t, r >= 0);
	return r;
}

__attribute__((noinline)) long ex_futex_wake(_Atomic int *word)
{
	gt_release((uintptr_t)word, (uintptr_t)ex_futex_wake, (uintptr_t)__builtin_return_address(0));
	return gt_sys_call(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1);
}

__attribute__((noinline)) void ex_yield(void)
{
	struct gt_thread *t = gt_enter();
	if (!t) {
		sched_yield();
		return;
	}
	gt_yield_begin(t, EX_SITE(ex_yield));
	sched_yield();
	gt_yield_end(t);
}

/* --- the heap (interpose/malloc.c) ----------------------------------------- */

__attribute__((noinline)) void *ex_malloc(size_t n)
{
	struct gt_thread *t = &gt_self;
	t->inside++;
	void *p = malloc(n);
	if (--t->inside == 0 && (int64_t)(t->heap_left -= n) < 0)
		return gt_heap_alloc_slow(p, n, (uintptr_t)ex_malloc, (uintptr_t)__builtin_return_address(0),
					  (uintptr_t)__builtin_dwarf_cfa());
	return p;
}

__attribute__((noinline)) void ex_free(void *p)
{
	struct gt_thread *t = &gt_self;
	if (p && gt_heapset_maybe(p)) {
		int in = t->inside++;
		if (gt_heap_mode == GT_HEAP_ALL) {
			if (!in)
				gt_heap_free_all(t, p);
		} else {
			gt_heap_freeing(t, p, in != 0);
		}
		free(p);
		t->inside--;
		return;
	}
	t->inside++;
	free(p);
	t->inside--;
}

/* --- names, barriers, annotations ------------------------------------------- */

__attribute__((noinline)) void ex_setname(pthread_t th, const char *name)
{
	cr_assert_eq(pthread_setname_np(th, name), 0);
	struct gt_thread *t = gt_enter();
	if (t)
		gt_label(t, th, name);
}

__attribute__((noinline)) int ex_prctl_setname(const char *name)
{
	int r = prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
	if (r == 0) {
		struct gt_thread *t = gt_enter();
		if (t)
			gt_label(t, pthread_self(), name);
	}
	return r;
}

__attribute__((noinline)) void ex_barrier_wait(int ms)
{
	struct gt_thread *t = gt_enter();
	uint64_t t0 = t ? gt_now() : 0;
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
	if (t)
		gt_waited(t, GT_STR_SYNC_BARRIER, EX_SITE(ex_barrier_wait), t0, GT_SHORT_WAIT_NS);
}

__attribute__((noinline)) uint64_t ex_task_begin(const char *name)
{
	struct gt_thread *t = gt_enter();
	return t ? gt_task_begin(t, name, 0, EX_SITE(ex_task_begin)) : 0;
}

__attribute__((noinline)) void ex_task_end(uint64_t task)
{
	struct gt_thread *t = gt_enter();
	if (t)
		gt_task_end(t, task, EX_SITE(ex_task_end));
}

__attribute__((noinline)) void ex_region(uint64_t task, const char *name, int begin)
{
	struct gt_thread *t = gt_enter();
	if (t && begin)
		gt_region_begin(t, task, name, EX_SITE(ex_region));
	else if (t)
		gt_region_end(t, task, name, EX_SITE(ex_region));
}

__attribute__((noinline)) void ex_log(uint64_t task, const char *category, const char *message)
{
	struct gt_thread *t = gt_enter();
	if (t)
		gt_user_log(t, task, category, message, EX_SITE(ex_log));
}
