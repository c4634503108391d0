/* deadlock.c — deadlocks reported while they happen (deadlock.h). */
#include "deadlock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "advance.h"
#include "clock.h"
#include "gen_stacks.h"
#include "inline.h"
#include "lock.h"
#include "log.h"
#include "mem.h"
#include "ownstack.h"
#include "real.h"
#include "request.h"
#include "sink.h"
#include "symbols.h"
#include "sys.h"
#include "thread.h"
#include "tracer.h"

uint64_t gt_deadlock_ns;
int gt_deadlock_abort;

/* Frames of a wait's stack shown in a report, and threads listed. */
#define DL_FRAMES 6
#define DL_LISTED 32

/* What a look copies of one registered thread (under gt.reg_lock, briefly:
 * nothing here is followed after the lock is dropped but the object
 * addresses, which are read with peek()). */
struct dl_thread {
	struct gt_thread *t; /* to find it again in the registry (fill_in) */
	uint64_t g, tid, block_ts, start_pc;
	uintptr_t key, self;
	uint8_t waiting;  /* blocked by gt_block (not a call pending in the kernel) */
	uint8_t reason, timed;
	char label[16];
	unsigned n;
	uintptr_t pcs[DL_FRAMES];
	/* Resolved after the lock, for threads waiting longer than the threshold. */
	int next;         /* index of the thread it waits for, -1: none known */
	uint64_t holder;  /* tid of the holder read from the object, 0: none */
	uint8_t private_wait; /* a wait only another thread of the process can end */
	uint8_t mark;
};

static struct dl_thread *snap;
static unsigned snap_cap;

/* Signatures of what a look found (to confirm at the next look) and of
 * what was reported (once each). */
#define DL_SIGS 16
static uint64_t seen[DL_SIGS], seen_now[DL_SIGS];
static unsigned nseen, nseen_now;
static uint64_t reported[64];
static unsigned nreported;
static uint64_t next_look;

int gt_deadlock_alone(void)
{
	return !atomic_load_explicit(&gt_req.flusher, memory_order_relaxed);
}

/* peek reads n bytes of the own process at addr; -1 when that memory is
 * gone (the object freed and unmapped) or the call is not allowed. */
static int peek(uintptr_t addr, void *out, size_t n)
{
	struct iovec l = { out, n }, r = { (void *)addr, n };
	return gt_sys_call(SYS_process_vm_readv, gt_sys_call(SYS_getpid), &l, 1UL, &r, 1UL, 0UL) == (long)n ? 0 : -1;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return x;
}

static int was_reported(uint64_t sig)
{
	for (unsigned i = 0; i < nreported && i < 64; i++)
		if (reported[i] == sig)
			return 1;
	return 0;
}

/* confirmed: sig was seen at the previous look too (and is remembered for
 * the next one). */
static int confirmed(uint64_t sig)
{
	if (nseen_now < DL_SIGS)
		seen_now[nseen_now++] = sig;
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i] == sig)
			return 1;
	return 0;
}

/* copy_thread: a consistent copy of t's wait, through its write-section
 * seqlock; 0 when t is writing (it runs: not waiting). */
static int copy_thread(struct gt_thread *t, struct dl_thread *d)
{
	uint32_t s = atomic_load_explicit(&t->wseq, memory_order_acquire);
	if (s & 1)
		return 0;
	uint8_t state = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
	uint64_t call = atomic_load_explicit(&t->call_t0, memory_order_relaxed);
	d->block_ts = __atomic_load_n(&t->block_ts, __ATOMIC_RELAXED);
	d->key = __atomic_load_n(&t->wait_key, __ATOMIC_RELAXED);
	d->reason = __atomic_load_n(&t->wait_reason, __ATOMIC_RELAXED);
	d->timed = __atomic_load_n(&t->wait_timed, __ATOMIC_RELAXED);
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&t->wseq, memory_order_relaxed) != s)
		return 0;
	return state == GT_T_BLOCKED && call == 0 && d->block_ts != 0;
}

/* take_snapshot copies every registered thread; returns how many, or -1
 * when memory ran out. *oldest: the earliest block_ts among waiters. */
