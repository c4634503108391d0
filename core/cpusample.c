/* cpusample.c — the CPU sampler (cpusample.h). */
#include "cpusample.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>

#include "../encoder/wire.h"
#include "../encoder/writer.h"
#include "clock.h"
#include "hash.h"
#include "log.h"
#include "real.h"
#include "region.h"
#include "stack.h"
#include "sys.h"
#include "thread.h"
#include "tracer.h"

/* Frames kept per sample: GOTRACE_STACKS, at most this many (Go's CPU
 * profiler keeps 64). */
#define CPU_FRAMES_MAX 64
/* Ring entries: a generation's samples of one thread at the rate, with
 * room to spare (a late switch), within these bounds. */
#define RING_MIN 16u
/* Overruns of one signal written as samples, at most: one signal stands
 * for no more than 16 periods. */
#define MAX_OVERRUN 15
#define RING_MAX 1024u

/* One raw sample; pcs[0..n) (the entry's stride is fixed per run). */
struct sample {
	uint64_t ts, gen, p, g;
	uint32_t n;
	uint32_t count; /* periods it stands for: 1 + the timer's overruns */
	uintptr_t pcs[];
};

struct gt_cpu_ring {
	/* head: written by the thread's handler only (release); tail: by the
	 * switch only (release). Entries [tail, head) are complete. */
	_Atomic uint64_t head;
	uint64_t pad_[7];
	_Atomic uint64_t tail;
	uint64_t m;
	size_t maplen;
	struct gt_cpu_ring *next; /* retired or free list (reg_lock) */
	uint8_t data[] __attribute__((aligned(64)));
};

static uint64_t period_ns;
static unsigned frames;   /* frames per sample */
static size_t stride;     /* bytes per entry */
static unsigned ring_cap; /* entries per ring, a power of two */
static _Atomic int sample_sig;
static _Atomic int released;
static _Atomic uint64_t taken, lost;
static struct gt_cpu_ring *retired, *free_rings; /* reg_lock */

void gt_cpu_configure(uint64_t p)
{
	static const struct gt_thread_hooks hooks = { gt_cpu_thread_start, gt_cpu_thread_stop };
	gt_thread_set_hooks(&hooks); /* each registered thread's timer */
	period_ns = p;
	frames = gt.max_frames < CPU_FRAMES_MAX ? gt.max_frames : CPU_FRAMES_MAX;
	if (frames == 0)
		frames = 1;
	stride = (sizeof(struct sample) + frames * sizeof(uintptr_t) + 15) & ~(size_t)15;
	uint64_t per_gen = p ? gt.period_ns / p : 0;
	uint64_t want = per_gen + per_gen / 2 + 8;
	ring_cap = RING_MIN;
	while (ring_cap < want && ring_cap < RING_MAX)
		ring_cap <<= 1;
}

uint64_t gt_cpu_period(void)
{
	return period_ns;
}

int gt_cpu_signal(void)
{
	return atomic_load_explicit(&released, memory_order_relaxed) ? 0
								       : atomic_load_explicit(&sample_sig, memory_order_relaxed);
}

uint64_t gt_cpu_taken(void)
{
	return atomic_load(&taken);
}

uint64_t gt_cpu_lost(void)
{
	return atomic_load(&lost);
}

/* The signal: from the top of the real-time range down, one whose
 * disposition is SIG_DFL (not set by the program or inherited ignored)
 * and that is not the flight recorder's. Sixteen tries at most: a program
 * that has set all of those is one that uses real-time signals heavily. */
int gt_cpu_choose_signal(int avoid)
{
	if (!period_ns)
		return 0;
	for (int sig = SIGRTMAX; sig > SIGRTMAX - 16 && sig >= SIGRTMIN; sig--) {
		if (sig == avoid)
			continue;
		struct sigaction k;
		if (GT_REAL(sigaction)(sig, NULL, &k) != 0)
			continue;
		if (k.sa_handler == SIG_DFL) {
			atomic_store(&sample_sig, sig);
			return sig;
		}
	}
	return 0;
}

