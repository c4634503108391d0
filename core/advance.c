/* advance.c — the generation switch and writing a complete generation.
 *
 * Order of the work (compare Go's traceAdvance):
 *  1. store gen+1, then a memory barrier on every thread (membarrier(2)) or
 *     a full fence (invariant 1 of tracer.h);
 *  2. under reg_lock, wait until each thread has left any write section it
 *     was in, take its open chunk of the old generation, and note the
 *     threads that wrote nothing in it (their statuses are re-stated here,
 *     so every live thread is visible in every generation);
 *  3. take the old generation's full chunks;
 *  4. write: sync batch, stack table (symbolized now), string table, heap
 *     info and type batches, then event batches in per-thread order and
 *     the threads' tails, [EndOfGeneration] — tables first, so a streaming
 *     reader has them before the events (docs/heap.md);
 *  5. reset the old generation's tables and recycle its chunks. */
#include "advance.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../encoder/writer.h"
#include "chunk.h"
#include "clock.h"
#include "modules.h"
#include "call.h"
#include "flight.h"
#include "heap.h"
#include "identity.h"
#include "pressure.h"
#include "log.h"
#include "region.h"
#include "sink.h"
#include "stack.h"
#include "symbols.h"
#include "sys.h"
#include "thread.h"

#ifndef MEMBARRIER_CMD_PRIVATE_EXPEDITED
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#endif

/* A P id for a generation that would otherwise hold no event at all (Go
 * 1.23's reader rejects such a generation): an idle P nobody uses. */
#define IDLE_PROC_ID 1000000

/* How long to wait for one thread to leave its write section. Sections are
 * short; only a thread stopped inside one (a debugger, SIGSTOP, a signal
 * handler that never returns) takes longer, and is then left out. */
#define WRITER_WAIT_NS 2000000000ull

static uint64_t gen_start_ts;
static struct gt_symbolizer *symbolizer;

void gt_advance_start(uint64_t ts)
{
	gen_start_ts = ts;
}

/* The switch's own memory: a region (mmap'd, core/region.h) emptied after
 * each switch. No malloc: a switch may run while the program's allocator is
 * the program's own (Chromium's) and its lock is held by the thread a death
 * signal interrupted. */
static struct gt_region adv_mem;

static void *adv_alloc(size_t n)
{
	return gt_region_alloc(&adv_mem, n);
}

/* A growing list of buffers to write with writev. */
struct out {
	struct iovec *iov;
	int n, cap;
};

static void out_add(struct out *o, void *p, size_t len)
{
	if (len == 0)
		return;
	if (o->n == o->cap) {
		int cap = o->cap ? o->cap * 2 : 64;
		struct iovec *iov = adv_alloc((size_t)cap * sizeof *iov);
		if (!iov)
			return;
		if (o->n)
			memcpy(iov, o->iov, (size_t)o->n * sizeof *iov);
		o->iov = iov;
		o->cap = cap;
	}
	o->iov[o->n].iov_base = p;
	o->iov[o->n].iov_len = len;
	o->n++;
}

static void *out_own(struct out *o, size_t len)
{
	(void)o;
	return adv_alloc(len);
}

/* A table batch (strings, stacks, statuses) being filled in owned memory. */
struct tbatch {
	struct out *o;
	struct gt_batch b;
	int open;
	uint8_t section; /* GT_EV_STRINGS / GT_EV_STACKS, or 0 for events */
	uint64_t gen, m, ts;
};

#define TBATCH_CAP (GT_MAX_BATCH + 64)

static void tb_close(struct tbatch *t)
{
	if (!t->open)
		return;
	size_t len = gt_batch_finish(&t->b);
	out_add(t->o, t->b.mem, len);
	t->open = 0;
}

/* tb_room makes sure need bytes fit, starting a new batch when not. */
static int tb_room(struct tbatch *t, size_t need)
{
	if (t->open && gt_batch_room(&t->b) >= need)
		return 0;
	tb_close(t);
	uint8_t *mem = out_own(t->o, TBATCH_CAP);
	if (!mem)
		return -1;
	gt_batch_begin(&t->b, mem, TBATCH_CAP, t->gen, t->m, t->ts);
	if (t->section)
		gt_batch_byte(&t->b, t->section);
	t->open = 1;
	return 0;
}

/* --- waiting for writers and collecting chunks ---------------------------- */