static int take_snapshot(uint64_t *oldest)
{
	*oldest = UINT64_MAX;
	gt_lock(&gt.reg_lock);
	if (gt.nthreads > snap_cap) {
		unsigned cap = gt.nthreads + 16;
		gt_unlock(&gt.reg_lock);
		struct dl_thread *p = gt_mem_realloc(snap, cap * sizeof *p);
		if (!p)
			return -1;
		snap = p;
		snap_cap = cap;
		gt_lock(&gt.reg_lock);
	}
	unsigned n = 0;
	for (struct gt_thread *t = gt.threads; t && n < snap_cap; t = t->next) {
		struct dl_thread *d = &snap[n++];
		d->t = t;
		d->n = 0;
		d->holder = 0;
		d->private_wait = 0;
		d->label[0] = 0;
		d->g = t->g;
		d->tid = t->m;
		d->self = (uintptr_t)t->self;
		d->start_pc = t->start_pc;
		d->next = -1;
		d->waiting = (uint8_t)copy_thread(t, d);
		if (d->waiting && d->block_ts < *oldest)
			*oldest = d->block_ts;
	}
	int all = n == gt.nthreads;
	gt_unlock(&gt.reg_lock);
	return all ? (int)n : -(int)n - 2;
}

static int find_tid(unsigned n, uint64_t tid)
{
	for (unsigned i = 0; i < n; i++)
		if (snap[i].tid == tid)
			return (int)i;
	return -1;
}

/* resolve: whom d waits for, and whether only another thread of the
 * process can end its wait (the global case). */
static void resolve(struct dl_thread *d, unsigned n)
{
	switch (d->reason) {
	case GT_STR_SYNC_MUTEX: {
		pthread_mutex_t m;
		if (peek(d->key, &m, sizeof m) != 0)
			return;
		d->holder = (uint64_t)(unsigned)m.__data.__owner;
		d->private_wait = !(m.__data.__kind & 128); /* not process-shared */
		break;
	}
	case GT_STR_SYNC_RWLOCK: {
		pthread_rwlock_t l;
		if (peek(d->key, &l, sizeof l) != 0)
			return;
		d->holder = (uint64_t)(unsigned)l.__data.__cur_writer;
		d->private_wait = d->holder != 0 && l.__data.__shared == 0;
		break;
	}
	case GT_STR_SYNC_COND: {
		pthread_cond_t c;
		if (peek(d->key, &c, sizeof c) != 0)
			return;
		d->private_wait = !(c.__data.__wrefs & 1); /* bit 0: process-shared */
		return;
	}
	case GT_STR_SYNC_BARRIER: {
		int shared; /* glibc's barrier: in, current_round, count, shared (0: private, 128: shared) */
		if (peek(d->key + 3 * sizeof(unsigned), &shared, sizeof shared) != 0)
			return;
		d->private_wait = shared == 0;
		return;
	}
	case GT_STR_SYNC_JOIN:
		for (unsigned i = 0; i < n; i++) {
			if (snap[i].self == d->key) {
				d->next = (int)i;
				d->private_wait = 1;
				d->holder = snap[i].tid;
			}
		}
		return;
	default:
		return;
	}
	if (d->holder)
		d->next = find_tid(n, d->holder);
}

/* count_tasks: the process's threads, from /proc/self/task (the flusher's
 * own descriptor table); 0 when it cannot tell. */
static unsigned count_tasks(void)
{
	int fd = (int)gt_sys_call(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	unsigned count = 0;
	char buf[4096] __attribute__((aligned(8)));
	for (;;) {
		long r = gt_sys_call(SYS_getdents64, fd, buf, sizeof buf);
		if (r <= 0)
			break;
		for (long off = 0; off < r;) {
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, sizeof reclen);
			const char *name = buf + off + 19;
			if (name[0] != '.')
				count++;
			off += reclen;
		}
	}
	gt_sys_call(SYS_close, fd);
	return count;
}

/* ---- the report ---- */

static char report[16384];
static size_t rlen;

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
	if (rlen >= sizeof report - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(report + rlen, sizeof report - rlen, fmt, ap);
	va_end(ap);
	if (m > 0)
		rlen += (size_t)m < sizeof report - rlen ? (size_t)m : sizeof report - rlen - 1;
}

static const char *what(uint8_t reason)
{
	switch (reason) {
	case GT_STR_SYNC_MUTEX: return "for mutex";
	case GT_STR_SYNC_RWLOCK: return "for rwlock";
	case GT_STR_SYNC_COND: return "on condition variable";
	case GT_STR_SYNC_BARRIER: return "at barrier";
	case GT_STR_SYNC_JOIN: return "to join";
	default: return gt_fixed_strings[reason < GT_STR_FIRST_DYNAMIC ? reason : 0];
	}
}

/* name_of: the thread's name: its label, else its /proc comm (the flusher
 * only: its descriptor table is its own). */
