/* test_engine_events.c — the engine's event paths driven by real threads
 * (blocks and wake-ups, joins, calls that wait in the kernel, yields) into
 * a memfd, judged with the project's reader. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/advance.h"
#include "core/call.h"
#include "core/stack.h"
#include "core/thread.h"
#include "core/wake.h"
#include "encoder/wire.h"
#include "test_engine_fixture.h"

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

Test(engine_events, main_goroutine_and_identity)
{
	ex_start(NULL);
	ex_yield();
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_eq(t->version, 23);
	cr_assert_eq(t->first_gen, 1);
	cr_assert_eq(t->syncs, t->gens, "every generation has its sync batch");
	/* The main thread is goroutine 1, running from the first generation. */
	cr_assert_lt(ex_next(t, 0, GT_EV_GO_STOP, 1), t->nev);
	/* Which process this is, in every generation's strings (the command
	 * line as /proc/self/cmdline shows it at each switch). */
	char want[64];
	snprintf(want, sizeof want, "gotrace.process pid=%d ", (int)getpid());
	unsigned found = 0;
	for (size_t i = 0; i < t->nstr; i++)
		found += strncmp(t->str[i].s, want, strlen(want)) == 0 && strstr(t->str[i].s, " cmd=");
	cr_assert_eq(found, t->gens, "the identity string in each generation");
	/* The yield's stop: reason sched_yield, stack leaf the wrapper. */
	size_t i = ex_next(t, 0, GT_EV_GO_STOP, 1);
	cr_assert_str_eq(ex_string(t, t->ev[i].gen, t->ev[i].args[0]), "sched_yield");
	cr_assert_str_eq(ex_leaf(t, &t->ev[i], 1), "ex_yield");
	cr_assert_eq(t->ev[ex_next(t, i, GT_EV_GO_START, 0)].args[0], 1, "goroutine 1 goes on");
	ex_free_trace(t);
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int holding;

static void *contender(void *arg)
{
	(void)arg;
	while (!holding)
		sleep_ms(1);
	ex_lock(&mu); /* waits until the main thread unlocks */
	ex_unlock(&mu);
	return NULL;
}

Test(engine_events, mutex_block_and_wake_up)
{
	ex_start((const char *const[]){ "GOTRACE_PERIOD=50ms", NULL });
	ex_lock(&mu);
	pthread_t th;
	uint64_t g = ex_create(&th, contender, NULL);
	cr_assert_gt(g, 1);
	holding = 1;
	while (!gt_has_waiters((uintptr_t)&mu)) /* the contender blocks */
		sleep_ms(1);
	sleep_ms(60); /* a generation ends meanwhile */
	ex_unlock(&mu);
	ex_join(th);
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_gt(t->gens, 1);
	/* GoCreate by goroutine 1, of g, at the create wrapper. */
	size_t c = ex_next(t, 0, GT_EV_GO_CREATE, 1);
	cr_assert_lt(c, t->nev);
	cr_assert_eq(t->ev[c].args[0], g);
	cr_assert_str_eq(ex_leaf(t, &t->ev[c], 2), "ex_create");
	/* The thread's life, in order: it starts, blocks on the mutex, is
	 * woken by the unlock, runs, and ends. */
	size_t s = ex_next(t, c, GT_EV_GO_START, g);
	size_t b = ex_next(t, s, GT_EV_GO_BLOCK, g);
	cr_assert_lt(b, t->nev);
	cr_assert_str_eq(ex_string(t, t->ev[b].gen, t->ev[b].args[0]), "sync.mutex");
	cr_assert_str_eq(ex_leaf(t, &t->ev[b], 1), "ex_lock");
	size_t u = b;
	while ((u = ex_next(t, u + 1, GT_EV_GO_UNBLOCK, 0)) < t->nev && t->ev[u].args[0] != g)
		;
	cr_assert_lt(u, t->nev, "the wake-up of %llu", (unsigned long long)g);
	/* The waker's stack: the unlock that released the mutex. */
	cr_assert_str_eq(ex_leaf(t, &t->ev[u], 2), "ex_unlock");
	cr_assert_geq(t->ev[u].ts, t->ev[b].ts);
	size_t d = ex_next(t, u, GT_EV_GO_DESTROY, g);
	cr_assert_lt(d, t->nev, "the thread's end");
	/* The join that waited: goroutine 1 blocked on sync.join. */
	size_t j = ex_next(t, 0, GT_EV_GO_BLOCK, 1);
	while (j < t->nev && strcmp(ex_string(t, t->ev[j].gen, t->ev[j].args[0]), "sync.join") != 0)
		j = ex_next(t, j + 1, GT_EV_GO_BLOCK, 1);
	if (j < t->nev)
		cr_assert_str_eq(ex_leaf(t, &t->ev[j], 1), "ex_join");
	ex_free_trace(t);
}

