/* thread.c — the thread registry, the P free list, and label hand-over. */
#include "thread.h"

#include <errno.h>
#include <string.h>

#include "chunk.h"
#include "region.h"
#include "stack.h"
#include "sys.h"

__thread struct gt_thread gt_self __attribute__((tls_model("initial-exec")));

/* A label set for a thread before it registered (pthread_setname_np right
 * after pthread_create). Under reg_lock. */
struct gt_pending_label {
	struct gt_pending_label *next;
	pthread_t th;
	char name[16];
};

static struct gt_pending_label label_pool[64];
static struct gt_pending_label *label_free;
static int label_pool_ready;

/* A registered thread's exit — a return from its start routine,
 * pthread_exit, cancellation — runs the exit hook: the destructor of a TLS
 * key whose value registration sets. */
static pthread_key_t exit_key;
static int exit_key_made;

void gt_thread_on_exit(void (*hook)(void *))
{
	if (pthread_key_create(&exit_key, hook) == 0)
		exit_key_made = 1;
}

struct gt_proc *gt_proc_acquire(void)
{
	static struct gt_proc slab[256];
	static unsigned slab_used;
	gt_lock(&gt.proc_lock);
	struct gt_proc *p = gt.free_procs;
	if (p) {
		gt.free_procs = p->next_free;
	} else {
		if (slab_used < sizeof slab / sizeof slab[0]) {
			p = &slab[slab_used++];
		} else {
			p = gt_map(sizeof *p); /* never freed: a P outlives its threads */
		}
		if (p) {
			memset(p, 0, sizeof *p);
			p->id = gt.next_p++;
		}
	}
	gt_unlock(&gt.proc_lock);
	return p;
}

void gt_proc_release(struct gt_proc *p)
{
	gt_lock(&gt.proc_lock);
	p->next_free = gt.free_procs;
	gt.free_procs = p;
	gt_unlock(&gt.proc_lock);
}

static void copy_label(struct gt_thread *t, const char *name)
{
	atomic_fetch_add_explicit(&t->label_seq, 1, memory_order_acq_rel);
	strncpy(t->label, name, sizeof t->label - 1);
	t->label[sizeof t->label - 1] = 0;
	atomic_fetch_add_explicit(&t->label_seq, 1, memory_order_acq_rel);
	atomic_fetch_or_explicit(&t->label_pending, GT_PENDING_LABEL, memory_order_release);
}

static struct gt_thread_hooks hooks;

void gt_thread_set_hooks(const struct gt_thread_hooks *h)
{
	hooks = *h;
}

void gt_thread_register(struct gt_thread *t, uint64_t g, uintptr_t start_pc)
{
	/* Once per thread: a signal handler's wrapped call cannot get here
	 * while registration is under way (the caller raised t->inside), and
	 * a thread registered already stays as it is. */
	if (t->registered || !gt_thread_side(t))
		return; /* registered already, or no memory: t->p stays NULL */
	t->g = g ? g : atomic_fetch_add(&gt.next_g, 1);
	t->m = (uint64_t)gt_gettid();
	t->p = gt_proc_acquire();
	t->start_pc = start_pc;
	t->self = pthread_self();
	gt_lock(&gt.reg_lock);
	t->serial = gt.next_serial++;
	t->next = gt.threads;
	t->prev = NULL;
	if (gt.threads)
		gt.threads->prev = t;
	gt.threads = t;
	gt.nthreads++;
	t->registered = 1;
	if (hooks.joined)
		hooks.joined(t); /* e.g. its CPU-time timer (core/cpusample.h) */
	for (struct gt_pending_label **pp = &gt.pending_labels; *pp; pp = &(*pp)->next) {
		if (pthread_equal((*pp)->th, t->self)) {
			struct gt_pending_label *pl = *pp;
			copy_label(t, pl->name);
			*pp = pl->next;
			pl->next = label_free;
			label_free = pl;
			break;
		}
	}
	gt_unlock(&gt.reg_lock);
	if (exit_key_made)
		pthread_setspecific(exit_key, t);
}

void gt_thread_unregister(struct gt_thread *t)
{
	if (!t->registered)
		return;
	gt_lock(&gt.reg_lock);
	if (hooks.leaving)
		hooks.leaving(t);
	for (int i = 0; i < 2; i++) {
		if (t->chunk[i]) {
			gt_chunk_push_full(t->chunk[i]);
			t->chunk[i] = NULL;
		}
	}
	if (t->prev)
		t->prev->next = t->next;
	else
		gt.threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	gt.nthreads--;
	t->registered = 0;
	gt_unlock(&gt.reg_lock);
	if (t->p) {
		gt_proc_release(t->p);
		t->p = NULL;
	}
}

/* Side areas of ended threads are kept for the next threads instead of
 * unmapped: a thread that lives for microseconds (a pool's churn) would
 * otherwise pay an mmap and an munmap, with its TLB shootdown on every CPU
 * the process runs on, each time (~15 us a thread). At most SIDE_POOL_MAX
 * are kept; the pool is linked through block_pcs[0]. */
