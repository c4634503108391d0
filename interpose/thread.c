/* thread.c — thread creation, joins and names.
 *
 * pthread_create starts the new thread in a trampoline that waits until the
 * creator has written GoCreate (so the new goroutine's GoStart can never
 * come before its creation), announces the thread, then runs the start
 * routine. The thread's exit is seen by a TLS-key destructor
 * (core/thread.h, gt_thread_on_exit), whatever way it exits.
 *
 * The new thread starts with every signal blocked and takes the mask it was
 * meant to have only in the trampoline, once its `inside` is raised: a
 * signal handler's wrapped call (malloc in a SIGALRM handler) arriving in
 * glibc's start code before the trampoline would otherwise announce the
 * thread a second time, as a thread the tracer did not see start. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "../core/flusher.h"
#include "../core/mem.h"
#include "../core/seal.h"
#include "../core/spans.h"
#include "interpose.h"
#include "../core/stack.h"

struct start {
	void *(*fn)(void *);
	void *arg;
	uintptr_t start_pc; /* the goroutine's function: fn, or std::thread's callable */
	uint64_t g;
	uint64_t gen;      /* generation of the GoCreate */
	uint64_t created;  /* its time */
	_Atomic int ready; /* 0 wait, 1 GoCreate written, 2 not written */
	sigset_t mask;     /* the signal mask the thread is meant to start with */
	struct gt_stack_hint stack; /* where its stack is, for the unwinder */
	uint32_t site_ref; /* pthread_create's stack, for the stack's span (core/spans.h) */
};

/* stack_span writes the new thread's stack as GoroutineStackAlloc and a
 * span of class GT_SPAN_STACK (core/spans.h): the size it was given (the
 * attributes' or the default), below the top of the block glibc mapped —
 * the page boundary above the thread's descriptor, as core/stack.c finds
 * it — or, for a stack the program supplied, its own range. The guard
 * page under it is no memory. */
static __attribute__((noinline)) void stack_span(const struct gt_stack_hint *h, uint32_t site_ref)
{
	if (!h->size || !gt_spans_on())
		return;
	uintptr_t top = h->user_top ? h->user_top & ~(uintptr_t)4095 : ((uintptr_t)pthread_self() | 4095) + 1;
	uintptr_t lo = h->user_top ? (h->user_top - h->size + 4095) & ~(uintptr_t)4095 : top - h->size;
	if (lo < top && top - lo <= h->size)
		gt_span_thread_stack(&gt_self, lo, top - lo, site_ref);
}

/* Not a tail call: its frame marks where the thread's stacks end. */
GT_START_FRAME __attribute__((noinline, optimize("no-optimize-sibling-calls"))) static void *trampoline(void *p)
{
	struct start *st = p;
	/* Until the thread is registered, a signal handler's wrapped call
	 * must pass through: raised before any signal can come in; and its
	 * stack's bounds known before a handler's capture reads it. */
	gt_self.inside++;
	gt_stack_thread_start(&gt_self, &st->stack);
	GT_REAL(pthread_sigmask)(SIG_SETMASK, &st->mask, NULL);
	while (!atomic_load_explicit(&st->ready, memory_order_acquire))
		GT_REAL(sched_yield)();
	void *(*fn)(void *) = st->fn;
	void *arg = st->arg;
	if (atomic_load_explicit(&st->ready, memory_order_relaxed) == 1) {
		gt_thread_begin(&gt_self, st->g, st->start_pc, st->gen, st->created);
		stack_span(&st->stack, st->site_ref);
	}
	gt_mem_free(st);
	gt_self.inside--;
	void *ret = fn(arg);
	__asm__ volatile("" ::: "memory");
	return ret;
}

/* std::thread starts every thread in libstdc++'s execute_native_thread_routine,
 * a local function stripped from Debian's libstdc++ (it named all of them
 * "libstdc++.so.6.0.30+0xd4490"), with a std::thread::_State as argument,
 * whose virtual _M_run (the Itanium vtable's third slot, after the two
 * destructors) runs the program's callable:
 * std::thread::_State_impl<std::thread::_Invoker<std::tuple<Worker>>>::_M_run().
 * A thread created by std::thread::_M_start_thread (the caller of
 * pthread_create, an exported function of libstdc++) starts, as a goroutine, at that _M_run; the frames of
 * execute_native_thread_routine are left off its stacks
 * (gt_stack_set_std_entry), so they end at _M_run as well. Anything else
 * starts at its start routine. */
#define STD_START_THREAD "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE"

static uintptr_t std_lo, std_hi; /* _M_start_thread's code, when linked */

/* gt_thread_std_init finds _M_start_thread once, from the constructor:
 * dlsym and dladdr take the loader's lock, which pthread_create must not
 * wait for (a constructor inside dlopen may wait for the thread). A
 * libstdc++ dlopen'ed later is not seen: its threads start at
 * execute_native_thread_routine's address. */
void gt_thread_std_init(void)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	void *p = dlsym(RTLD_DEFAULT, STD_START_THREAD);
	if (p && dladdr1(p, &di, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size) {
		std_lo = (uintptr_t)p;
		std_hi = std_lo + sym->st_size;
	}
}

static uintptr_t start_pc_of(void *(*fn)(void *), void *arg, uintptr_t ra)
{
	if (ra < std_lo || ra >= std_hi || !arg)
		return (uintptr_t)fn;
	void *const *vtable = *(void *const *const *)arg;
	uintptr_t run = vtable ? (uintptr_t)vtable[2] : 0;
	if (!run)
		return (uintptr_t)fn;
	gt_stack_set_std_entry((uintptr_t)fn);
	return run;
}

