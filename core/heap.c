/* heap.c — writing HeapObjectAlloc / HeapObjectFree and the HeapAlloc
 * metric. */
#include "heap.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <sys/auxv.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "hash.h"
#include "heapid.h"
#include "heaplive.h"
#include "heaplocal.h"
#include "heapset.h"
#include "heapsite.h"
#include "log.h"
#include "section.h"
#include "region.h"
#include "sample.h"
#include "stack.h"

int gt_heap_mode;
/* The mean of sampled recording (GT_HEAP_SAMPLE). */
static uint64_t sample_mean;

/* Live bytes of the objects recorded so far: malloc_usable_size when every
 * allocation is recorded (frees of objects allocated before tracing began
 * make it undercount, never below 0 on the wire); when sampled, the
 * estimate: sum over live sampled objects of gt_sample_weight(size), the
 * same integer weights `gotrace heap` and `gotrace stat` add up. */
static _Alignas(64) _Atomic int64_t live_bytes;
/* When the last HeapAlloc was written, and the largest value any HeapAlloc
 * carried (the peak written so far): written only with a metric. */
static _Alignas(64) _Atomic uint64_t metric_ts;
static _Atomic int64_t peak_written;

/* Every allocation recorded: each thread keeps its own running difference
 * and adds it to live_bytes only when it grows past this (or when it
 * writes the metric, or ends), so allocating threads do not fight over one
 * cache line; the metric is off by at most this much per other thread.
 * Sampled: changes are rare (one per ~M bytes), and go straight to
 * live_bytes, so the figure is exact. */
#define HEAP_DELTA_FLUSH (64 * 1024)

/* account adds d to the live bytes; returns the figure before, as this
 * thread sees it. */
static inline int64_t account(struct gt_thread *t, int64_t d)
{
	if (gt_heap_mode != GT_HEAP_ALL)
		return atomic_fetch_add_explicit(&live_bytes, d, memory_order_relaxed);
	int64_t before = atomic_load_explicit(&live_bytes, memory_order_relaxed) + t->heap_delta;
	t->heap_delta += d;
	if (t->heap_delta > HEAP_DELTA_FLUSH || t->heap_delta < -HEAP_DELTA_FLUSH) {
		atomic_fetch_add_explicit(&live_bytes, t->heap_delta, memory_order_relaxed);
		t->heap_delta = 0;
	}
	return before;
}

/* The thread's own type table (heaplocal.h): most allocations find their
 * (size, stack) there with one hash and a probe or two, without a lock;
 * a new one is interned in the generation's shared table once per thread
 * and generation. */
#define TYPES_FIRST 1024          /* slots of a new table */
#define TYPES_MAX (1u << 20)      /* a table never grows past this */

static void types_grow(struct gt_type_local *tl)
{
	uint32_t cap = tl->mask ? (tl->mask + 1) * 2 : TYPES_FIRST;
	if (cap > TYPES_MAX)
		return;
	struct gt_type_slot *slots = gt_map((size_t)cap * sizeof *slots);
	if (!slots)
		return;
	if (tl->slots) {
		for (uint32_t i = 0; i <= tl->mask; i++) {
			struct gt_type_slot *o = &tl->slots[i];
			if (o->epoch != tl->epoch)
				continue;
			uint32_t j = (uint32_t)gt_mix(((uint64_t)o->size << 32) | o->stack) & (cap - 1);
			while (slots[j].epoch == tl->epoch)
				j = (j + 1) & (cap - 1);
			slots[j] = *o;
		}
		gt_unmap(tl->slots, ((size_t)tl->mask + 1) * sizeof *tl->slots);
	}
	tl->slots = slots;
	tl->mask = cap - 1;
}

/* type_new: a type the thread has not used in this generation yet: its
 * own log gives it an id (core/typetab.h). */
static uint64_t type_new(struct gt_side *side, uint64_t gen, uint64_t size, uint64_t stack)
{
	int saved = errno; /* a new log or a longer one is mmap'd */
	uint64_t id = gt_typetab_add(&gt.types[gen & 1], &side->typelog[gen & 1], gen, size, stack);
	errno = saved;
	return id;
}

static uint64_t type_id_table(struct gt_thread *t, uint64_t gen, uint64_t size, uint64_t stack);

/* type_id: the type of an allocation of size bytes at stack (id) taken as
 * st. Small sizes at a remembered stack: one load from the stack's own
 * size table (its binding says the entry is for this generation and stack
 * id; a miss goes to the generation's shared table). The rest: the
 * thread's type table. */
