/* ownstack.c — the tracer's own stack (ownstack.h). */
#include "ownstack.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#define OWN_STACK_SIZE (1u << 20)
#define GUARD_SIZE 4096u

static char *stack_base; /* guard page, then the stack; NULL until first use */

/* switch_and_call runs fn(arg) with rsp at top (16-byte aligned). The old rsp
 * is kept in a callee-saved register across the call. */
static void switch_and_call(void *top, void (*fn)(void *), void *arg)
{
	__asm__ volatile("mov %%rsp, %%rbx\n\t"
			 "mov %0, %%rsp\n\t"
			 "mov %2, %%rdi\n\t"
			 "call *%1\n\t"
			 "mov %%rbx, %%rsp\n\t"
			 :
			 : "r"(top), "r"(fn), "r"(arg)
			 : "rbx", "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory", "cc",
			   "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
			   "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

int gt_ownstack_run(void (*fn)(void *), void *arg)
{
	int saved = errno;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* glibc keeps its own two */
	if (!stack_base) {
		char *p = mmap(NULL, OWN_STACK_SIZE + GUARD_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			errno = saved;
			return -1;
		}
		mprotect(p, GUARD_SIZE, PROT_NONE);
		stack_base = p;
	}
	void *top = stack_base + GUARD_SIZE + OWN_STACK_SIZE - 64;
	switch_and_call(top, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved;
	return 0;
}
