/* plt_start_lib: the library of plt_start. plt_worker, a thread's start
 * routine, sleeps 20 ms in hidden_wait, a function whose symbol the test
 * strips (objcopy --strip-debug --strip-symbol=hidden_wait): a PC there
 * has no function of its own, and must not take the name of the symbol
 * before it. */
#include <unistd.h>

__attribute__((noinline)) static int hidden_wait(int x)
{
	usleep(20000);
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) void *plt_worker(void *arg)
{
	int r = hidden_wait((int)(long)arg);
	__asm__ volatile("" ::: "memory");
	return (void *)(long)r;
}