static int pipefd[2];

static _Atomic int reads_begun; /* reads the test body began */

/* read_begun: the reader t began its read number k (the body counts them
 * before each; call_t0 is set while the call runs, core/emit.h). */
static void read_begun(struct gt_thread *t, int k)
{
	while (atomic_load(&reads_begun) < k || atomic_load(&t->call_t0) == 0)
		sleep_ms(1);
}

/* late_writer writes a byte 30 ms after the reader (arg) began each of
 * its two reads. */
static void *late_writer(void *arg)
{
	struct gt_thread *reader = arg;
	read_begun(reader, 1);
	sleep_ms(30);
	cr_assert_eq(write(pipefd[1], "x", 1), 1);
	read_begun(reader, 2);
	sleep_ms(30);
	cr_assert_eq(write(pipefd[1], "y", 1), 1);
	return NULL;
}

/* two_reads: the body's two reads of one byte, of these kinds. */
static void two_reads(int kind1, int kind2)
{
	char c;
	atomic_fetch_add(&reads_begun, 1);
	cr_assert_eq(ex_read_call(kind1, pipefd[0], &c, 1), 1);
	atomic_fetch_add(&reads_begun, 1);
	cr_assert_eq(ex_read_call(kind2, pipefd[0], &c, 1), 1);
}

Test(engine_events, calls_that_wait_in_the_kernel)
{
	ex_start(NULL);
	cr_assert_eq(pipe(pipefd), 0);
	pthread_t th;
	ex_create(&th, late_writer, &gt_self);
	two_reads(GT_CALL_SYSCALL, GT_CALL_NETWORK);
	ex_join(th);
	ex_stop();
	struct ex_trace *t = ex_read();
	/* A system call: GoSyscallBegin ... GoSyscallEnd(Blocked) of goroutine 1. */
	size_t b = ex_next(t, 0, GT_EV_GO_SYSCALL_BEGIN, 1);
	cr_assert_lt(b, t->nev);
	cr_assert_str_eq(ex_leaf(t, &t->ev[b], 1), "ex_read_call");
	size_t e = ex_next(t, b, GT_EV_GO_SYSCALL_END, 0);
	size_t eb = ex_next(t, b, GT_EV_GO_SYSCALL_END_BLOCKED, 0);
	cr_assert(e < t->nev || eb < t->nev, "the syscall's end");
	size_t end = e < eb ? e : eb;
	cr_assert_geq(t->ev[end].ts - t->ev[b].ts, 20000000, "the 30 ms wait is in the trace");
	/* A network wait: GoBlock("network") then the wake-up. */
	size_t n = ex_next(t, end, GT_EV_GO_BLOCK, 1);
	cr_assert_lt(n, t->nev);
	cr_assert_str_eq(ex_string(t, t->ev[n].gen, t->ev[n].args[0]), "network");
	size_t u = n;
	while ((u = ex_next(t, u + 1, GT_EV_GO_UNBLOCK, 0)) < t->nev && t->ev[u].args[0] != 1)
		;
	cr_assert_lt(u, t->nev);
	ex_free_trace(t);
}

