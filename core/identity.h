/* identity.h — which process a trace is.
 *
 * A run of a browser or a build leaves one trace per process; each says which
 * process it is: every generation's string table holds gt.identity,
 *
 *     gotrace.process pid=<pid> ppid=<ppid> [cpu_hz=<N>] cmd=<argv, space-separated>
 *
 * (arguments holding spaces or quotes are double-quoted, control bytes,
 * quotes and backslashes C-escaped; the command line cut to keep the
 * whole string under GT_IDENTITY_MAX bytes), so any window of generations names its process; and the
 * main thread's first generation carries it as a UserLog (category
 * "gotrace.process", the text after the prefix) so that `go tool trace`
 * shows it. Strings no event refers to are valid for Go's readers. */
#ifndef GT_IDENTITY_H
#define GT_IDENTITY_H

#define GT_IDENTITY_PREFIX "gotrace.process"
/* Go's readers refuse a string longer than 1024 bytes (the whole trace
 * with it): the identity stays below that, its command line cut. */
#define GT_IDENTITY_MAX 1000
#define GT_IDENTITY_CMD_MAX 900

/* gt_identity_init builds gt.identity from the program's arguments (the
 * constructor's argc/argv, which glibc passes to every constructor). */
void gt_identity_init(int argc, char **argv);

/* gt_identity_set_cpu_hz states the CPU sampling rate (GOTRACE_CPU, in Hz,
 * rounded; 0: no sampling, no field), which `gotrace cpu` reads to turn
 * samples into CPU time (the Go format carries no rate). */
void gt_identity_set_cpu_hz(unsigned hz);

/* gt_identity_after_fork: the same command line, the child's pid. */
void gt_identity_after_fork(void);

/* gt_identity_refresh re-reads the command line from /proc/self/cmdline
 * (a process may retitle itself) and the parent; at each generation switch. */
void gt_identity_refresh(void);

#endif