static struct sample *slot(struct gt_cpu_ring *r, uint64_t i)
{
	return (struct sample *)(r->data + (size_t)(i & (ring_cap - 1)) * stride);
}

int gt_cpu_is_ours(const siginfo_t *si)
{
	return si && si->si_code == SI_TIMER && si->si_value.sival_ptr == (void *)&gt;
}

/* timer_on creates and arms t's CPU-time timer (the calling thread). */
static void timer_on(struct gt_thread *t, int sig)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = sig;
	ev.sigev_value.sival_ptr = &gt; /* the cookie (gt_cpu_is_ours) */
	ev._sigev_un._tid = gt_gettid(); /* sigev_notify_thread_id */
	int id = -1;
	if (gt_sys_call(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, &ev, &id) != 0)
		return;
	struct itimerspec its;
	its.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
	its.it_value = its.it_interval;
	if (gt_sys_call(SYS_timer_settime, id, 0, &its, NULL) != 0) {
		gt_sys_call(SYS_timer_delete, id);
		return;
	}
	t->cpu_timer = id;
	t->cpu_timer_on = 1;
}

static void timer_off(struct gt_thread *t)
{
	if (!t->cpu_timer_on)
		return;
	gt_sys_call(SYS_timer_delete, t->cpu_timer);
	t->cpu_timer_on = 0;
}

void gt_cpu_thread_start(struct gt_thread *t)
{
	int sig = gt_cpu_signal();
	if (!sig || !period_ns || t->cpu_ring)
		return;
	int saved = errno;
	struct gt_cpu_ring *r = free_rings;
	if (r) {
		free_rings = r->next;
	} else {
		size_t len = (sizeof *r + (size_t)ring_cap * stride + 4095) & ~(size_t)4095;
		r = gt_map(len);
		if (!r) {
			errno = saved;
			return;
		}
		r->maplen = len;
	}
	atomic_store_explicit(&r->head, 0, memory_order_relaxed);
	atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
	r->m = t->m;
	r->next = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	t->cpu_ring = r;
	timer_on(t, sig);
	errno = saved;
}

void gt_cpu_thread_stop(struct gt_thread *t)
{
	int saved = errno;
	timer_off(t);
	struct gt_cpu_ring *r = t->cpu_ring;
	if (r) {
		/* A signal already sent finds no ring and takes no sample. */
		t->cpu_ring = NULL;
		atomic_signal_fence(memory_order_seq_cst);
		r->next = retired;
		retired = r;
	}
	errno = saved;
}

void gt_cpu_release(void)
{
	if (atomic_exchange(&released, 1))
		return;
	gt_lock(&gt.reg_lock);
	for (struct gt_thread *t = gt.threads; t; t = t->next)
		timer_off(t);
	gt_unlock(&gt.reg_lock);
}

void gt_cpu_after_fork(void)
{
	retired = NULL;
	free_rings = NULL;
	/* The forking thread's timer was the parent's: its id may be one the
	 * child's own timers get, and must never be deleted here. */
	gt_self.cpu_timer_on = 0;
	gt_self.cpu_ring = NULL;
}

/* The handler. A sample is taken like a write section is entered (core/
 * section.h): wseq odd, then the generation, then the time; the switch
 * that moves the generation waits for wseq to move before it drains. */