/* Calls of the sleep and signal kinds (select/poll on no descriptor; pause,
 * sigwait ...) are blocks after the fact with their own reasons. */
Test(engine_events, calls_that_sleep_or_wait_for_a_signal)
{
	ex_start(NULL);
	cr_assert_eq(pipe(pipefd), 0);
	pthread_t th;
	ex_create(&th, late_writer, &gt_self);
	two_reads(GT_CALL_SLEEP, GT_CALL_SIGNAL);
	ex_join(th);
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_eq(ex_next(t, 0, GT_EV_GO_SYSCALL_BEGIN, 1), t->nev, "no system call");
	const char *want[2] = { "sleep", "sync.signal" };
	size_t n = 0;
	for (int i = 0; i < 2; i++) {
		while ((n = ex_next(t, n, GT_EV_GO_BLOCK, 1)) < t->nev &&
		       strcmp(ex_leaf(t, &t->ev[n], 1), "ex_read_call") != 0)
			n++;
		cr_assert_lt(n, t->nev, "block %d (%s)", i, want[i]);
		cr_assert_str_eq(ex_string(t, t->ev[n].gen, t->ev[n].args[0]), want[i]);
		size_t u = n;
		while ((u = ex_next(t, u + 1, GT_EV_GO_UNBLOCK, 0)) < t->nev && t->ev[u].args[0] != 1)
			;
		cr_assert_lt(u, t->nev);
		cr_assert_geq(t->ev[u].ts - t->ev[n].ts, 20000000, "the 30 ms wait is in the trace");
		n = u;
	}
	ex_free_trace(t);
}

/* A readiness wait for an eventfd (issue 15 item 2) is a block after the
 * fact with reason sync.eventfd, in Go's synchronization profile. */
Test(engine_events, calls_that_wait_for_an_eventfd)
{
	ex_start(NULL);
	cr_assert_eq(pipe(pipefd), 0);
	pthread_t th;
	ex_create(&th, late_writer, &gt_self);
	two_reads(GT_CALL_EVENTFD, GT_CALL_EVENTFD);
	ex_join(th);
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_eq(ex_next(t, 0, GT_EV_GO_SYSCALL_BEGIN, 1), t->nev, "no system call");
	size_t n = ex_next(t, 0, GT_EV_GO_BLOCK, 1);
	while (n < t->nev && strcmp(ex_leaf(t, &t->ev[n], 1), "ex_read_call") != 0)
		n = ex_next(t, n + 1, GT_EV_GO_BLOCK, 1);
	cr_assert_lt(n, t->nev);
	cr_assert_str_eq(ex_string(t, t->ev[n].gen, t->ev[n].args[0]), "sync.eventfd");
	ex_free_trace(t);
}

Test(engine_events, format_26_ends_each_generation)
{
	ex_start((const char *const[]){ "GOTRACE_FORMAT=26", "GOTRACE_STACKS=0", NULL });
	for (int i = 0; i < 3; i++) {
		ex_yield();
		gt_advance(0); /* a switch forced from outside, as the flusher does */
	}
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_eq(t->version, 26);
	cr_assert_eq(t->gens, 4);
	cr_assert_eq(t->ends, t->gens, "an EndOfGeneration per generation");
	cr_assert_eq(ex_count(t, GT_EV_GO_STOP, 1), 3);
	/* GOTRACE_STACKS=0: the stack is the wrapper alone. */
	size_t i = ex_next(t, 0, GT_EV_GO_STOP, 1);
	const struct ex_stack *s = ex_stack(t, t->ev[i].gen, t->ev[i].args[1]);
	cr_assert(s);
	cr_assert_eq(s->n, 1);
	cr_assert_str_eq(s->f[0].func, "ex_yield");
	ex_free_trace(t);
}