struct collected {
	struct gt_chunk **v;
	size_t n, cap;
};

static void collect(struct collected *c, struct gt_chunk *ch)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct gt_chunk **v = adv_alloc(cap * sizeof *v);
		if (!v) {
			gt_chunk_put(ch);
			return;
		}
		if (c->n)
			memcpy(v, c->v, c->n * sizeof *v);
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = ch;
}

/* sort_chunks puts chunks in writer order (serial, then index): a heap sort
 * in place (qsort may allocate). */
static int chunk_before(const struct gt_chunk *x, const struct gt_chunk *y)
{
	return x->serial != y->serial ? x->serial < y->serial : x->index < y->index;
}

static void sift(struct gt_chunk **v, size_t at, size_t n)
{
	for (;;) {
		size_t big = at, l = 2 * at + 1, r = l + 1;
		if (l < n && chunk_before(v[big], v[l]))
			big = l;
		if (r < n && chunk_before(v[big], v[r]))
			big = r;
		if (big == at)
			return;
		struct gt_chunk *t = v[at];
		v[at] = v[big];
		v[big] = t;
		at = big;
	}
}

static void sort_chunks(struct gt_chunk **v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (size_t end = n; end-- > 1;) {
		struct gt_chunk *t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift(v, 0, end);
	}
}

/* wait_writer waits until t is outside any section that began before the
 * generation moved. Returns 0, or -1 when t seems stuck. */
static int wait_writer(struct gt_thread *t)
{
	uint32_t s = atomic_load_explicit(&t->wseq, memory_order_acquire);
	if (!(s & 1))
		return 0;
	uint64_t start = gt_now();
	for (unsigned spins = 0; atomic_load_explicit(&t->wseq, memory_order_acquire) == s; spins++) {
		if (spins < 64) {
			__builtin_ia32_pause();
			continue;
		}
		if (gt_now() - start > WRITER_WAIT_NS)
			return -1;
		gt_sys_yield();
	}
	return 0;
}

/* A consistent copy of what the flusher needs of a thread. */
struct snap {
	uint8_t state, state_before;
	uint64_t wrote_gen, prev_gen, born_gen, g, m, p;
};

static void snapshot(struct gt_thread *t, struct snap *sn)
{
	for (;;) {
		uint32_t s = atomic_load_explicit(&t->wseq, memory_order_acquire);
		if (s & 1) {
			gt_sys_yield();
			continue;
		}
		sn->state = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
		sn->state_before = __atomic_load_n(&t->state_before, __ATOMIC_RELAXED);
		sn->wrote_gen = __atomic_load_n(&t->wrote_gen, __ATOMIC_RELAXED);
		sn->prev_gen = __atomic_load_n(&t->prev_gen, __ATOMIC_RELAXED);
		sn->born_gen = __atomic_load_n(&t->born_gen, __ATOMIC_RELAXED);
		sn->g = __atomic_load_n(&t->g, __ATOMIC_RELAXED);
		sn->m = __atomic_load_n(&t->m, __ATOMIC_RELAXED);
		struct gt_proc *p = __atomic_load_n(&t->p, __ATOMIC_RELAXED);
		sn->p = p ? __atomic_load_n(&p->id, __ATOMIC_RELAXED) : UINT64_MAX;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&t->wseq, memory_order_relaxed) == s)
			return;
	}
}

/* tail writes, in a batch of the thread's own M placed after its chunks, what
 * the generation still needs about a live thread: the beginning of a call
 * it is still waiting in (gt_call_convert, core/call.h), and statuses when it wrote
 * nothing in generation old (so every live thread is visible in every
 * generation). pre: reg_lock held, the thread outside any write section. */