static inline uint64_t type_id(struct gt_thread *t, uint64_t gen, uint64_t size, uint64_t stack,
			       const struct gt_stack *st)
{
	struct gt_stack_memo *m = st->memo;
	if (__builtin_expect(m && size < GT_SIZES && m->id == stack && m->id_gen == gen, 1)) {
		if (__builtin_expect(m->sizes != NULL, 1)) {
			uint64_t e = m->sizes[size];
			if (__builtin_expect((uint32_t)(e >> 32) == m->binding, 1))
				return (uint32_t)e;
		} else {
			int saved = errno;
			m->sizes = gt_map(GT_SIZES * sizeof *m->sizes);
			errno = saved;
		}
		/* The size table is this thread's cache for the pair: a miss is
		 * a new type. */
		uint64_t id = type_new(t->side, gen, size, stack);
		if (m->sizes && id <= UINT32_MAX)
			m->sizes[size] = (uint64_t)m->binding << 32 | id;
		return id;
	}
	return type_id_table(t, gen, size, stack);
}

static uint64_t type_id_table(struct gt_thread *t, uint64_t gen, uint64_t size, uint64_t stack)
{
	struct gt_side *side = gt_thread_side(t);
	if (__builtin_expect(!side, 0))
		return 0; /* out of memory: an unknown type */
	if (__builtin_expect(size > UINT32_MAX || stack > UINT32_MAX, 0))
		return type_new(side, gen, size, stack);
	struct gt_type_local *tl = &side->types;
	if (__builtin_expect(tl->gen != gen, 0)) {
		tl->gen = gen;
		tl->epoch++;
		tl->count = 0;
		if (tl->epoch == 0) { /* wrapped: clear the old entries for real */
			if (tl->slots)
				memset(tl->slots, 0, ((size_t)tl->mask + 1) * sizeof *tl->slots);
			tl->epoch = 1;
		}
	}
	if (__builtin_expect(tl->mask == 0, 0)) {
		int saved = errno;
		types_grow(tl);
		errno = saved;
		if (tl->mask == 0)
			return type_new(side, gen, size, stack);
	}
	uint32_t i = (uint32_t)gt_mix((size << 32) | stack) & tl->mask;
	for (;;) {
		struct gt_type_slot *e = &tl->slots[i];
		if (e->epoch != tl->epoch)
			break;
		if (e->size == size && e->stack == stack)
			return e->id;
		i = (i + 1) & tl->mask;
	}
	/* New to this thread in this generation. */
	uint64_t id = type_new(side, gen, size, stack);
	int saved = errno; /* growing the table may mmap */
	if (id && id <= UINT32_MAX) {
		if ((tl->count + 1) * 2 > tl->mask + 1) {
			uint32_t was = tl->mask;
			types_grow(tl);
			if (tl->mask != was) { /* find the insertion slot again */
				i = (uint32_t)gt_mix((size << 32) | stack) & tl->mask;
				while (tl->slots[i].epoch == tl->epoch)
					i = (i + 1) & tl->mask;
			}
		}
		if ((tl->count + 1) * 2 <= tl->mask + 1) {
			tl->slots[i] = (struct gt_type_slot){ tl->epoch, (uint32_t)size, (uint32_t)stack, (uint32_t)id };
			tl->count++;
		}
	}
	errno = saved;
	return id;
}

/* The HeapAlloc metric (docs/heap.md, "The heap peak"): with a heap event
 * when the last one is GT_HEAP_METRIC_NS old, and, so that its largest value is the peak of
 * the live figure, the peak itself: a free that takes the figure down
 * from a value above every HeapAlloc written so far writes that value
 * first, at the free's time (the figure held it until that free). At most
 * one metric per recorded free, usually none: a flat cost. The end of the
 * trace writes the figure once more (gt_heap_final). */
static void metric_value(struct section *s, uint64_t ts, int64_t live)
{
	uint64_t v = live > 0 ? (uint64_t)live : 0;
	ev1(s->b, GT_EV_HEAP_ALLOC, ts, v);
	atomic_store_explicit(&metric_ts, ts, memory_order_relaxed);
	int64_t w = atomic_load_explicit(&peak_written, memory_order_relaxed);
	while (live > w && !atomic_compare_exchange_weak_explicit(&peak_written, &w, live, memory_order_relaxed,
								   memory_order_relaxed))
		;
}