Test(engine_events, a_long_call_is_converted_by_the_switch)
{
	ex_start((const char *const[]){ "GOTRACE_PERIOD=5ms", NULL });
	cr_assert_eq(pipe(pipefd), 0);
	pthread_t th;
	ex_create(&th, late_writer, &gt_self); /* a second thread: the flusher switches */
	two_reads(GT_CALL_SYSCALL, GT_CALL_SYSCALL); /* ~30 ms each, several periods */
	ex_join(th);
	ex_stop();
	struct ex_trace *t = ex_read();
	/* The call's beginning is in the generation it began in, written by
	 * the switch that ended it; its end generations later. */
	size_t b = ex_next(t, 0, GT_EV_GO_SYSCALL_BEGIN, 1);
	cr_assert_lt(b, t->nev);
	cr_assert_str_eq(ex_leaf(t, &t->ev[b], 1), "ex_read_call");
	size_t e = b + 1;
	while (e < t->nev && !(t->ev[e].m == t->ev[b].m &&
			       (t->ev[e].type == GT_EV_GO_SYSCALL_END || t->ev[e].type == GT_EV_GO_SYSCALL_END_BLOCKED)))
		e++;
	cr_assert_lt(e, t->nev, "the call's end");
	cr_assert_gt(t->ev[e].gen, t->ev[b].gen, "the wait spans generations");
	ex_free_trace(t);
}

/* prctl(PR_SET_NAME): the label is what the kernel keeps (15 bytes); a
 * name the kernel refused labels nothing; errno stays prctl's. */
Test(engine_events, prctl_names_are_labels)
{
	ex_start(NULL);
	char old[16];
	cr_assert_eq(prctl(PR_GET_NAME, (unsigned long)old, 0UL, 0UL, 0UL), 0);
	errno = 0;
	cr_assert_eq(ex_prctl_setname((const char *)8), -1);
	cr_assert_eq(errno, EFAULT);
	cr_assert_eq(ex_prctl_setname("a-very-long-thread-name"), 0);
	ex_stop();
	cr_assert_eq(prctl(PR_SET_NAME, (unsigned long)old, 0UL, 0UL, 0UL), 0);
	struct ex_trace *t = ex_read();
	size_t l = ex_next(t, 0, GT_EV_GO_LABEL, 1);
	cr_assert_lt(l, t->nev);
	cr_assert_str_eq(ex_string(t, t->ev[l].gen, t->ev[l].args[0]), "a-very-long-thr");
	cr_assert_geq(ex_next(t, l + 1, GT_EV_GO_LABEL, 1), t->nev, "one label");
	ex_free_trace(t);
}

Test(engine_events, names_barriers_and_annotations)
{
	ex_start(NULL);
	ex_setname(pthread_self(), "engine-main");
	ex_barrier_wait(2);
	uint64_t task = ex_task_begin("load");
	ex_region(task, "parse", 1);
	ex_log(task, "file", "a.txt");
	ex_region(task, "parse", 0);
	ex_task_end(task);
	ex_stop();
	struct ex_trace *t = ex_read();
	size_t l = ex_next(t, 0, GT_EV_GO_LABEL, 1);
	cr_assert_lt(l, t->nev);
	cr_assert_str_eq(ex_string(t, t->ev[l].gen, t->ev[l].args[0]), "engine-main");
	size_t b = ex_next(t, 0, GT_EV_GO_BLOCK, 1);
	cr_assert_lt(b, t->nev);
	cr_assert_str_eq(ex_string(t, t->ev[b].gen, t->ev[b].args[0]), "sync.barrier");
	cr_assert_str_eq(ex_leaf(t, &t->ev[b], 1), "ex_barrier_wait");
	/* The task, its region and the log, in order, on goroutine 1. */
	size_t tb = ex_next(t, b, GT_EV_USER_TASK_BEGIN, 1);
	cr_assert_lt(tb, t->nev);
	uint64_t id = t->ev[tb].args[0];
	cr_assert_str_eq(ex_string(t, t->ev[tb].gen, t->ev[tb].args[2]), "load");
	size_t rb = ex_next(t, tb, GT_EV_USER_REGION_BEGIN, 1);
	cr_assert_eq(t->ev[rb].args[0], id);
	cr_assert_str_eq(ex_string(t, t->ev[rb].gen, t->ev[rb].args[1]), "parse");
	size_t lg = ex_next(t, rb, GT_EV_USER_LOG, 1);
	cr_assert_lt(lg, t->nev);
	cr_assert_str_eq(ex_string(t, t->ev[lg].gen, t->ev[lg].args[1]), "file");
	cr_assert_str_eq(ex_string(t, t->ev[lg].gen, t->ev[lg].args[2]), "a.txt");
	cr_assert_str_eq(ex_leaf(t, &t->ev[lg], 3), "ex_log");
	size_t re = ex_next(t, lg, GT_EV_USER_REGION_END, 1);
	size_t te = ex_next(t, re, GT_EV_USER_TASK_END, 1);
	cr_assert_lt(te, t->nev);
	cr_assert_eq(t->ev[te].args[0], id);
	ex_free_trace(t);
}

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;