GT_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct gt_thread *t = gt_enter();
	if (!t)
		return GT_REAL(pthread_create)(th, attr, fn, arg);
	/* The program gets a second thread: from now on the flusher writes
	 * the generations (core/flusher.h). */
	gt_flusher_ensure();
	t->inside++;
	struct start *st = gt_mem_alloc(sizeof *st); /* tracer data: its own heap */
	if (st)
		gt_stack_hint(attr, &st->stack);
	t->inside--;
	if (!st)
		return GT_REAL(pthread_create)(th, attr, fn, arg);
	st->fn = fn;
	st->arg = arg;
	st->site_ref = 0;
	st->start_pc = start_pc_of(fn, arg, GT_RA());
	st->g = gt_new_goroutine();
	st->gen = 0;
	atomic_store_explicit(&st->ready, 0, memory_order_relaxed);
	/* The thread starts with everything blocked (see the top). Its mask is
	 * the creator's, or the one its attributes give. */
	sigset_t all, old;
	sigfillset(&all);
	GT_REAL(pthread_sigmask)(SIG_SETMASK, &all, &old);
	st->mask = old;
	pthread_attr_t *a = (pthread_attr_t *)attr;
	sigset_t given;
	int attr_mask = a && pthread_attr_getsigmask_np(a, &given) == 0;
	if (attr_mask) { /* the caller's attributes, put back below */
		sigset_t sb;
		int stripped;
		st->mask = *gt_sample_filter(&given, &sb, &stripped); /* never the CPU sampler's signal */
		pthread_attr_setsigmask_np(a, &all);
	}
	/* Before the thread exists: its GoStart may go back to its beginning. */
	st->created = gt_now();
	int r = GT_REAL(pthread_create)(th, attr, trampoline, st);
	if (attr_mask)
		pthread_attr_setsigmask_np(a, &st->mask);
	GT_REAL(pthread_sigmask)(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		t->inside++;
		gt_mem_free(st);
		t->inside--;
		return r;
	}
	uint64_t gen = gt_create(t, st->g, st->start_pc, GT_SITE(pthread_create), st->created,
				 gt_spans_on() ? &st->site_ref : NULL);
	st->gen = gen;
	atomic_store_explicit(&st->ready, gen ? 1 : 2, memory_order_release);
	return 0;
}

/* A join that would wait: try first, block only when the thread still runs. */
#define JOIN_WAIT(site, timed, call)                                                   \
	do {                                                                    \
		struct gt_thread *t = gt_enter();                               \
		if (!t)                                                         \
			return call;                                            \
		int r = GT_REAL(pthread_tryjoin_np)(th, ret);                   \
		if (r != EBUSY)                                                 \
			return r;                                               \
		t->wait_timed = (timed); /* core/deadlock.h */                  \
		int blocked = gt_block(t, GT_STR_SYNC_JOIN, GT_SITE(site), (uintptr_t)th);    \
		r = call;                                                       \
		t->wait_timed = 0;                                              \
		if (blocked)                                                      \
			gt_unblock(t, r == 0);                                           \
		return r;                                                       \
	} while (0)

GT_EXPORT int pthread_join(pthread_t th, void **ret)
{
	JOIN_WAIT(pthread_join, 0, GT_REAL(pthread_join)(th, ret));
}

GT_EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime)
{
	JOIN_WAIT(pthread_timedjoin_np, 1, GT_REAL(pthread_timedjoin_np)(th, ret, abstime));
}

GT_EXPORT int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clk, const struct timespec *abstime)
{
	JOIN_WAIT(pthread_clockjoin_np, 1, GT_REAL(pthread_clockjoin_np)(th, ret, clk, abstime));
}

/* A name is labelled once, by the outermost call that set it: the real
 * pthread_setname_np runs with `inside` raised, so a libc whose
 * pthread_setname_np names its own thread through the exported prctl
 * (glibc calls its internal one, or writes /proc/self/task/TID/comm for
 * another thread) labels nothing a second time. */
GT_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	gt_self.inside++;
	int r = GT_REAL(pthread_setname_np)(th, name);
	gt_self.inside--;
	struct gt_thread *t;
	if (r == 0 && (t = gt_enter()) != NULL)
		gt_label(t, th, name);
	return r;
}

/* prctl(PR_SET_NAME, name) names the calling thread: labelled as
 * pthread_setname_np's names are, once the kernel took it. The label is the
 * name's first 15 bytes, what the kernel keeps and read (so they are
 * readable); no second system call. PR_SET_SECCOMP with SECCOMP_MODE_STRICT
 * takes the thread out of the trace first (core/seal.h). Every other option
 * is the call alone. */
GT_EXPORT int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long);
	unsigned long a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long);
	unsigned long a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (__builtin_expect(option == PR_SET_SECCOMP, 0) && a2 == SECCOMP_MODE_STRICT)
		gt_seal_before_strict(GT_SITE(prctl));
	int r = GT_REAL(prctl)(option, a2, a3, a4, a5);
	if (__builtin_expect(option == PR_SET_NAME, 0) && r == 0) {
		struct gt_thread *t = gt_enter();
		if (t)
			gt_label(t, pthread_self(), (const char *)a2);
	}
	return r;
}