static int tail(struct out *o, struct gt_thread *t, const struct snap *sn, uint64_t old, uint64_t ts)
{
	if (sn->born_gen == 0 || sn->born_gen > old || sn->p == UINT64_MAX)
		return 0;
	int wrote = sn->wrote_gen == old || (sn->wrote_gen == old + 1 && sn->prev_gen == old);
	uint8_t st = sn->wrote_gen == old + 1 ? sn->state_before : sn->state;
	struct tbatch tb = { .o = o, .gen = old, .m = sn->m, .ts = gen_start_ts < ts ? gen_start_ts : ts };
	if (sn->wrote_gen <= old && st == GT_T_RUNNING) {
		if (tb_room(&tb, 128) != 0)
			return 0;
		if (gt_call_convert(t, old, ts, wrote, &tb.b)) {
			tb_close(&tb);
			return 1;
		}
	}
	if (wrote) {
		if (tb.open) /* room taken, nothing written: leave an empty batch out */
			tb.open = 0;
		return 0;
	}
	uint64_t gs, m = GT_NO_THREAD, ps = GT_P_RUNNING;
	switch (st) {
	case GT_T_RUNNING: gs = GT_G_RUNNING; m = sn->m; break;
	case GT_T_RUNNABLE: gs = GT_G_RUNNABLE; break;
	case GT_T_BLOCKED: gs = GT_G_WAITING; break;
	case GT_T_SYSCALL: gs = GT_G_SYSCALL; m = sn->m; ps = GT_P_SYSCALL; break;
	default: tb.open = 0; return 0;
	}
	if (tb_room(&tb, 64) != 0)
		return 0;
	uint64_t pa[2] = { sn->p, ps };
	gt_batch_event(&tb.b, GT_EV_PROC_STATUS, ts, 2, pa);
	uint64_t ga[3] = { sn->g, m, gs };
	gt_batch_event(&tb.b, GT_EV_GO_STATUS, ts, 3, ga);
	tb_close(&tb);
	return 1;
}

/* --- tables --------------------------------------------------------------- */

struct stack_dump {
	struct tbatch tb;
	struct gt_strtab *strings;
	uint64_t main_id;
	int no_alloc; /* only PCs symbolized before (see no_alloc()) */
};

/* unsymbolized names a PC without the symbolizer: "libfoo.so+0x1a2b" from
 * glibc's lock-free _dl_find_object, else its address. */
static uint64_t unsymbolized(struct gt_strtab *st, uintptr_t pc)
{
	char buf[320];
	struct dl_find_object fo;
	const struct link_map *lm = _dl_find_object((void *)pc, &fo) == 0 ? fo.dlfo_link_map : NULL;
	if (lm) {
		const char *name = lm->l_name && *lm->l_name ? lm->l_name : "program";
		const char *slash = strrchr(name, '/');
		snprintf(buf, sizeof buf, "%s+0x%lx", slash ? slash + 1 : name, (unsigned long)(pc - lm->l_addr));
	} else {
		snprintf(buf, sizeof buf, "0x%lx", (unsigned long)pc);
	}
	return gt_strtab_put(st, buf, strlen(buf));
}

/* no_alloc: this switch must not allocate through malloc, which is the
 * program's own (Chromium's PartitionAlloc, a static jemalloc): the final
 * generation of a death by signal, whose interrupted thread may hold the
 * allocator's lock. PCs never looked up before keep a module+offset name. */
static int no_alloc(int final)
{
	return final && atomic_load(&gt.dying) && gt.foreign_malloc;
}

static uint64_t str_id(struct gt_strtab *st, const char *s)
{
	return s && *s ? gt_strtab_put(st, s, strlen(s)) : 0;
}

/* The symbolizer's names are interned (one pointer per distinct string, for
 * as long as it lives), so the stack dump keeps the string id of each name
 * pointer it has seen this generation: a deep stack repeats the same few
 * hundred names thousands of times, and hashing each one again cost more
 * than the symbolization (node: 20 M instructions at exit). Used under
 * gt.advance_lock only; emptied at each dump. */
#define NAME_IDS 4096
static struct name_id {
	const char *name;
	uint64_t id;
} name_ids[NAME_IDS];