static void *waits_on_held(void *arg)
{
	(void)arg;
	ex_lock(&held);
	ex_unlock(&held);
	return NULL;
}

Test(engine_events, the_flusher_writes_the_end_while_threads_run)
{
	ex_start(NULL);
	ex_lock(&held);
	pthread_t th;
	uint64_t g = ex_create(&th, waits_on_held, NULL);
	while (!gt_has_waiters((uintptr_t)&held))
		sleep_ms(1);
	ex_stop(); /* a thread still waits: the flusher writes the final generation */
	struct ex_trace *t = ex_read();
	size_t b = ex_next(t, 0, GT_EV_GO_BLOCK, g);
	cr_assert_lt(b, t->nev, "the waiting thread's block");
	cr_assert_str_eq(ex_string(t, t->ev[b].gen, t->ev[b].args[0]), "sync.mutex");
	cr_assert_eq(ex_count(t, GT_EV_GO_DESTROY, g), 0, "it had not ended");
	ex_free_trace(t);
	ex_unlock(&held); /* untraced from here on */
	pthread_join(th, NULL);
}

static void *advance_and_end(void *arg)
{
	(void)arg;
	sleep_ms(5);
	gt_advance(0);
	return NULL;
}

/* Each generation shows its process in the viewer: a UserLog of category
 * gotrace.process, once, by the first goroutine that runs in it (the main
 * one here), also when it was blocked as the generation began. */
Test(engine_events, identity_log_in_every_generation)
{
	ex_start(NULL);
	for (int k = 0; k < 3; k++) {
		gt_advance(0);
		ex_yield();
	}
	pthread_t th;
	ex_create(&th, advance_and_end, NULL);
	ex_join(th); /* blocked across the switch */
	ex_yield();
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_geq(t->gens, 5);
	unsigned per_gen[64] = { 0 };
	char want[64];
	snprintf(want, sizeof want, "pid=%d ", (int)getpid());
	for (size_t i = ex_next(t, 0, GT_EV_USER_LOG, 0); i < t->nev; i = ex_next(t, i + 1, GT_EV_USER_LOG, 0)) {
		const struct ex_ev *e = &t->ev[i];
		if (strcmp(ex_string(t, e->gen, e->args[1]), "gotrace.process") != 0)
			continue;
		cr_assert(strncmp(ex_string(t, e->gen, e->args[2]), want, strlen(want)) == 0);
		if (e->gen < 64)
			per_gen[e->gen]++;
	}
	for (uint64_t g = t->first_gen; g < t->first_gen + t->gens && g < 64; g++)
		cr_assert_eq(per_gen[g], 1, "generation %llu: %u identity logs", (unsigned long long)g, per_gen[g]);
	ex_free_trace(t);
}