static void metric_write(struct section *s, uint64_t ts, uint64_t last);
static inline void metric(struct section *s, uint64_t ts)
{
	uint64_t last = atomic_load_explicit(&metric_ts, memory_order_relaxed);
	if (__builtin_expect(ts >= last + GT_HEAP_METRIC_NS, 0))
		metric_write(s, ts, last);
}

static void metric_write(struct section *s, uint64_t ts, uint64_t last)
{
	if (!atomic_compare_exchange_strong_explicit(&metric_ts, &last, ts, memory_order_relaxed,
						     memory_order_relaxed))
		return;
	struct gt_thread *t = s->t;
	int64_t live = atomic_fetch_add_explicit(&live_bytes, t->heap_delta, memory_order_relaxed) + t->heap_delta;
	t->heap_delta = 0;
	metric_value(s, ts, live);
}

/* peak_leaving: a free takes the figure down from before. */
static inline void peak_leaving(struct section *s, uint64_t ts, int64_t before)
{
	if (__builtin_expect(before > atomic_load_explicit(&peak_written, memory_order_relaxed), 0))
		metric_value(s, ts, before);
}

/* announced: gt_announced, errno kept (announcing a thread may make system
 * calls; the common case is two loads). */
static inline int announced(struct gt_thread *t)
{
	if (__builtin_expect(t->state == GT_T_RUNNING && t->p != NULL, 1))
		return 1;
	int saved = errno;
	int ok = gt_announced_slow(t) == 0;
	errno = saved;
	return ok;
}

/* Which live table an allocation goes into before its event is written
 * (so that every object whose HeapObjectAlloc is in a generation is in the
 * table when the next generation's snapshot copies it: core/gen_snap.h). */
enum { LIVE_NONE, LIVE_ALL, LIVE_SAMPLED };

/* write_alloc writes HeapObjectAlloc for p (size requested bytes, its type
 * at the wrapper's site), after putting it in the live table `live`. 0,
 * or -1 when nothing was written (nor put in the table). Preserves errno
 * (every part that may make a system call saves it itself). */
static inline __attribute__((always_inline)) int write_alloc(struct gt_thread *t, void *p, size_t size,
							      uintptr_t site, uintptr_t ra, uintptr_t cfa, int live)
{
	if (!announced(t))
		return -1;
	struct gt_stack stack;
	gt_stack_take_at(&stack, site, ra, cfa);
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		return -1;
	uint64_t stk = gt_stack_take_id(t, s.gen, &stack);
	uint64_t ty = type_id(t, s.gen, size, stk, &stack);
	if (live == LIVE_ALL) {
		gt_heaplive_insert(p, size, gt_heapref_stack(s.gen, stk), 0);
	} else if (live == LIVE_SAMPLED && gt_heapset_insert_site(p, size, gt_heapref_stack(s.gen, stk), 0) != 0) {
		section_close(&s);
		return -1;
	}
	ev2(s.b, GT_EV_HEAP_OBJECT_ALLOC, ts, gt_heap_id(t->side, (uintptr_t)p), ty);
	metric(&s, ts);
	section_close(&s);
	return 0;
}

/* write_free writes HeapObjectFree for p; before: the live figure before
 * its free was accounted (account's result). */
static inline __attribute__((always_inline)) void write_free(struct gt_thread *t, void *p, int64_t before)
{
	if (!announced(t))
		return;
	uint64_t ts = gt_now();
	struct section s;
	if (!gt_section_open(&s, t, ts))
		return;
	peak_leaving(&s, ts, before);
	ev1(s.b, GT_EV_HEAP_OBJECT_FREE, ts, gt_heap_id(t->side, (uintptr_t)p));
	metric(&s, ts);
	section_close(&s);
}

static inline int recording(void)
{
	return atomic_load_explicit(&gt.on, memory_order_relaxed);
}

/* sample_take: p (size bytes) is a sample: into the set, then its event.
 * Not in the set when it could not be written (its free must not be). */
static __attribute__((noinline)) void sample_take(struct gt_thread *t, void *p, size_t size, uintptr_t site,
						  uintptr_t ra, uintptr_t cfa)
{
	uint64_t w = gt_sample_weight(size, sample_mean);
	account(t, (int64_t)w);
	if (write_alloc(t, p, size, site, ra, cfa, LIVE_SAMPLED) != 0)
		account(t, -(int64_t)w);
}