#define SIDE_POOL_MAX 256
static gt_lock_t side_lock = GT_LOCK_INIT;
static struct gt_side *side_pool;
static unsigned side_pooled;

/* fresh: a pooled side area as a new one would be, where it matters: no
 * remembered stack, no stack id cached (generation numbers start again
 * after fork), no heap types. Captured frames and working memory are
 * written before they are read. */
static void fresh(struct gt_side *s)
{
	for (unsigned i = 0; i < GT_MEMO_WAYS * GT_MEMO_SETS; i++) {
		s->memo[i].n = 0;
		s->memo[i].stamp = 0;
		s->memo[i].id_gen = 0;
		s->memo[i].sizes = NULL;
		s->memo[i].binding = 0;
	}
	s->memo_tick = 0;
	s->bindings = 0;
	memset(&s->types, 0, sizeof s->types);
	s->typelog[0] = s->typelog[1] = NULL;
	memset(s->stack_cache, 0, sizeof s->stack_cache);
	s->stack_base = s->stack_len = 0;
}

struct gt_side *gt_thread_side_slow(struct gt_thread *t)
{
	struct gt_side *side = NULL;
	gt_lock(&side_lock);
	if (side_pool) {
		side = side_pool;
		side_pool = (struct gt_side *)side->block_pcs[0];
		side_pooled--;
	}
	gt_unlock(&side_lock);
	if (side) {
		fresh(side);
	} else {
		int saved = errno;
		side = gt_map(sizeof *side); /* zeroed */
		errno = saved;
	}
	if (side)
		t->block_pcs = side->block_pcs;
	t->side = side;
	return side;
}

void gt_thread_side_free(struct gt_thread *t)
{
	struct gt_side *s = t->side;
	if (!s)
		return;
	t->side = NULL;
	t->block_pcs = NULL;
	for (int i = 0; i < 2; i++)
		gt_typelog_release(&gt.types[i], s->typelog[i]); /* the flusher frees them */
	for (unsigned i = 0; i < GT_MEMO_WAYS * GT_MEMO_SETS; i++)
		if (s->memo[i].sizes)
			gt_unmap(s->memo[i].sizes, GT_SIZES * sizeof *s->memo[i].sizes);
	if (s->types.slots)
		gt_unmap(s->types.slots, ((size_t)s->types.mask + 1) * sizeof *s->types.slots);
	gt_lock(&side_lock);
	if (side_pooled < SIDE_POOL_MAX) {
		s->block_pcs[0] = (uintptr_t)side_pool;
		side_pool = s;
		side_pooled++;
		s = NULL;
	}
	gt_unlock(&side_lock);
	if (s)
		gt_unmap(s, sizeof *s);
}

void gt_thread_side_pool_lock(void)
{
	gt_lock(&side_lock);
}

void gt_thread_side_pool_unlock(void)
{
	gt_unlock(&side_lock);
}

void gt_thread_side_pool_after_fork(void)
{
	gt_lock_reset(&side_lock); /* the pooled areas are the child's memory too */
}

void gt_thread_set_label(pthread_t th, const char *name)
{
	gt_lock(&gt.reg_lock);
	struct gt_thread *t;
	for (t = gt.threads; t; t = t->next)
		if (pthread_equal(t->self, th))
			break;
	if (t) {
		copy_label(t, name);
	} else {
		if (!label_pool_ready) {
			for (size_t i = 0; i < sizeof label_pool / sizeof label_pool[0]; i++) {
				label_pool[i].next = label_free;
				label_free = &label_pool[i];
			}
			label_pool_ready = 1;
		}
		struct gt_pending_label *pl = NULL;
		for (pl = gt.pending_labels; pl; pl = pl->next)
			if (pthread_equal(pl->th, th))
				break;
		if (!pl && label_free) {
			pl = label_free;
			label_free = pl->next;
			pl->th = th;
			pl->next = gt.pending_labels;
			gt.pending_labels = pl;
		}
		if (pl) {
			strncpy(pl->name, name, sizeof pl->name - 1);
			pl->name[sizeof pl->name - 1] = 0;
		}
	}
	gt_unlock(&gt.reg_lock);
}

int gt_thread_take_label(struct gt_thread *t, char out[16])
{
	if (!(atomic_fetch_and_explicit(&t->label_pending, ~GT_PENDING_LABEL, memory_order_acquire) & GT_PENDING_LABEL))
		return -1;
	for (;;) {
		uint32_t s = atomic_load_explicit(&t->label_seq, memory_order_acquire);
		if (s & 1)
			continue;
		memcpy(out, t->label, 16);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&t->label_seq, memory_order_relaxed) == s)
			break;
	}
	out[15] = 0;
	return (int)strlen(out);
}