static void name_of(const struct dl_thread *d, char *out, size_t len, int may_open)
{
	snprintf(out, len, "%s", d->label);
	if (*out || !may_open)
		return;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%llu/comm", (unsigned long long)d->tid);
	int fd = (int)gt_sys_call(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	long r = gt_sys_call(SYS_read, fd, out, len - 1);
	gt_sys_call(SYS_close, fd);
	out[r > 0 ? r : 0] = 0;
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = 0;
}

static void put_frame(uintptr_t pc, int is_ret, const char *prefix)
{
	struct gt_sym_frame f[8];
	size_t k = gt_gen_stacks_name(pc, is_ret, f, 8);
	if (k == 0) {
		put("gotrace: %s0x%lx\n", prefix, (unsigned long)pc);
		return;
	}
	/* An exact pc (an interposed function, a start routine): the function
	 * itself, the outermost frame; a return address: inlined calls too. */
	for (size_t j = is_ret ? 0 : k - 1; j < k; j++) {
		if (f[j].line)
			put("gotrace: %s%s (%s:%u)\n", prefix, f[j].func, f[j].file, f[j].line);
		else
			put("gotrace: %s%s\n", prefix, f[j].func);
	}
}

static void put_thread(const struct dl_thread *d, unsigned n, uint64_t now, int may_open)
{
	char name[40];
	name_of(d, name, sizeof name, may_open);
	char start[160] = "main";
	if (d->start_pc) {
		struct gt_sym_frame f[8];
		size_t k = gt_gen_stacks_name(d->start_pc, 0, f, 8);
		snprintf(start, sizeof start, "%s", k ? f[k - 1].func : "?");
	}
	put("gotrace:   G%llu", (unsigned long long)d->g);
	if (*name)
		put(" \"%s\"", name);
	put(" (tid %llu, start %s) waits %.1f s %s", (unsigned long long)d->tid, start,
	    (double)(now - d->block_ts) / 1e9, what(d->reason));
	if (d->reason != GT_STR_SYNC_JOIN)
		put(" 0x%lx", (unsigned long)d->key);
	if (d->next >= 0 && (unsigned)d->next < n) {
		const struct dl_thread *h = &snap[d->next];
		if (d->reason == GT_STR_SYNC_JOIN)
			put(" G%llu (tid %llu)", (unsigned long long)h->g, (unsigned long long)h->tid);
		else if (h == d)
			put(" held by itself");
		else
			put(" held by G%llu (tid %llu)", (unsigned long long)h->g, (unsigned long long)h->tid);
	} else if (d->holder) {
		put(" held by tid %llu (not traced)", (unsigned long long)d->holder);
	}
	put("%s\n", d->timed ? " (timed)" : "");
	for (unsigned i = 0; i < d->n; i++)
		put_frame(d->pcs[i], i > 0, "      at ");
}

struct report_job {
	const int *idx;
	unsigned count, n;
	uint64_t now, wait;
	int global, may_open;
};

static void format_report(void *arg)
{
	struct report_job *j = arg;
	rlen = 0;
	if (j->global)
		put("gotrace: all threads are asleep - deadlock! %u threads have waited %.1f s or more, "
		    "each for something only another thread can do:\n",
		    j->count, (double)j->wait / 1e9);
	else if (j->count == 1)
		put("gotrace: deadlock: a thread waits for a mutex it holds itself, for %.1f s:\n", (double)j->wait / 1e9);
	else
		put("gotrace: deadlock: %u threads wait on each other for %.1f s:\n", j->count, (double)j->wait / 1e9);
	for (unsigned i = 0; i < j->count && i < DL_LISTED; i++)
		put_thread(&snap[j->idx[i]], j->n, j->now, j->may_open);
	if (j->count > DL_LISTED)
		put("gotrace:   ... and %u more threads\n", j->count - DL_LISTED);
}

/* write_out: the trace up to now (the generation in progress ends; in
 * flight-recorder mode a snapshot), then the abort asked for. self: the
 * program's thread does it (no flusher). */
static void write_out(struct gt_thread *self)
{
	int kind = gt.flight_bytes ? GT_ADV_SNAPSHOT : GT_ADV_NEXT;
	if (self)
		gt_inline_switch(self, 1, kind, 2000);
	else if (kind == GT_ADV_SNAPSHOT)
		gt_advance_snapshot();
	else
		gt_advance(0);
	if (kind == GT_ADV_NEXT && gt_sink_path())
		gt_warn("deadlock: the trace up to now is in %s", gt_sink_path());
	if (gt_deadlock_abort) {
		gt_warn("deadlock: aborting (GOTRACE_DEADLOCK=...,abort)");
		gt_sys_call(SYS_kill, gt_sys_call(SYS_getpid), SIGABRT);
	}
}

/* fill_in copies what only a report needs (the wait's stack, the label)
 * of the threads idx[0..count), if each is still registered and still in
 * the same wait; kept out of the regular look, which holds gt.reg_lock for
 * a few loads per thread only. */
static void fill_in(const int *idx, unsigned count)
{
	gt_lock(&gt.reg_lock);
	for (unsigned i = 0; i < count; i++) {
		struct dl_thread *d = &snap[idx[i]];
		struct gt_thread *t = gt.threads;
		while (t && t != d->t)
			t = t->next;
		if (!t || __atomic_load_n(&t->block_ts, __ATOMIC_RELAXED) != d->block_ts)
			continue;
		unsigned n = __atomic_load_n(&t->block_n, __ATOMIC_RELAXED);
		if (n > DL_FRAMES)
			n = DL_FRAMES;
		for (unsigned k = 0; k < n; k++)
			d->pcs[k] = __atomic_load_n(&t->block_pcs[k], __ATOMIC_RELAXED);
		d->n = n;
		memcpy(d->label, t->label, sizeof d->label);
		d->label[sizeof d->label - 1] = 0;
	}
	gt_unlock(&gt.reg_lock);
}

/* report: prints the threads idx[0..count) (symbolized under
 * gt.advance_lock: the symbolizer is the stack tables'), then writes the
 * trace. */
static void report_from_flusher(const int *idx, unsigned count, unsigned n, uint64_t now, uint64_t wait, int global)
{
	struct report_job j = { idx, count, n, now, wait, global, 1 };
	fill_in(idx, count < DL_LISTED ? count : DL_LISTED);
	gt_lock(&gt.advance_lock);
	format_report(&j);
	gt_unlock(&gt.advance_lock);
	gt_warn_line(report);
	write_out(NULL);
}

/* look: one pass over the threads. Returns when the next is due. */
static uint64_t look(uint64_t now)
{
	uint64_t T = gt_deadlock_ns, oldest;
	int r = take_snapshot(&oldest);
	unsigned n = r >= 0 ? (unsigned)r : (unsigned)(-r - 2);
	int complete = r >= 0;
	nseen_now = 0;
	if (oldest == UINT64_MAX || now - oldest < T) {
		nseen = 0;
		if (oldest == UINT64_MAX)
			return now + T / 2;
		uint64_t at = oldest + T, min = now + T / 8;
		return at > min ? at : min;
	}
	/* Objects are read (a system call each) only where they can matter:
	 * the owners of mutexes and rwlocks for cycles; condition variables and
	 * barriers only when every thread waits long in an untimed wait of a
	 * kind the global case takes (an idle thread pool costs no reads). */
	unsigned nlong = 0, nglobal = 0;
	for (unsigned i = 0; i < n; i++) {
		struct dl_thread *d = &snap[i];
		d->waiting = d->waiting && now - d->block_ts >= T;
		if (!d->waiting)
			continue;
		nlong++;
		if (d->reason == GT_STR_SYNC_COND || d->reason == GT_STR_SYNC_BARRIER)
			nglobal += !d->timed;
		else
			resolve(d, n);
		if (d->reason == GT_STR_SYNC_MUTEX || d->reason == GT_STR_SYNC_RWLOCK || d->reason == GT_STR_SYNC_JOIN)
			nglobal += !d->timed;
	}
	if (complete && nglobal == n)
		for (unsigned i = 0; i < n; i++)
			if (snap[i].reason == GT_STR_SYNC_COND || snap[i].reason == GT_STR_SYNC_BARRIER)
				resolve(&snap[i], n);
	/* Cycles: each thread waits for at most one other; walk from each
	 * long waiter along waits of long waiters. mark: 0 unseen, walk
	 * number while on the current walk, 1 done. */
	int cycle_found = 0;
	int idx[DL_LISTED * 4];
	for (unsigned i = 0; i < n; i++)
		snap[i].mark = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!snap[i].waiting || snap[i].mark)
			continue;
		int k = (int)i;
		while (k >= 0 && snap[k].waiting && snap[k].mark == 0) {
			snap[k].mark = 2;
			k = snap[k].next;
		}
		if (k >= 0 && snap[k].waiting && snap[k].mark == 2) {
			/* k is on a cycle of this walk */
			unsigned c = 0;
			uint64_t sig = 0, wait = UINT64_MAX;
			int j = k;
			do {
				if (c < sizeof idx / sizeof idx[0])
					idx[c] = j;
				c++;
				sig += mix(snap[j].g * 0x100000001b3ull ^ snap[j].block_ts);
				if (now - snap[j].block_ts < wait)
					wait = now - snap[j].block_ts;
				j = snap[j].next;
			} while (j != k);
			cycle_found = 1;
			if (confirmed(sig) && !was_reported(sig)) {
				reported[nreported++ % 64] = sig;
				if (c > sizeof idx / sizeof idx[0])
					c = sizeof idx / sizeof idx[0];
				report_from_flusher(idx, c, n, now, wait, 0);
			}
		}
		for (int q = (int)i; q >= 0 && snap[q].mark == 2; q = snap[q].next)
			snap[q].mark = 1;
	}
	/* All threads asleep: every thread of the process traced, waiting
	 * long, in a wait only another thread can end. */
	if (!cycle_found && complete && nglobal == n && n > 0) {
		int all = 1;
		uint64_t sig = 0x5bd1e995, wait = UINT64_MAX;
		for (unsigned i = 0; i < n && all; i++) {
			struct dl_thread *d = &snap[i];
			all = d->private_wait && !d->timed;
			sig += mix(d->g * 0x100000001b3ull ^ d->block_ts);
			if (now - d->block_ts < wait)
				wait = now - d->block_ts;
		}
		/* and no thread the tracer does not see (the flusher aside) */
		if (all && count_tasks() == n + 1 && confirmed(sig) && !was_reported(sig)) {
			reported[nreported++ % 64] = sig;
			unsigned c = n < sizeof idx / sizeof idx[0] ? n : sizeof idx / sizeof idx[0];
			for (unsigned i = 0; i < c; i++)
				idx[i] = (int)i;
			report_from_flusher(idx, n, n, now, wait, 1);
		}
	}
	memcpy(seen, seen_now, sizeof seen);
	nseen = nseen_now;
	return gt_now() + T / 4;
}