void gt_cpu_on_signal(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	int saved = errno;
	struct gt_thread *t = &gt_self;
	struct gt_cpu_ring *r = t->cpu_ring;
	if (!r || t->inside || !t->registered || !ucv ||
	    (t->state != GT_T_RUNNING && t->state != GT_T_SYSCALL) ||
	    !atomic_load_explicit(&gt.on, memory_order_relaxed)) {
		if (r)
			atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
		errno = saved;
		return;
	}
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (head - atomic_load_explicit(&r->tail, memory_order_acquire) >= ring_cap) {
		atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
		errno = saved;
		return;
	}
	t->inside++; /* a nested signal's wrapped call passes through */
	uint32_t s = atomic_load_explicit(&t->wseq, memory_order_relaxed);
	atomic_store_explicit(&t->wseq, s + 1, memory_order_relaxed);
	if (gt.asym_fence)
		atomic_signal_fence(memory_order_seq_cst);
	else
		atomic_thread_fence(memory_order_seq_cst);
	uint64_t gen = atomic_load_explicit(&gt.gen, memory_order_acquire);
	struct sample *e = slot(r, head);
	e->ts = gt_now();
	e->gen = gen;
	e->g = t->g;
	e->p = t->p ? t->p->id : GT_NO_THREAD;
	const mcontext_t *mc = &((const ucontext_t *)ucv)->uc_mcontext;
#if defined(__x86_64__)
	uintptr_t pc = (uintptr_t)mc->gregs[REG_RIP], sp = (uintptr_t)mc->gregs[REG_RSP],
		  fp = (uintptr_t)mc->gregs[REG_RBP];
#else
	uintptr_t pc = (uintptr_t)mc->pc, sp = (uintptr_t)mc->sp, fp = (uintptr_t)mc->regs[29];
#endif
	e->n = gt_stack_capture_regs(t, pc, sp, fp, e->pcs, frames);
	/* Expirations the kernel merged into this signal (its CPU timers are
	 * checked at the tick: a period near a tick's length often expires
	 * twice between two checks) were CPU time spent here too. */
	int over = si ? si->si_overrun : 0;
	e->count = 1 + (uint32_t)(over < 0 ? 0 : over > MAX_OVERRUN ? MAX_OVERRUN : over);
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	atomic_store_explicit(&t->wseq, s + 2, memory_order_release);
	t->inside--;
	atomic_fetch_add_explicit(&taken, 1, memory_order_relaxed);
	errno = saved;
}

/* drain_ring writes r's samples of generation old into tb; older ones (a
 * switch that gave up on a stuck thread) are dropped, newer ones stay.
 * Returns 1 when r is empty afterwards. */
static int drain_ring(struct gt_gen_batch *tb, struct gt_cpu_ring *r, uint64_t old)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	for (; tail != head; tail++) {
		struct sample *e = slot(r, tail);
		if (e->gen > old)
			break;
		if (e->gen < old)
			continue;
		uint64_t stk = 0;
		if (e->n)
			stk = gt_stacktab_put(&gt.stacks[old & 1], gt_hash_words(e->pcs, e->n), e->pcs, e->n);
		for (uint32_t k = 0; k < e->count; k++) { /* one CPUSample per period */
			if (gt_gen_batch_room(tb, 1 + 5 * 10) != 0)
				break;
			gt_batch_byte(&tb->b, GT_EV_CPU_SAMPLE);
			gt_batch_uvarint(&tb->b, e->ts);
			gt_batch_uvarint(&tb->b, r->m);
			gt_batch_uvarint(&tb->b, e->p);
			gt_batch_uvarint(&tb->b, e->g);
			gt_batch_uvarint(&tb->b, stk);
		}
	}
	atomic_store_explicit(&r->tail, tail, memory_order_release);
	return tail == head;
}

void gt_cpu_drain(struct gt_gen_out *o, uint64_t old, uint64_t ts)
{
	if (!period_ns)
		return;
	struct gt_gen_batch tb = { .o = o, .section = GT_EV_CPU_SAMPLES, .gen = old, .m = GT_NO_THREAD, .ts = ts };
	for (struct gt_thread *t = gt.threads; t; t = t->next)
		if (t->cpu_ring)
			drain_ring(&tb, t->cpu_ring, old);
	for (struct gt_cpu_ring **pp = &retired; *pp;) {
		struct gt_cpu_ring *r = *pp;
		if (drain_ring(&tb, r, old)) {
			*pp = r->next;
			r->next = free_rings;
			free_rings = r;
		} else {
			pp = &r->next;
		}
	}
	gt_gen_batch_close(&tb);
}