/* Raw futex waits (issue 15 item 1): a 60 ms FUTEX_WAIT that a wake ends is
 * a "sync.futex" block whose wake-up carries the waker's site and release
 * time; a 30 ms wait that times out carries its own stack; a wait on a
 * value the word does not hold (EAGAIN at once) records nothing. Period
 * 20 ms: the long wait is converted by a generation switch. */
static _Atomic int futex_word;

static void *futex_waker(void *arg)
{
	struct gt_thread *waiter = arg;
	while (!gt_has_waiters((uintptr_t)&futex_word) || atomic_load(&waiter->call_t0) == 0)
		sleep_ms(1);
	sleep_ms(60);
	atomic_store(&futex_word, 1);
	ex_futex_wake(&futex_word);
	return NULL;
}

Test(engine_events, raw_futex_waits)
{
	ex_start((const char *const[]){ "GOTRACE_PERIOD=20ms", NULL });
	errno = 0;
	cr_assert_eq(ex_futex_wait(&futex_word, 5, NULL), -1);
	cr_assert_eq(errno, EAGAIN, "a value mismatch returns at once");
	struct timespec rel = { 0, 30 * 1000000L };
	errno = 0;
	cr_assert_eq(ex_futex_wait(&futex_word, 0, &rel), -1);
	cr_assert_eq(errno, ETIMEDOUT);
	pthread_t th;
	uint64_t wg = ex_create(&th, futex_waker, &gt_self);
	while (atomic_load(&futex_word) == 0)
		ex_futex_wait(&futex_word, 0, NULL);
	ex_join(th);
	cr_assert(!gt_has_waiters((uintptr_t)&futex_word), "the waiter counted itself out");
	ex_stop();
	struct ex_trace *t = ex_read();
	/* goroutine 1's blocks at ex_futex_wait, each to its wake-up: the
	 * timeout (its own stack), the wake (the waker's), and perhaps the
	 * EAGAIN call if a busy machine held it 10 us (it then lasts that). */
	int timeouts = 0, woken = 0, others = 0;
	for (size_t n = 0; (n = ex_next(t, n, GT_EV_GO_BLOCK, 1)) < t->nev; n++) {
		if (strcmp(ex_leaf(t, &t->ev[n], 1), "ex_futex_wait") != 0)
			continue;
		cr_assert_str_eq(ex_string(t, t->ev[n].gen, t->ev[n].args[0]), "sync.futex");
		/* the first GoUnblock of goroutine 1 after the block, in time: it
		 * may be in the waker's batch (core/wake_ins.h), after this one's
		 * in the file */
		size_t u = t->nev;
		for (size_t k = 0; (k = ex_next(t, k, GT_EV_GO_UNBLOCK, 0)) < t->nev; k++)
			if (t->ev[k].args[0] == 1 && t->ev[k].ts >= t->ev[n].ts && (u == t->nev || t->ev[k].ts < t->ev[u].ts))
				u = k;
		cr_assert_lt(u, t->nev, "the wake-up of the block at %zu", n);
		uint64_t d = t->ev[u].ts - t->ev[n].ts;
		const char *waker = ex_leaf(t, &t->ev[u], 2);
		if (d >= 50000000) {
			cr_assert_str_eq(waker, "ex_futex_wake", "the 60 ms wait's wake-up names the waker's site");
			woken++;
		} else if (d >= 25000000) {
			cr_assert_str_eq(waker, GT_PC_WAKE_NAME, "a timeout has no waker: no stack of its own either");
			timeouts++;
		} else {
			cr_assert_lt(d, 5000000, "the EAGAIN call");
			others++;
		}
	}
	cr_assert_eq(woken, 1);
	cr_assert_eq(timeouts, 1);
	cr_assert_leq(others, 1);
	cr_assert_lt(ex_next(t, 0, GT_EV_GO_START, wg), t->nev);
	ex_free_trace(t);
}