/* countdown_other: gt_heap_countdown in every mode but GT_HEAP_ALL. */
static __attribute__((noinline)) void countdown_other(struct gt_thread *t, void *p, size_t size, uintptr_t site,
						      uintptr_t ra, uintptr_t cfa)
{
	int saved = errno;
	switch (gt_heap_mode) {
	case GT_HEAP_SAMPLE:
		if (__builtin_expect(!t->heap_rng, 0)) {
			/* The first allocation the thread counts: its generator
			 * is seeded from its goroutine id, so a deterministic
			 * program samples the same allocations run after run
			 * (ids are given in creation order). The countdown
			 * starts at this allocation. */
			if (!recording() || gt_announced(t) != 0) {
				t->heap_left = sample_mean;
				break;
			}
			t->heap_rng = gt_sample_seed(t->g);
			t->heap_left = gt_sample_interval(&t->heap_rng, sample_mean) - (uint64_t)size;
			if ((int64_t)t->heap_left >= 0)
				break;
		}
		/* The next interval starts after this allocation (memoryless:
		 * where the count stood inside it does not matter). */
		t->heap_left = gt_sample_interval(&t->heap_rng, sample_mean);
		if (p && recording())
			sample_take(t, p, size, site, ra, cfa);
		break;
	case GT_HEAP_OFF:
		t->heap_left = INT64_MAX;
		break;
	default: /* not configured yet: ask again next time */
		t->heap_left = 0;
		break;
	}
	errno = saved;
}

static inline __attribute__((always_inline)) void countdown(struct gt_thread *t, void *p, size_t size,
							     uintptr_t site, uintptr_t ra, uintptr_t cfa)
{
	if (__builtin_expect(gt_heap_mode == GT_HEAP_ALL, 1)) {
		t->heap_left = (uint64_t)-1; /* the next one too, even of 0 bytes */
		if (__builtin_expect(p && recording(), 1)) {
			account(t, (int64_t)gt_malloc_usable(p));
			write_alloc(t, p, size, site, ra, cfa, LIVE_ALL);
		}
		return;
	}
	countdown_other(t, p, size, site, ra, cfa);
}

void gt_heap_countdown(struct gt_thread *t, void *p, size_t size, uintptr_t site, uintptr_t ra, uintptr_t cfa)
{
	countdown(t, p, size, site, ra, cfa);
}

void *gt_heap_alloc_slow(void *p, size_t size, uintptr_t site, uintptr_t ra, uintptr_t cfa)
{
	struct gt_thread *t = &gt_self;
	t->inside++;
	countdown(t, p, size, site, ra, cfa);
	t->inside--;
	return p;
}

void gt_heap_free_all(struct gt_thread *t, void *p)
{
	if (__builtin_expect(!recording(), 0))
		return;
	gt_heaplive_remove(p, 0);
	int64_t before = account(t, -(int64_t)gt_malloc_usable(p));
	write_free(t, p, before);
}

void gt_heap_freeing(struct gt_thread *t, void *p, int nested)
{
	int saved = errno;
	if (gt_heap_mode == GT_HEAP_ALL) {
		gt_heaplive_remove(p, nested); /* even when nested: the snapshot must not restate it */
		if (!nested && recording()) {
			int64_t before = account(t, -(int64_t)gt_malloc_usable(p));
			write_free(t, p, before);
		}
	} else {
		uint64_t size;
		if (gt_heapset_remove(p, &size, nested) && !nested && recording()) {
			int64_t before = account(t, -(int64_t)gt_sample_weight(size, sample_mean));
			write_free(t, p, before);
		}
	}
	errno = saved;
}

uint64_t gt_heap_realloc_freeing(struct gt_thread *t, void *p, int nested)
{
	int saved = errno;
	uint64_t token = 0;
	if (gt_heap_mode == GT_HEAP_ALL) {
		gt_heaplive_remove(p, nested);
		if (!nested && recording()) {
			size_t was = gt_malloc_usable(p);
			int64_t before = account(t, -(int64_t)was);
			write_free(t, p, before);
			token = (uint64_t)was + 1;
		}
	} else {
		uint64_t size;
		if (gt_heapset_remove(p, &size, nested) && !nested && recording()) {
			int64_t before = account(t, -(int64_t)gt_sample_weight(size, sample_mean));
			write_free(t, p, before);
			token = size + 1;
		}
	}
	errno = saved;
	return token;
}

