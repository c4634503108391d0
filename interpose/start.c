/* start.c — __libc_start_main: run main through a trampoline frame of
 * ours, so the main thread's stacks end at main (as a goroutine's end at its
 * start function) instead of at _start. */
#include "interpose.h"

typedef int (*main_fn)(int, char **, char **);

static main_fn real_main;

GT_START_FRAME __attribute__((noinline, optimize("no-optimize-sibling-calls"))) static int main_trampoline(int argc, char **argv,
											 char **envp)
{
	int r = real_main(argc, argv, envp);
	__asm__ volatile("" ::: "memory");
	return r;
}

GT_EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
				void (*rtld_fini)(void), void *stack_end)
{
	real_main = main;
	return GT_REAL(libc_start_main)(main_trampoline, argc, argv, init, fini, rtld_fini, stack_end);
}