uint64_t gt_deadlock_poll(uint64_t now)
{
	if (!gt_deadlock_ns)
		return UINT64_MAX;
	if (now >= next_look)
		next_look = look(now);
	return next_look;
}

int gt_deadlock_relock(pthread_mutex_t *m)
{
	struct gt_thread *t = &gt_self;
	struct timespec at;
	clock_gettime(CLOCK_REALTIME, &at);
	at.tv_sec += (time_t)(gt_deadlock_ns / 1000000000ull);
	at.tv_nsec += (long)(gt_deadlock_ns % 1000000000ull);
	if (at.tv_nsec >= 1000000000L) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000L;
	}
	int r = GT_REAL(mutex_timedlock)(m, &at);
	if (r != ETIMEDOUT)
		return r;
	int saved = errno;
	t->inside++;
	/* The report, as the flusher would give it, with the thread's own wait:
	 * symbolized on the tracer's stack under gt.advance_lock. */
	/* snap is the flusher's, and no flusher runs: it is borrowed for this
	 * one thread and given back. */
	static struct dl_thread one;
	static const int idx0 = 0;
	struct dl_thread *kept = snap;
	snap = &one;
	struct dl_thread *d = &one;
	memset(d, 0, sizeof *d);
	d->t = t;
	d->g = t->g;
	d->tid = t->m;
	d->self = (uintptr_t)t->self;
	d->start_pc = t->start_pc;
	d->block_ts = t->block_ts;
	d->key = (uintptr_t)m;
	d->reason = GT_STR_SYNC_MUTEX;
	d->holder = t->m;
	d->next = 0;
	memcpy(d->label, t->label, sizeof d->label);
	d->label[sizeof d->label - 1] = 0;
	d->n = t->block_n < DL_FRAMES ? t->block_n : DL_FRAMES;
	memcpy(d->pcs, t->block_pcs, d->n * sizeof d->pcs[0]);
	uint64_t now = gt_now();
	struct report_job j = { &idx0, 1, 1, now, now - d->block_ts, 0, 0 };
	int done = 0;
	for (int tries = 0; tries < 2000 && !done; tries++) {
		if (gt_trylock(&gt.advance_lock)) {
			done = gt_ownstack_run(format_report, &j) == 0;
			gt_unlock(&gt.advance_lock);
			break;
		}
		gt_sys_yield();
	}
	if (done)
		gt_warn_line(report);
	else
		gt_warn("deadlock: a thread waits for a mutex it holds itself (G%llu, mutex %p)",
			(unsigned long long)t->g, (void *)m);
	snap = kept;
	write_out(t);
	t->inside--;
	errno = saved;
	return GT_REAL(mutex_lock)(m);
}