static uint64_t name_id(struct gt_strtab *st, const char *s)
{
	if (!s || !*s)
		return 0;
	struct name_id *e = &name_ids[((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ull >> 52];
	if (e->name != s)
		*e = (struct name_id){ s, str_id(st, s) };
	return e->id;
}

static void dump_stack(void *ctx, const struct gt_idmap_entry *e)
{
	struct stack_dump *d = ctx;
	const uintptr_t *pcs = (const uintptr_t *)e->key;
	size_t n = e->len / sizeof *pcs;
	struct gt_frame frames[GT_MAX_FRAMES];
	size_t nf = 0;
	for (size_t i = 0; i < n && nf < GT_MAX_FRAMES; i++) {
		if (pcs[i] >= GT_PC_SYNTHETIC) {
			frames[nf++] = (struct gt_frame){ pcs[i], d->main_id, 0, 0 };
			continue;
		}
		struct gt_sym_frame sf[16];
		size_t k = d->no_alloc ? gt_sym_lookup_cached(symbolizer, pcs[i], i > 0, sf, 16)
				       : gt_sym_lookup(symbolizer, pcs[i], i > 0, sf, 16);
		if (k == 0 && d->no_alloc) {
			frames[nf++] = (struct gt_frame){ pcs[i], unsymbolized(d->strings, pcs[i]), 0, 0 };
			continue;
		}
		size_t j = 0;
		/* pcs[0] is a function's own address (an interposed function, a
		 * start routine): its entry may carry inlined code's line info;
		 * the frame is the function itself, the outermost one. */
		if (i == 0 && k > 1)
			j = k - 1;
		for (; j < k && nf < GT_MAX_FRAMES; j++)
			frames[nf++] = (struct gt_frame){ sf[j].pc, name_id(d->strings, sf[j].func),
							  name_id(d->strings, sf[j].file), sf[j].line };
	}
	if (nf == 0)
		return;
	if (tb_room(&d->tb, GT_STACK_EVENT_MAX(nf)) != 0)
		return;
	gt_batch_stack(&d->tb.b, e->id, frames, nf);
}

struct string_dump {
	struct tbatch tb;
};

static void dump_string(void *ctx, const struct gt_idmap_entry *e)
{
	struct string_dump *d = ctx;
	if (tb_room(&d->tb, GT_STRING_EVENT_MAX) != 0)
		return;
	gt_batch_string(&d->tb.b, e->id, (const char *)e->key, e->len);
}

/* --- heap tables (docs/heap.md) ------------------------------------------- */

struct type_dump {
	struct out *o;
	struct gt_batch b;
	int open;
	uint64_t gen, ts;
};

#define TYPE_ENTRY_MAX (5 * GT_UVARINT_MAX + 32)

static int type_room(struct type_dump *d)
{
	if (d->open && gt_batch_room(&d->b) >= TYPE_ENTRY_MAX)
		return 0;
	if (d->open)
		out_add(d->o, d->b.mem, gt_batch_finish(&d->b));
	uint8_t *mem = out_own(d->o, TBATCH_CAP);
	if (!mem)
		return -1;
	gt_batch_begin_exp(&d->b, mem, TBATCH_CAP, GT_EXP_ALLOCFREE, d->gen, GT_NO_THREAD, d->ts);
	gt_batch_byte(&d->b, GT_ALLOCFREE_TYPES);
	d->open = 1;
	return 0;
}

static void dump_type(void *ctx, uint64_t id, uint64_t size, uint64_t stack)
{
	struct type_dump *d = ctx;
	if (type_room(d) != 0)
		return;
	/* The name, "malloc <size>", without snprintf: node's pbkdf2 script
	 * recording every allocation writes 82,000 types, and snprintf was 64 of
	 * the table dump's 70 M instructions. */
	char name[32] = "malloc ";
	char digits[20];
	int nd = 0;
	uint64_t v = size;
	do
		digits[nd++] = (char)('0' + v % 10);
	while ((v /= 10) != 0 && nd < 20);
	int n = 7;
	while (nd > 0)
		name[n++] = digits[--nd];
	gt_batch_uvarint(&d->b, id);
	gt_batch_uvarint(&d->b, stack);
	gt_batch_uvarint(&d->b, size);
	gt_batch_uvarint(&d->b, 0);
	gt_batch_uvarint(&d->b, (uint64_t)n);
	gt_batch_bytes(&d->b, name, (size_t)n);
}

/* dump_heap_tables writes the info batch and the type table of generation
 * old (only when heap events are on). */
static void dump_heap_tables(struct out *o, uint64_t old, uint64_t ts)
{
	if (!gt.malloc_events)
		return;
	uint8_t *mem = out_own(o, 128);
	if (mem) {
		struct gt_batch b;
		gt_batch_begin_exp(&b, mem, 128, GT_EXP_ALLOCFREE, old, GT_NO_THREAD, ts);
		gt_batch_byte(&b, GT_ALLOCFREE_INFO);
		gt_batch_uvarint(&b, GT_HEAP_MIN_ADDR);
		gt_batch_uvarint(&b, 4096);
		gt_batch_uvarint(&b, GT_HEAP_ALIGN);
		gt_batch_uvarint(&b, 0);
		out_add(o, b.mem, gt_batch_finish(&b));
	}
	struct type_dump d = { .o = o, .gen = old, .ts = ts };
	gt_typetab_each(&gt.types[old & 1], dump_type, &d);
	if (d.open)
		out_add(o, d.b.mem, gt_batch_finish(&d.b));
}

/* --- the switch ------------------------------------------------------------ */

static void fence_all_threads(void)
{
	if (gt.asym_fence && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return;
	gt.asym_fence = 0; /* fall back to fences on both sides from now on */
	atomic_thread_fence(memory_order_seq_cst);
}

/* write_out writes a complete generation (core/sink.h), or keeps it in the
 * flight recorder's ring, which the final generation then writes out whole. */
static void write_out(struct out *o, uint64_t old, uint64_t start_ts, uint64_t end_ts, int final)
{
	struct gt_sink_file f;
	if (!gt.flight_bytes) {
		if (gt_sink_begin(&f) == 0)
			gt_sink_generation(&f, o->iov, o->n);
		gt_sink_end(&f);
		return;
	}
	gt_flight_keep(old, start_ts, end_ts, o->iov, o->n);
	if (!final)
		return;
	if (gt_sink_begin(&f) == 0 && gt_flight_write(&f) == 0) {
		char what[96];
		gt_flight_describe(what, sizeof what);
		gt_warn("flight recorder: %s written to %s", what, f.path);
	}
	gt_sink_end(&f);
}

/* advance ends the generation in progress. pre: advance_lock held, the
 * final generation not written yet. */
static void advance(int final)
{
	uint64_t old = atomic_load_explicit(&gt.gen, memory_order_relaxed);
	atomic_store_explicit(&gt.gen_start[(old + 1) & 1], gt_now(), memory_order_relaxed);
	atomic_store_explicit(&gt.gen, old + 1, memory_order_release);
	fence_all_threads();
	uint64_t ts = gt_now();

	struct out o = { 0 };
	struct collected cs = { 0 };
	gt_lock(&gt.reg_lock);
	for (struct gt_thread *t = gt.threads; t; t = t->next) {
		if (wait_writer(t) != 0) {
			gt_warn("thread %llu is stuck in the tracer; its events of generation %llu are lost",
				(unsigned long long)t->m, (unsigned long long)old);
			continue;
		}
		struct gt_chunk *c = t->chunk[old & 1];
		if (c && c->gen == old) {
			collect(&cs, c);
			t->chunk[old & 1] = NULL;
		}
	}
	/* Per-thread tails, written after every chunk (a tail belongs after
	 * its thread's own batches). */
	struct out tails = { 0 };
	int tail_events = 0;
	for (struct gt_thread *t = gt.threads; t; t = t->next) {
		struct snap sn;
		snapshot(t, &sn);
		tail_events |= tail(&tails, t, &sn, old, ts);
	}
	gt_unlock(&gt.reg_lock);
	for (struct gt_chunk *c = gt_chunk_take_full(old), *next; c; c = next) {
		next = c->next;
		collect(&cs, c);
	}
	sort_chunks(cs.v, cs.n);

	/* Sync batch first. */
	uint8_t sync[64];
	struct gt_clock_snapshot snap = { .ts = ts };
	struct timespec mono, wall;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &wall);
	snap.mono_ns = (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec;
	snap.wall_sec = (uint64_t)wall.tv_sec;
	snap.wall_nsec = (uint64_t)wall.tv_nsec;
	size_t synclen = gt_write_sync(sync, gt.format, old, GT_CLOCK_FREQ, &snap);
	/* Go 1.27 stamps the generation's Sync event with the smallest base
	 * time of its batches; the sync batch's base is the switch time. */
	out_add(&o, sync, synclen);

	/* Stacks, then strings (symbolizing creates strings). */
	struct gt_strtab *strings = &gt.strings[old & 1];
	int bare = no_alloc(final);
	if (!symbolizer && !bare)
		symbolizer = gt_sym_open();
	struct stack_dump sd = { .tb = { .o = &o, .section = GT_EV_STACKS, .gen = old, .m = GT_NO_THREAD, .ts = ts },
				 .strings = strings, .no_alloc = bare };
	sd.main_id = str_id(strings, "main");
	gt_identity_refresh();
	str_id(strings, gt.identity); /* which process this is, in every generation */
	str_id(strings, gt_heap_sample_string); /* sampled heap recording: its mean (docs/heap.md) */
	memset(name_ids, 0, sizeof name_ids); /* ids are this generation's */
	gt_idmap_each(&gt.stacks[old & 1].map, dump_stack, &sd);
	tb_close(&sd.tb);

	struct string_dump strd = { .tb = { .o = &o, .section = GT_EV_STRINGS, .gen = old, .m = GT_NO_THREAD, .ts = ts } };
	if (tb_room(&strd.tb, GT_STRING_EVENT_MAX) == 0) {
		for (int id = 1; id < GT_STR_FIRST_DYNAMIC; id++)
			gt_batch_string(&strd.tb.b, (uint64_t)id, gt_fixed_strings[id], strlen(gt_fixed_strings[id]));
	}
	gt_idmap_each(&strings->map, dump_string, &strd);
	tb_close(&strd.tb);

	dump_heap_tables(&o, old, ts);

	/* Event batches after the tables, so a streaming reader has them
	 * first (docs/heap.md): each thread's in the order it wrote them, then
	 * the threads' tails (statuses of quiet threads, pending calls). */
	for (size_t i = 0; i < cs.n; i++)
		out_add(&o, cs.v[i]->b.mem, gt_batch_finish(&cs.v[i]->b));
	int events = cs.n > 0;
	for (int i = 0; i < tails.n; i++)
		out_add(&o, tails.iov[i].iov_base, tails.iov[i].iov_len);
	events |= tail_events;
	if (!events) {
		struct tbatch tb = { .o = &o, .gen = old, .m = GT_NO_THREAD, .ts = ts };
		if (tb_room(&tb, 64) == 0) {
			uint64_t a[2] = { IDLE_PROC_ID, GT_P_IDLE };
			gt_batch_event(&tb.b, GT_EV_PROC_STATUS, ts, 2, a);
			tb_close(&tb);
		}
	}

	static const uint8_t eog = GT_EV_END_OF_GENERATION;
	if (gt.format >= 26)
		out_add(&o, (void *)&eog, 1);

	write_out(&o, old, gen_start_ts, ts, final);

	gt_stacktab_reset(&gt.stacks[old & 1]);
	gt_typetab_reset(&gt.types[old & 1]);
	gt_strtab_reset(strings);
	for (size_t i = 0; i < cs.n; i++)
		gt_chunk_put(cs.v[i]);
	gt_region_reset(&adv_mem);
	gen_start_ts = ts;
	if (final) {
		gt.finished = 1;
		gt_pressure_report();
	}
}

uint64_t gt_advance_next_due(void)
{
	return gen_start_ts + gt.period_ns;
}

void gt_advance_locked(int kind)
{
	if (getpid() != gt.pid || gt.finished)
		return; /* a vfork child shares our memory, not our trace */
	gt_clock_check(); /* the TSC trace clock's calibration (core/clock.h) */
	if (kind == GT_ADV_SNAPSHOT && !gt.flight_bytes)
		kind = GT_ADV_NEXT;
	advance(kind == GT_ADV_FINAL);
	if (kind == GT_ADV_SNAPSHOT)
		gt_flight_snapshot();
}

void gt_advance(int final)
{
	if (!final && getpid() == gt.pid)
		gt_modules_refresh(); /* the unwinder's module table (core/modules.h); not in a handler */
	gt_lock(&gt.advance_lock);
	gt_advance_locked(final ? GT_ADV_FINAL : GT_ADV_NEXT);
	gt_unlock(&gt.advance_lock);
}

void gt_advance_warm(void)
{
	if (getpid() != gt.pid || !gt_trylock(&gt.advance_lock))
		return;
	if (!gt.finished) {
		if (!symbolizer)
			symbolizer = gt_sym_open();
		uintptr_t entry = getauxval(AT_ENTRY);
		struct gt_sym_frame f[16];
		if (symbolizer && entry)
			gt_sym_lookup(symbolizer, entry, false, f, 16);
	}
	gt_unlock(&gt.advance_lock);
}

void gt_advance_snapshot(void)
{
	gt_lock(&gt.advance_lock);
	gt_advance_locked(GT_ADV_SNAPSHOT);
	gt_unlock(&gt.advance_lock);
}
