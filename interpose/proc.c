/* proc.c — waiting for child processes (wait family, system, pclose): a
 * wait is a system call (GoSyscallBegin/End). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "interpose.h"

GT_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, waitpid, GT_REAL(waitpid)(pid, status, options));
}

GT_EXPORT pid_t wait(int *status)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, wait, GT_REAL(wait)(status));
}

GT_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, wait4, GT_REAL(wait4)(pid, status, options, ru));
}

GT_EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, waitid, GT_REAL(waitid)(type, id, info, options));
}

GT_EXPORT int system(const char *cmd)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, system, GT_REAL(system)(cmd));
}

GT_EXPORT int pclose(FILE *f)
{
	GT_WAIT_CALL(GT_CALL_SYSCALL, pclose, GT_REAL(pclose)(f));
}
