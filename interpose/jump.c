/* jump.c — longjmp, _longjmp, siglongjmp and __longjmp_chk (fortified
 * builds): each notes the time on the thread when a call that may wait in
 * the kernel is pending, then jumps. A signal handler that leaves a wait
 * this way never returns into the waiting wrapper; the thread's next
 * traced call, made from above the wrapper's frame, ends the wait at this
 * time (core/callwait.h, gt_enter_nested). Nothing else changes: the jump
 * is the real one. */
#include <setjmp.h>

#include "interpose.h"

GT_EXPORT void longjmp(jmp_buf env, int val)
{
	gt_call_jump(env);
	GT_REAL(longjmp)(env, val);
	__builtin_unreachable();
}

GT_EXPORT void _longjmp(jmp_buf env, int val)
{
	gt_call_jump(env);
	GT_REAL(_longjmp)(env, val);
	__builtin_unreachable();
}

GT_EXPORT void siglongjmp(sigjmp_buf env, int val)
{
	gt_call_jump(env);
	GT_REAL(siglongjmp)(env, val);
	__builtin_unreachable();
}

void gt___longjmp_chk(struct __jmp_buf_tag *env, int val) __asm__("__longjmp_chk") __attribute__((noreturn));
GT_EXPORT void gt___longjmp_chk(struct __jmp_buf_tag *env, int val)
{
	gt_call_jump(env);
	GT_REAL(longjmp_chk)(env, val);
	__builtin_unreachable();
}
