/* stack.c — capturing raw stacks with libunwind and interning them. */
#define UNW_LOCAL_ONLY
#include "stack.h"

#include <dlfcn.h>
#include <link.h>
#include <libunwind.h>
#include <string.h>

#include "hash.h"
#include "thread.h"
#include "tracer.h"

static int find_self(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uintptr_t probe = (uintptr_t)ctx;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (probe >= lo && probe < hi) {
		gt.self_lo = lo;
		gt.self_hi = hi;
		return 1;
	}
	return 0;
}

void gt_stack_init(void)
{
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	unw_set_cache_size(unw_local_addr_space, 1024, 0);
	dl_iterate_phdr(find_self, (void *)(uintptr_t)gt_stack_init);
}

unsigned gt_stack_capture(uintptr_t *pcs, unsigned max, uintptr_t site)
{
	if (max == 0)
		return 0;
	pcs[0] = site;
	if (max == 1)
		return 1;
	void *raw[GT_MAX_FRAMES + 16];
	unsigned want = max - 1 + 16;
	if (want > sizeof raw / sizeof raw[0])
		want = sizeof raw / sizeof raw[0];
	int got = unw_backtrace(raw, (int)want);
	unsigned n = 1;
	for (int i = 0; i < got && n < max; i++) {
		uintptr_t pc = (uintptr_t)raw[i];
		if (pc >= gt.self_lo && pc < gt.self_hi) {
			/* Our frames: first the wrapper and the tracer (skipped);
			 * below the program's frames, a start trampoline (main's
			 * or a thread's): the stack ends at the start function. */
			if (n > 1)
				break;
			continue;
		}
		if (pc == 0)
			break;
		pcs[n++] = pc;
	}
	return n;
}

uint64_t gt_stack_id(struct gt_thread *t, uint64_t gen, const uintptr_t *pcs, unsigned n)
{
	if (n == 0)
		return 0;
	uint64_t h = gt_hash_words(pcs, n);
	struct gt_stack_cache_entry *e = &t->stack_cache[h & (GT_STACK_CACHE - 1)];
	if (e->hash == h && e->gen == gen)
		return e->id;
	uint64_t id = gt_stacktab_put(&gt.stacks[gen & 1], h, pcs, n);
	if (id) {
		e->hash = h;
		e->gen = gen;
		e->id = id;
	}
	return id;
}
