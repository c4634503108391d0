/* thread.h — per-thread tracer state (initial-exec TLS), the thread
 * registry, and the Ps threads hold. */
#ifndef GT_THREAD_H
#define GT_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../encoder/wire.h"
#include "heaplocal.h"
#include "stacklocal.h"
#include "tracer.h"
#include "unwind.h"

/* A P: owned by exactly one thread at a time; recycled after ProcStop. */
struct gt_proc {
	uint64_t id;
	uint64_t status_gen; /* generation whose ProcStatus is written */
	uint64_t seq;        /* last seq used in status_gen */
	struct gt_proc *next_free;
};

/* What the thread's G is doing, as the trace last said. */
enum gt_tstate {
	GT_T_NONE = 0,   /* never announced in the trace */
	GT_T_RUNNING,
	GT_T_RUNNABLE,   /* between GoStop (sched_yield) and GoStart */
	GT_T_BLOCKED,    /* between GoBlock and GoUnblock */
	GT_T_SYSCALL,    /* between GoSyscallBegin and GoSyscallEnd */
	GT_T_DEAD,       /* after GoDestroy */
};

/* An open user region (core/annotate.c). */
#define GT_REGIONS 32
struct gt_region_open {
	uint64_t task;
	char name[56];
};

/* What a thread keeps beside its TLS state, mapped when the thread is
 * registered: static TLS stays small, because glibc carves every thread's
 * static TLS out of the thread's own stack, and programs that give their
 * threads 16 KiB stacks pay for every byte of it. Modules define their
 * parts in their own headers: core/stacklocal.h, core/heaplocal.h,
 * core/typetab.h, core/unwind.h. */
struct gt_side {
	uintptr_t block_pcs[GT_MAX_FRAMES];  /* the current or last wait's stack */
	/* Remembered stacks (core/stack.c), two per set. */
	struct gt_stack_memo memo[GT_MEMO_WAYS * GT_MEMO_SETS];
	uint32_t memo_tick;
	uint32_t bindings;   /* the last binding number handed out */
	struct gt_type_local types; /* the thread's heap types (core/heap.c) */
	struct gt_typelog *typelog[2]; /* per generation parity (core/typetab.h) */
	/* Heap object ids (core/heapid.h): the thread's last two address
	 * regions (key = region + 1, 0: none) and their base ids. Valid for
	 * the whole process, so a pooled side area keeps them. */
	struct {
		uint64_t key[2], base[2];
	} heapid;
	/* (hash, generation) -> stack id (core/stack.h, gt_stack_id). */
	struct gt_stack_cache_entry stack_cache[GT_STACK_CACHE];
	/* The frames of the stack being captured (struct gt_stack): captures
	 * never nest on a thread (they run with its tracer guard raised), and
	 * here they cost the program's stack nothing. */
	uintptr_t pcs[GT_MAX_FRAMES];
	/* Open user regions, innermost last (core/annotate.c): Go requires a
	 * region's end to match the innermost open one. */
	struct gt_region_open regions[GT_REGIONS];
	/* The unwinder's working memory for a rule not cached yet. */
	struct gt_unwind_scratch unwind;
	/* The thread's stack as a span (core/spans.h): base and length, 0
	 * when none was written (main's is its [stack] mapping, stated by
	 * the generation snapshots). Here, not in the TLS state: every byte
	 * of static TLS comes out of each thread's stack. */
	uintptr_t stack_base, stack_len;
};

#define GT_PENDING_LABEL 1
#define GT_PENDING_IDENTITY 2

struct gt_thread {
	/* >0 while the tracer itself runs on this thread, or forever for the
	 * flusher and dead threads: interposed calls then pass straight
	 * through. */
	int inside;
#define GT_INSIDE_ALLOC (1 << 16) /* the raise around a real allocator call
				   * (interpose/malloc.c): `inside` equal to it
				   * (`quiet` 0) is the allocator working for the
				   * program (its mmap: a GT_SPAN_MALLOC span) */
	/* The part of `inside` raised by calls pending in the kernel
	 * (gt_call_begin .. gt_call_end): they pass nested calls through but
	 * leave the tracer's state consistent, so a generation switch may run
	 * on the thread (core/inline.h) while only these are raised. */
	int quiet;

