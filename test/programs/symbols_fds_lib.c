/* symbols_fds_lib: a library for symbols_fds, built once per variant with
 * -DSYMFD_VARIANT=a (or b, ...): each variant exports symfd_work, reached
 * through two functions of its own and an inlined function whose DWARF is
 * the same in every variant (so dwz moves it to a common file). */
#include <sched.h>
#include <stdlib.h>

#define CAT_(a, b, c) a##b##c
#define CAT(a, b, c) CAT_(a, b, c)
#define NAME(n) CAT(symfd_, SYMFD_VARIANT, n)

static inline __attribute__((always_inline)) int symfd_inline_step(int x)
{
	void *p = malloc(32 + (unsigned)(x & 7));
	sched_yield();
	free(p);
	return x * 3 + 1;
}

__attribute__((noinline)) int NAME(_level2)(int x)
{
	int r = symfd_inline_step(x);
	__asm__ volatile("" ::: "memory");
	return r + 1;
}

__attribute__((noinline)) int NAME(_level1)(int x)
{
	int r = NAME(_level2)(x);
	__asm__ volatile("" ::: "memory");
	return r + 2;
}

int symfd_work(int x)
{
	int r = NAME(_level1)(x);
	__asm__ volatile("" ::: "memory");
	return r;
}
