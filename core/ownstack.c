/* ownstack.c — the tracer's own stack (ownstack.h). */
#include "ownstack.h"
#include "ownmaps.h"
#include "real.h"
#include "sys.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

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

/* drain_own_signals takes back a SIGPIPE or SIGXFSZ that the work's own
 * writes raised (a FIFO's reader gone, a file size limit): left pending,
 * it would reach the program, or kill it, once the mask is restored. One
 * that was pending before is the program's and stays. */
static void drain_own_signals(const sigset_t *before)
{
	static const int ours[] = { SIGPIPE, SIGXFSZ };
	sigset_t now;
	if (sigpending(&now) != 0)
		return;
	for (unsigned i = 0; i < sizeof ours / sizeof ours[0]; i++) {
		if (!sigismember(&now, ours[i]) || sigismember(before, ours[i]))
			continue;
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, ours[i]);
		gt_sys_take_pending(&one);
	}
}

int gt_ownstack_run(void (*fn)(void *), void *arg)
{
	int saved = errno;
	sigset_t all, old;
	sigfillset(&all);
	GT_REAL(pthread_sigmask)(SIG_SETMASK, &all, &old); /* glibc keeps its own two */
	if (!stack_base) {
		char *p = gt_sys_mmap(NULL, OWN_STACK_SIZE + GUARD_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			GT_REAL(pthread_sigmask)(SIG_SETMASK, &old, NULL);
			errno = saved;
			return -1;
		}
		gt_sys_call(SYS_mprotect, p, GUARD_SIZE, PROT_NONE);
		gt_ownmaps_add(p, OWN_STACK_SIZE + GUARD_SIZE);
		stack_base = p;
	}
	sigset_t before;
	sigpending(&before);
	void *top = stack_base + GUARD_SIZE + OWN_STACK_SIZE - 64;
	switch_and_call(top, fn, arg);
	drain_own_signals(&before);
	GT_REAL(pthread_sigmask)(SIG_SETMASK, &old, NULL);
	errno = saved;
	return 0;
}
