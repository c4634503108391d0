/* hotpath: tight loops over one interposed operation, for counting the
 * instructions the tracer adds with valgrind's callgrind
 * (test/integration/test_hotpath_instructions.py).
 *
 *   hotpath MODE N
 *
 * MODE is one of
 *
 *   mutex    pthread_mutex_lock + pthread_mutex_unlock, uncontended
 *   yield    sched_yield
 *   pipe     write one byte to a pipe, read it back (neither call waits)
 *   malloc   malloc(48) + free of the same block
 *   stdio    putc of one character to a fully buffered FILE and getc of
 *            one from another, both served by their buffer (1 MiB each:
 *            no flush nor refill during the loop)
 *   deep     malloc(48) + free at the bottom of DEEP nested calls, so that
 *            a captured stack has 32 frames (the malloc site, the DEEP
 *            calls, hot_deep, main): with GOTRACE_STACKS above 33 every
 *            stack is unwound afresh (no remembered stack)
 *   syscall  syscall(SYS_getppid): a number the tracer passes on
 *   wake     syscall(SYS_futex, FUTEX_WAKE_PRIVATE) on a word nobody waits
 *            on (records nothing)
 *
 * main first runs the operation WARMUP times in warm_MODE (lazy binding,
 * the tracer's per-thread set-up, descriptor classification all happen
 * there), then exactly N times in hot_MODE.  Only hot_MODE is meant to be
 * counted: `valgrind --tool=callgrind --collect-atstart=no
 * --toggle-collect=hot_MODE`.  Both are noinline so that the function
 * exists under that name.  Prints "hotpath MODE N ok"; exit 0, or 1 when
 * a call failed. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/futex.h>

#define WARMUP 20

static pthread_mutex_t lone = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2];

static inline int op_mutex(void)
{
	return pthread_mutex_lock(&lone) != 0 || pthread_mutex_unlock(&lone) != 0;
}

static inline int op_yield(void)
{
	return sched_yield() != 0;
}

static inline int op_pipe(void)
{
	char c = 'x';
	if (write(pipefd[1], &c, 1) != 1)
		return 1;
	return read(pipefd[0], &c, 1) != 1;
}

static FILE *stdio_in, *stdio_out;

static inline int op_stdio(void)
{
	if (putc('s', stdio_out) != 's')
		return 1;
	return getc(stdio_in) != 's';
}

/* stdio_open: the two FILEs of op_stdio, each with a 1 MiB buffer; the
 * input holds 1 MiB of 's' (filled into its buffer by the first getc). */
static int stdio_open(void)
{
	static char in_buf[1 << 20], out_buf[1 << 20], data[1 << 20];
	stdio_out = fopen("/dev/null", "w");
	stdio_in = tmpfile();
	if (!stdio_out || !stdio_in)
		return 1;
	memset(data, 's', sizeof data);
	if (fwrite(data, 1, sizeof data, stdio_in) != sizeof data || fflush(stdio_in) != 0 ||
	    fseek(stdio_in, 0, SEEK_SET) != 0)
		return 1;
	return setvbuf(stdio_in, in_buf, _IOFBF, sizeof in_buf) != 0 ||
	       setvbuf(stdio_out, out_buf, _IOFBF, sizeof out_buf) != 0;
}

static inline int op_malloc(void)
{
	void *p = malloc(48);
	if (!p)
		return 1;
	/* the block escapes, so the compiler cannot drop the pair */
	__asm__ volatile("" : : "r"(p) : "memory");
	free(p);
	return 0;
}

static int lone_word;

static inline int op_syscall(void)
{
	return syscall(SYS_getppid) <= 0;
}

static inline int op_wake(void)
{
	return syscall(SYS_futex, &lone_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) != 0;
}

/* deep: DEEP nested noinline calls (no tail calls: the asm after the call
 * keeps each frame), malloc + free at the bottom. */
#define DEEP 29

__attribute__((noinline)) static int nest(int d)
{
	if (d <= 1)
		return op_malloc();
	int r = nest(d - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r;
}

static inline int op_deep(void)
{
	return nest(DEEP);
}

#define LOOPS(name)                                                      \
	__attribute__((noinline)) int warm_##name(uint64_t n)            \
	{                                                                \
		for (uint64_t i = 0; i < n; i++) {                       \
			/* unlike hot_: never folded into one function */ \
			__asm__ volatile("# warm-up" : : : "memory");   \
			if (op_##name())                                 \
				return 1;                                \
		}                                                        \
		return 0;                                                \
	}                                                                \
	__attribute__((noinline)) int hot_##name(uint64_t n)             \
	{                                                                \
		for (uint64_t i = 0; i < n; i++)                         \
			if (op_##name())                                 \
				return 1;                                \
		return 0;                                                \
	}

int warm_mutex(uint64_t n);
int hot_mutex(uint64_t n);
int warm_yield(uint64_t n);
int hot_yield(uint64_t n);
int warm_pipe(uint64_t n);
int hot_pipe(uint64_t n);
int warm_malloc(uint64_t n);
int hot_malloc(uint64_t n);
int warm_stdio(uint64_t n);
int hot_stdio(uint64_t n);
int warm_deep(uint64_t n);
int hot_deep(uint64_t n);
int warm_syscall(uint64_t n);
int hot_syscall(uint64_t n);
int warm_wake(uint64_t n);
int hot_wake(uint64_t n);

LOOPS(mutex)
LOOPS(yield)
LOOPS(pipe)
LOOPS(malloc)
LOOPS(stdio)
LOOPS(deep)
LOOPS(syscall)
LOOPS(wake)

int main(int argc, char **argv)
{
	int (*warm)(uint64_t), (*hot)(uint64_t);

	if (argc != 3) {
		fprintf(stderr, "usage: hotpath mutex|yield|pipe|malloc|stdio|deep|syscall|wake N\n");
		return 2;
	}
	uint64_t n = strtoull(argv[2], NULL, 10);
	if (n == 0) {
		fprintf(stderr, "hotpath: N must be a positive number\n");
		return 2;
	}
	if (strcmp(argv[1], "mutex") == 0) {
		warm = warm_mutex, hot = hot_mutex;
	} else if (strcmp(argv[1], "yield") == 0) {
		warm = warm_yield, hot = hot_yield;
	} else if (strcmp(argv[1], "pipe") == 0) {
		if (pipe(pipefd) != 0) {
			perror("hotpath: pipe");
			return 1;
		}
		warm = warm_pipe, hot = hot_pipe;
	} else if (strcmp(argv[1], "malloc") == 0) {
		warm = warm_malloc, hot = hot_malloc;
	} else if (strcmp(argv[1], "stdio") == 0) {
		if (stdio_open() != 0) {
			perror("hotpath: stdio files");
			return 1;
		}
		warm = warm_stdio, hot = hot_stdio;
	} else if (strcmp(argv[1], "deep") == 0) {
		warm = warm_deep, hot = hot_deep;
	} else if (strcmp(argv[1], "syscall") == 0) {
		warm = warm_syscall, hot = hot_syscall;
	} else if (strcmp(argv[1], "wake") == 0) {
		warm = warm_wake, hot = hot_wake;
	} else {
		fprintf(stderr, "hotpath: unknown mode %s\n", argv[1]);
		return 2;
	}
	if (warm(WARMUP) != 0 || hot(n) != 0) {
		fprintf(stderr, "hotpath: a %s call failed\n", argv[1]);
		return 1;
	}
	printf("hotpath %s %llu ok\n", argv[1], (unsigned long long)n);
	return 0;
}