	/* Heap recording (core/heap.h): bytes the thread may still allocate
	 * before its next recorded allocation (the allocation that takes it
	 * below zero is recorded), and its random generator for sampled
	 * recording (0: not seeded yet). Next to `inside`: the malloc
	 * wrappers read all three. */
	uint64_t heap_left;
	uint64_t heap_rng;

	/* Seqlock of the write section: odd while writing. The flusher waits
	 * for it to move before it takes the thread's chunks. */
	_Atomic uint32_t wseq;

	/* Trace state, changed only inside write sections. The flusher reads
	 * a consistent copy through wseq. */
	uint8_t state;        /* enum gt_tstate */
	uint8_t state_before; /* state at the first event of wrote_gen */
	uint64_t wrote_gen;   /* generation whose statuses this thread wrote */
	uint64_t prev_gen;    /* wrote_gen before the last change */
	uint64_t born_gen;    /* generation of the thread's first event */
	uint64_t g, m;
	uint64_t g_seq;       /* last G seq used in wrote_gen */
	struct gt_proc *p;

	/* Open chunk per generation slot (gen & 1). */
	struct gt_chunk *chunk[2];
	uint64_t serial;      /* registration order: sorts chunks in the file */
	uint32_t chunk_index;

	/* The current or last wait. */
	uint64_t block_ts;
	uint64_t block_cpu;     /* the thread's CPU time at its GoBlock (0: not measured) */
	uint64_t wait_cpu_est;  /* the CPU a wait itself uses: the smaller of the last two */
	uint64_t wait_cpu_prev; /* measurements (core/block.c), and the last one */
	uint32_t wait_cpu_left; /* waits until the next measurement */
	uintptr_t wait_key;
	uint32_t block_n;
	uintptr_t *block_pcs;   /* side->block_pcs (every array lives there) */
	/* What the deadlock detector (core/deadlock.h) reads of the current
	 * wait, beside state, block_ts and wait_key: the wait's reason (enum
	 * gt_str, stored by gt_block), and whether it ends by itself at a
	 * time-out (set around the real call by the timed interposers:
	 * *_timedlock, *_clocklock, cond_timedwait/clockwait, timedjoin_np,
	 * clockjoin_np; 0 otherwise). */
	uint8_t wait_reason;
	uint8_t wait_timed;

	/* wake16 (core/block.c): where the current wait's GoBlock sits in
	 * the thread's chunk, so that a wait no recorded release ended and
	 * shorter than GT_SHORT_WAIT_NS (a lock freed before the waiter
	 * counted itself in: a spin, not a wait) is taken back. */
	struct gt_chunk *undo_chunk; /* the chunk (NULL: nothing to undo) */
	uint64_t undo_gen;           /* its generation */
	uint32_t undo_off, undo_end; /* the GoBlock's bytes: [undo_off, undo_end) */
	uint64_t undo_ts;            /* the batch's last event time before it */

	/* A call that may wait in the kernel (read, poll, waitpid ...): its
	 * start time while it runs, or GT_CALL_CLAIMED / GT_CALL_CONVERTED
	 * when the flusher has written its beginning (core/call.h). */
	_Atomic uint64_t call_t0;
	uint8_t call_kind;
	uint8_t call_stack;   /* block_pcs holds the pending call's whole stack */
	uintptr_t call_site, call_caller;
	/* The waiting wrapper's stack pointer; set when a longjmp left the
	 * pending call (call_left) and when (core/callwait.h). */
	uintptr_t call_sp;
	uint64_t call_jumped;
	uint8_t call_left;
	/* The word a futex call waits on, while the thread counts itself a
	 * waiter on it (gt_call_begin_key, core/wake.h); else 0. */
	uintptr_t call_key;

	/* Thread start routine (exact pc) when the thread came through our
	 * pthread_create, else 0. */
	uintptr_t start_pc;

	/* A label set by pthread_setname_np, waiting to be written as GoLabel.
	 * label_seq is a seqlock (setters serialize on reg_lock).
	 * label_pending: GT_PENDING_LABEL, and GT_PENDING_IDENTITY (the
	 * generation's identity UserLog, core/section.h), written at the
	 * thread's next event while its G runs. */
	_Atomic uint32_t label_seq;
	_Atomic int label_pending;
	char label[16];