void gt_heap_realloc_failed(struct gt_thread *t, void *p, uint64_t token, uintptr_t site, uintptr_t ra,
			    uintptr_t cfa)
{
	if (!token || !recording())
		return;
	int saved = errno;
	if (gt_heap_mode == GT_HEAP_ALL) {
		account(t, (int64_t)(token - 1));
		write_alloc(t, p, token - 1, site, ra, cfa, LIVE_ALL);
	} else {
		sample_take(t, p, token - 1, site, ra, cfa);
	}
	errno = saved;
}

static void fork_prepare(void)
{
	gt_heapset_prepare();
	if (gt_heap_mode == GT_HEAP_ALL)
		gt_heaplive_prepare();
}

static void fork_parent(void)
{
	if (gt_heap_mode == GT_HEAP_ALL)
		gt_heaplive_parent();
	gt_heapset_parent();
}

/* The child's trace starts with no live object (core/fork.c). */
static void fork_child(void)
{
	gt_heapset_child();
	if (gt_heap_mode == GT_HEAP_ALL)
		gt_heaplive_child();
	gt_heapid_after_fork();
	atomic_store_explicit(&live_bytes, 0, memory_order_relaxed);
	atomic_store_explicit(&metric_ts, 0, memory_order_relaxed);
	atomic_store_explicit(&peak_written, 0, memory_order_relaxed);
	gt_self.heap_delta = 0;
}

void gt_heap_thread_end(struct gt_thread *t)
{
	if (t->heap_delta) {
		atomic_fetch_add_explicit(&live_bytes, t->heap_delta, memory_order_relaxed);
		t->heap_delta = 0;
	}
}

void gt_heap_final(struct gt_thread *t)
{
	if (gt_heap_mode == GT_HEAP_OFF || gt_heap_mode == GT_HEAP_UNSET || !recording() ||
	    atomic_load_explicit(&metric_ts, memory_order_relaxed) == 0)
		return; /* no heap event was written */
	int saved = errno;
	t->inside++;
	if (announced(t)) {
		uint64_t ts = gt_now();
		struct section s;
		if (gt_section_open(&s, t, ts)) {
			gt_heap_thread_end(t);
			metric_value(&s, ts, atomic_load_explicit(&live_bytes, memory_order_relaxed));
			section_close(&s);
		}
	}
	t->inside--;
	errno = saved;
}

void gt_heap_configure(int events, uint64_t sample_bytes)
{
	if (!events) {
		gt_heap_mode = GT_HEAP_OFF;
		return;
	}
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (!sample_bytes) {
		gt_heapset_fill(); /* every free is recorded */
		gt_heap_mode = GT_HEAP_ALL;
		return;
	}
	sample_mean = sample_bytes;
	snprintf(gt.heap_sample_string, sizeof gt.heap_sample_string, "gotrace.heap sample_bytes=%llu",
		 (unsigned long long)sample_bytes);
	gt_heap_mode = GT_HEAP_SAMPLE;
}

void gt_heap_check_allocator(void)
{
	/* The first malloc in the global scope is the one the program (and
	 * every library, ours included) calls: ours (inside this library's
	 * mapping), the program's own, or another preloaded library's. An
	 * executable's PLT stub for malloc (non-PIE programs) is where dlsym
	 * points too: only a definition counts. */
	void *first = dlsym(RTLD_DEFAULT, "malloc");
	if (!first || ((uintptr_t)first >= gt.self_lo && (uintptr_t)first < gt.self_hi))
		return;
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1(first, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym || sym->st_shndx == SHN_UNDEF)
		return;
	gt.foreign_malloc = 1;
	if (!gt.malloc_events)
		return;
	const char *who = di.dli_fname && *di.dli_fname ? di.dli_fname : NULL;
	/* The program's own: defined by the object holding its program headers. */
	Dl_info exe;
	int own = who && dladdr((void *)getauxval(AT_PHDR), &exe) && exe.dli_fbase == di.dli_fbase;
	/* Every trace says so in its strings (`gotrace stat` and `gotrace
	 * heap` report it). The program's own allocator (Chromium's
	 * PartitionAlloc, rustc's jemalloc) is what the program is: nothing
	 * is written on its stderr, which is the program's output. Another
	 * preloaded one is a setting the user made and can change: said on
	 * stderr by every process. */
	snprintf(gt.heap_note, sizeof gt.heap_note, "gotrace.heap not_recorded=%s by=%s",
		 own ? "own_malloc" : "preload_order", who ? who : "another library");
	if (!own)
		gt_warn("malloc comes from %s, which is ahead of libgotrace.so in LD_PRELOAD: heap events are not recorded "
			"(put libgotrace.so first to record them)", who ? who : "another library");
}
