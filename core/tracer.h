/* tracer.h — the tracer's process-wide state, and the rules that keep the
 * trace valid.
 *
 * Model: every OS thread is one goroutine (G), one M (its TID) and one P of
 * its own. A thread writes its events into its own chunks (core/chunk.h),
 * encoded directly in the wire format; a flusher thread cuts the stream
 * into generations (core/advance.c) and writes each complete generation.
 *
 * Invariants:
 *
 * 1. Every event of a thread is written inside a write section
 *    (gt_section_open ... section_close, core/section.h), and the generation
 *    it belongs to is read inside that section, once. Otherwise the flusher
 *    could take a chunk while the thread still appends to it, or an event
 *    could land in a generation that was already written out.
 *
 * 2. A write section never blocks and never calls the application's code:
 *    the real blocking call happens between two sections. Otherwise the
 *    flusher, which waits for every thread to leave its section, would wait
 *    on the application.
 *
 * 3. Every sequence number of a G is taken by its own thread (a plain
 *    thread-owned counter), and a P's events are written only by the one
 *    thread holding it. A G's GoStart is written on its own M; its
 *    GoUnblock too, except a wake-up whose releaser left a mark in the
 *    same generation: the woken thread takes the seq itself and attaches
 *    the encoded GoUnblock to the releaser's chunk, inside its own write
 *    section (core/wake_ins.h); its GoStart (the next seq) follows on its
 *    own M. Otherwise the parser could not order them.
 *
 * 4. The first event of a thread in a generation re-states its G and P
 *    status (GoStatus, ProcStatus) unless that generation already has it.
 *    Otherwise the parser cannot advance the first seq-carrying event.
 *
 * 5. A thread takes a P from the free list before reading the generation,
 *    and the P's previous owner wrote its ProcStop before returning it.
 *    Otherwise ProcStart could land in an earlier generation than the
 *    ProcStop it depends on.
 *
 * 6. The tracer never records itself: its own thread (the flusher) and any
 *    code inside the tracer run with the thread's `inside` guard set, and the
 *    tracer's own calls bypass the library's exported wrappers: its I/O,
 *    closes and yields are direct system calls (core/sys.h), its locks are
 *    core/lock.h's, its allocations go to the real allocator (core/mem.h),
 *    other real functions through GT_REAL (core/real.h). What passes
 *    through the wrappers is what the libraries it calls do (libdw, libelf,
 *    libc's qsort and the C++ demangler allocate), untraced because of
 *    `inside`. The symbolizer's own dlclose goes where the wrapper's does,
 *    to gt_modules_dlclose (core/modlive.c), which keeps the unwinder's
 *    module table right around the real call. */
#ifndef GT_TRACER_H
#define GT_TRACER_H

#include <stdatomic.h>
#include <stdint.h>

#include "lock.h"
#include "stacktab.h"
#include "strtab.h"
#include "typetab.h"

struct gt_thread;
struct gt_chunk;
struct gt_proc;

/* GT_LIFTED_NS: how far after a generation's start a thread's batch stamped
 * before it is placed (gen_start below): 1 to 4096 ns, apart for any 4096
 * threads in registration order. */
#define GT_LIFTED_NS(serial) (1 + ((serial) & 4095))

struct gt_tracer {
	/* The generation being written; the first is 1. Written by the
	 * flusher only, read by every write section. */
	_Atomic uint64_t gen;
	/* When each generation began, indexed by gen & 1; stored by the
	 * flusher before the generation itself, so a writer that sees a
	 * generation sees its start. No batch of a generation starts earlier
	 * (core/section.c, gt_room_slow): Go's readers would otherwise move an
	 * event stamped before the switch (a wake-up stamped with its waker's
	 * time) to after the previous generation's last event. Such a batch is
	 * lifted to a time of its thread's own just after the start
	 * (GT_LIFTED_NS), never to the start itself: Go's readers (1.23 to
	 * 1.27) pick the next event by time and, when the earliest cannot go
	 * yet, try the others from the second on of a re-sorted list, so of two
	 * threads' events at the very same earliest time one is never tried —
	 * a GoStart lifted to the same time as the GoCreate it waits for made
	 * "failed to advance" in 1 of 10 readings of a trace. */
	_Atomic uint64_t gen_start[2];
	/* 1 while events are recorded; 0 before init, after the final flush,
	 * and after a fatal error of the tracer. */
	_Atomic int on;
	/* Memory barrier flavour: 1 when the flusher can use membarrier(2) so
	 * that writers need only a compiler barrier. */
	int asym_fence;

	/* Options, read once in the constructor. */
	unsigned max_frames;   /* frames per stack: GOTRACE_STACKS, or 1 (the
	                        * interposed call only) for GOTRACE_STACKS=0 */
	uint64_t period_ns;    /* GOTRACE_PERIOD */
	int format;            /* GOTRACE_FORMAT: 23 or 26 */
	int malloc_events;     /* GOTRACE_MALLOC */
	/* "gotrace.heap sample_bytes=<M>" when the heap is sampled, else "":
	 * every generation's string table holds it (core/gen_strings.c). */
	char heap_sample_string[64];
	/* "gotrace.heap not_recorded=own_malloc|preload_order by=<file>" when
	 * the program's malloc is not ours (core/heap.c), else "": in every
	 * generation's strings, for `gotrace stat` and `gotrace heap`. */
	char heap_note[320];
	int foreign_malloc;    /* the program's malloc is not ours (core/heap.c) */
	_Atomic int dying;     /* a death signal's final generation is under way */
	uint64_t flight_ns;    /* GOTRACE_FLIGHT window, 0 = none */
	uint64_t flight_bytes; /* GOTRACE_FLIGHT size cap; 0 = recorder off */
	int flight_signal;     /* GOTRACE_FLIGHT_SIGNAL, 0 = none */
	uint64_t buffer_chunks;    /* GOTRACE_BUFFER in chunks (core/pressure.h) */
	uint64_t gen_full_chunks;  /* full chunks that end a generation early */
	char out_pattern[4096]; /* GOTRACE_OUT as given; the file: core/sink.h */
	int pid;               /* the process tracing (not a vfork child) */
	char identity[1024];   /* "gotrace.process pid=..." (core/identity.h) */
	_Atomic uint64_t identity_gen; /* the last generation given its identity UserLog */

	/* The library's own mapping, skipped when unwinding. */
	uintptr_t self_lo, self_hi;

	/* Per-generation tables, indexed by gen & 1. */
	struct gt_strtab strings[2];
	struct gt_stacktab stacks[2];
	struct gt_typetab types[2];   /* heap types (docs/heap.md) */

	/* Registered threads. Protected by reg_lock; a thread in a write
	 * section never takes it (invariant 2). */
	gt_lock_t reg_lock;
	struct gt_thread *threads;
	unsigned nthreads;     /* registered threads: one means no flusher */
	uint64_t next_serial;
	struct gt_pending_label *pending_labels;

	/* Goroutine ids; 1 is the main thread. */
	_Atomic uint64_t next_g;

	/* Ps: free list and the next new id. Protected by proc_lock. */
	gt_lock_t proc_lock;
	struct gt_proc *free_procs;
	uint64_t next_p;

	/* Full chunks waiting for the flusher, per gen & 1 (lock-free push). */
	_Atomic(struct gt_chunk *) full[2];

	/* Serializes generation switches (flusher, exit). */
	gt_lock_t advance_lock;
	int finished; /* the final generation was written */
};

extern struct gt_tracer gt;

#endif