	/* The interposed function's return address and CFA (set by GT_SITE
	 * in interpose/): remembered stacks are keyed by them. */
	uintptr_t site_ra, site_cfa;
	struct gt_side *side; /* NULL until needed (gt_thread_side) */

	/* What the unwinder may read (core/unwind.h): the thread's stack and
	 * its sigaltstack, [lo, hi), 0 when unknown (core/stack.c); and the
	 * module table it reads now, a hazard pointer (core/modlive.c). */
	struct gt_stack_bounds {
		uintptr_t lo, hi, alt_lo, alt_hi;
	} bounds;
	_Atomic(void *) mod_hazard;

	/* Open user regions (struct gt_side, regions[0..nregions)). */
	uint32_t nregions;

	/* Live heap bytes this thread allocated minus freed, not yet added to
	 * the process-wide count (core/heap.c). */
	int64_t heap_delta;

	/* CPU samples (core/cpusample.h): the thread's ring of raw samples
	 * (NULL: not sampled) and its CPU-time timer (kernel id, valid while
	 * cpu_timer_on). Set and cleared by the thread under reg_lock. */
	struct gt_cpu_ring *cpu_ring;
	int cpu_timer;
	uint8_t cpu_timer_on;

	/* Registry links, under gt.reg_lock. */
	struct gt_thread *next, *prev;
	pthread_t self;
	int registered;
};

extern __thread struct gt_thread gt_self __attribute__((tls_model("initial-exec")));

/* gt_thread_register adds the calling thread (t == &gt_self) to the
 * registry with goroutine id g (0: take a new one), takes a P, and picks up
 * a label set for it before it started. */
void gt_thread_register(struct gt_thread *t, uint64_t g, uintptr_t start_pc);

/* gt_thread_on_exit: hook(t) runs when a registered thread exits (returns
 * from its start routine, calls pthread_exit, is cancelled), as a TLS-key
 * destructor: it ends the thread's goroutine (core/engine.c). Once, from
 * the engine's start, before any thread registers. */
void gt_thread_on_exit(void (*hook)(void *));

/* Per-thread resources of modules above the registry (the CPU sampler's
 * timer, core/cpusample.h) are made and dropped through these hooks,
 * called under reg_lock as a thread joins and leaves the registry; set
 * once, before any thread registers. The registry knows nothing above it. */
struct gt_thread_hooks {
	void (*joined)(struct gt_thread *t);
	void (*leaving)(struct gt_thread *t);
};
void gt_thread_set_hooks(const struct gt_thread_hooks *h);

/* gt_thread_unregister hands the thread's open chunks to the flusher,
 * returns its P and removes it from the registry. After ProcStop. */
void gt_thread_unregister(struct gt_thread *t);

/* gt_proc_acquire / gt_proc_release: the P free list. */
struct gt_proc *gt_proc_acquire(void);
void gt_proc_release(struct gt_proc *p);

/* gt_thread_side returns the thread's side state, mapping it on first use
 * (registration does: a registered thread has one); NULL when memory ran
 * out. gt_thread_side_free unmaps it (thread exit). */
struct gt_side *gt_thread_side_slow(struct gt_thread *t);
static inline struct gt_side *gt_thread_side(struct gt_thread *t)
{
	return __builtin_expect(t->side != NULL, 1) ? t->side : gt_thread_side_slow(t);
}
void gt_thread_side_free(struct gt_thread *t);

/* The side-area pool's lock, taken across fork (core/fork.c); the child of
 * fork resets it. */
void gt_thread_side_pool_lock(void);
void gt_thread_side_pool_unlock(void);
void gt_thread_side_pool_after_fork(void);

/* gt_thread_set_label asks thread th (another thread, or the caller) to
 * label its goroutine with name. */
void gt_thread_set_label(pthread_t th, const char *name);

/* gt_thread_take_label copies a pending label into out[16] if there is
 * one; returns its length, or -1. Called by the thread itself. */
int gt_thread_take_label(struct gt_thread *t, char out[16]);

#endif
