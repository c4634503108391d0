/* test_engine_heap.c — heap events through the engine: objects with their
 * types (the AllocFree type tables), frees, and sampling. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <malloc.h>
#include <string.h>

#include "core/advance.h"
#include "core/sample.h"
#include "encoder/wire.h"
#include "test_engine_fixture.h"

Test(engine_heap, every_allocation_with_its_type)
{
	ex_start((const char *const[]){ "GOTRACE_MALLOC=all", NULL });
	void *a = ex_malloc(24), *b = ex_malloc(100), *c = ex_malloc(24);
	ex_free(a);
	gt_advance(0); /* the types of generation 1 are written with it */
	ex_free(b);
	void *d = ex_malloc(24);
	ex_free(c);
	ex_free(d);
	ex_stop();
	struct ex_trace *t = ex_read();
	cr_assert_geq(t->gens, 2);
	cr_assert_eq(t->heap_infos, t->gens, "an AllocFree info batch per generation");
	cr_assert_eq(ex_count(t, GT_EV_HEAP_OBJECT_ALLOC, 1), 4);
	cr_assert_eq(ex_count(t, GT_EV_HEAP_OBJECT_FREE, 1), 4);
	/* Each allocation's type: its size, at the allocating function. */
	uint64_t sizes[4] = { 24, 100, 24, 24 }, ids[4], types[4], gens[4], stacks[4];
	size_t i = 0;
	for (int k = 0; k < 4; k++) {
		i = ex_next(t, i, GT_EV_HEAP_OBJECT_ALLOC, 1);
		cr_assert_lt(i, t->nev);
		const struct ex_ev *e = &t->ev[i];
		ids[k] = e->args[0];
		types[k] = e->args[1];
		gens[k] = e->gen;
		const struct ex_type *ty = ex_type(t, e->gen, e->args[1]);
		cr_assert(ty, "type %llu of generation %llu", (unsigned long long)e->args[1], (unsigned long long)e->gen);
		cr_assert_eq(ty->size, sizes[k]);
		char want[40];
		snprintf(want, sizeof want, "malloc %llu", (unsigned long long)sizes[k]);
		cr_assert_str_eq(ty->name, want);
		const struct ex_stack *s = ex_stack(t, e->gen, ty->stack);
		cr_assert(s && s->n >= 1);
		cr_assert_str_eq(s->f[0].func, "ex_malloc");
		stacks[k] = ty->stack;
		i++;
	}
	cr_assert_neq(ids[0], ids[1]);
	cr_assert_neq(ids[0], ids[2]);
	/* Frees name the objects allocated: a first, b next (after the switch). */
	size_t f = ex_next(t, 0, GT_EV_HEAP_OBJECT_FREE, 1);
	cr_assert_eq(t->ev[f].args[0], ids[0]);
	f = ex_next(t, f + 1, GT_EV_HEAP_OBJECT_FREE, 1);
	cr_assert_eq(t->ev[f].args[0], ids[1]);
	cr_assert_gt(t->ev[f].gen, 1);
	/* Two allocations of 24 bytes at one stack, in one generation, share
	 * their type (the thread's own type table). */
	cr_assert_eq(gens[0], gens[2]);
	if (stacks[0] == stacks[2])
		cr_assert_eq(types[0], types[2]);
	cr_assert_neq(types[0], types[1], "24 and 100 bytes are two types");
	ex_free_trace(t);
}

Test(engine_heap, sampled_allocations_are_a_sample)
{
	ex_start((const char *const[]){ "GOTRACE_MALLOC=4KB", NULL });
	enum { N = 20000 };
	static void *p[N];
	for (int i = 0; i < N; i++)
		p[i] = ex_malloc(64);
	for (int i = 0; i < N; i++)
		ex_free(p[i]);
	ex_stop();
	struct ex_trace *t = ex_read();
	/* 1.28 MB in 64-byte objects, one per ~4 KB: ~300 recorded. */
	size_t allocs = ex_count(t, GT_EV_HEAP_OBJECT_ALLOC, 1), frees = ex_count(t, GT_EV_HEAP_OBJECT_FREE, 1);
	cr_assert(allocs > 150 && allocs < 600, "%zu sampled", allocs);
	cr_assert_eq(frees, allocs, "each sampled object's free, no other");
	int found = 0;
	for (size_t i = 0; i < t->nstr; i++)
		found |= strcmp(t->str[i].s, "gotrace.heap sample_bytes=4096") == 0;
	cr_assert(found, "the sampling mean in the strings");
	ex_free_trace(t);
}

/* max_metric: the largest HeapAlloc of the trace, and how many there are. */
static uint64_t max_metric(const struct ex_trace *t, size_t *n)
{
	uint64_t max = 0;
	*n = 0;
	for (size_t i = ex_next(t, 0, GT_EV_HEAP_ALLOC, 0); i < t->nev; i = ex_next(t, i + 1, GT_EV_HEAP_ALLOC, 0)) {
		(*n)++;
		if (t->ev[i].args[0] > max)
			max = t->ev[i].args[0];
	}
	return max;
}

/* The HeapAlloc metric carries the peak even when the program's whole life
 * is shorter than its 10 ms period (docs/heap.md, "The heap peak"). */
Test(engine_heap, the_metric_carries_the_peak_sampled)
{
	ex_start((const char *const[]){ "GOTRACE_MALLOC=4KB", NULL });
	enum { N = 4000 };
	static void *p[N];
	for (int i = 0; i < N; i++)
		p[i] = ex_malloc(64);
	for (int i = 0; i < N; i++)
		ex_free(p[i]);
	ex_stop();
	struct ex_trace *t = ex_read();
	size_t allocs = ex_count(t, GT_EV_HEAP_OBJECT_ALLOC, 1), n;
	cr_assert_gt(allocs, 10);
	uint64_t max = max_metric(t, &n);
	cr_assert_eq(max, allocs * gt_sample_weight(64, 4096), "every sampled object live at the peak");
	cr_assert_leq(n, allocs + 2, "at most one metric per recorded free, and the end");
	size_t last = 0;
	for (size_t i = ex_next(t, 0, GT_EV_HEAP_ALLOC, 0); i < t->nev; i = ex_next(t, i + 1, GT_EV_HEAP_ALLOC, 0))
		last = i;
	cr_assert_eq(t->ev[last].args[0], 0, "the end: nothing live");
	ex_free_trace(t);
}

Test(engine_heap, the_metric_carries_the_peak_every_allocation)
{
	ex_start((const char *const[]){ "GOTRACE_MALLOC=all", NULL });
	void *a = ex_malloc(24), *b = ex_malloc(1000);
	uint64_t peak = malloc_usable_size(a) + malloc_usable_size(b);
	ex_free(a);
	void *c = ex_malloc(10); /* lower than the peak */
	ex_free(c);
	ex_free(b);
	void *d = ex_malloc(5000); /* a new peak, at the end */
	ex_stop();
	struct ex_trace *t = ex_read();
	size_t n;
	uint64_t max = max_metric(t, &n);
	cr_assert_eq(max, malloc_usable_size(d), "the end's figure is the last peak");
	int seen = 0;
	for (size_t i = ex_next(t, 0, GT_EV_HEAP_ALLOC, 0); i < t->nev; i = ex_next(t, i + 1, GT_EV_HEAP_ALLOC, 0))
		seen |= t->ev[i].args[0] == peak;
	cr_assert(seen, "the first peak, written by the free that left it");
	free(d);
	ex_free_trace(t);
}
