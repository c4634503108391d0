/* futex_wait: raw futex waits through libc's syscall(), the way Rust's
 * standard library, parking_lot and engines with their own latches wait
 * (issue 15 item 1).
 *
 * 1. waiter_main: syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL)
 *    in a loop while word is 0; main sets word to 1 after 300 ms and wakes
 *    it from wake_it with syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1).
 * 2. timed_main: FUTEX_WAIT_BITSET_PRIVATE on a word nobody changes, with a
 *    300 ms timeout: -1 ETIMEDOUT.
 * 3. mismatch_main: FUTEX_WAIT with a value the word does not hold: -1
 *    EAGAIN at once, 1000 times.
 * 4. main: other numbers through syscall() return as untraced: getpid,
 *    gettid, a bad number (-1 ENOSYS), read of a pipe (the byte written),
 *    read of a bad descriptor (-1 EBADF), futex on a bad address (-1
 *    EFAULT), a wake nobody waits on (0 woken).
 *
 * Every return value and errno is checked; only main prints. Exits 0
 * ("all checks passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static _Atomic int word;     /* 0 until main releases waiter_main */
static _Atomic int never;    /* nobody changes it: timed_main waits on it */
static _Atomic int lonely;   /* nobody waits on it */
static long wait_r = -2, timed_r = -2;
static int timed_errno, mismatches;
static pthread_barrier_t ready;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		CHECK(errno == EINTR, "nanosleep");
}

static NOINLINE void *waiter_main(void *arg)
{
	pthread_barrier_wait(&ready);
	while (atomic_load(&word) == 0) {
		long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		CHECK(r == 0 || errno == EAGAIN || errno == EINTR, "FUTEX_WAIT");
		if (r == 0)
			wait_r = 0;
	}
	return arg;
}

static NOINLINE void *timed_main(void *arg)
{
	pthread_barrier_wait(&ready);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	struct timespec at = now;
	at.tv_nsec += 300 * 1000000L;
	if (at.tv_nsec >= 1000000000L) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000L;
	}
	do {
		errno = 0;
		/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time */
		timed_r = syscall(SYS_futex, &never, FUTEX_WAIT_BITSET_PRIVATE, 0, &at, NULL, FUTEX_BITSET_MATCH_ANY);
		timed_errno = errno;
	} while (timed_r == -1 && timed_errno == EINTR);
	return arg;
}

static NOINLINE void *mismatch_main(void *arg)
{
	pthread_barrier_wait(&ready);
	for (int i = 0; i < 1000; i++) {
		errno = 0;
		long r = syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 7, NULL, NULL, 0);
		if (r == -1 && errno == EAGAIN)
			mismatches++;
	}
	return arg;
}

static NOINLINE void wake_it(void)
{
	atomic_store(&word, 1);
	long r = syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	CHECK(r == 0 || r == 1, "FUTEX_WAKE");
}

static NOINLINE void plain_calls(void)
{
	CHECK(syscall(SYS_getpid) == getpid(), "syscall(SYS_getpid)");
	CHECK(syscall(SYS_gettid) == gettid(), "syscall(SYS_gettid)");
	errno = 0;
	CHECK(syscall(100000) == -1 && errno == ENOSYS, "a bad number: -1 ENOSYS");
	int fds[2];
	CHECK(pipe(fds) == 0, "pipe");
	CHECK(syscall(SYS_write, fds[1], "x", 1) == 1, "syscall(SYS_write)");
	char c = 0;
	CHECK(syscall(SYS_read, fds[0], &c, 1) == 1 && c == 'x', "syscall(SYS_read)");
	errno = 0;
	CHECK(syscall(SYS_read, 12345, &c, 1) == -1 && errno == EBADF, "syscall(SYS_read) on a bad fd: EBADF");
	close(fds[0]);
	close(fds[1]);
	errno = 0;
	CHECK(syscall(SYS_futex, (void *)8, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) == -1 && errno == EFAULT,
	      "FUTEX_WAIT on a bad address: EFAULT");
	CHECK(syscall(SYS_futex, &lonely, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) == 0, "a wake nobody waits on");
	/* six arguments pass through: FUTEX_WAKE_OP reads the sixth (val3) */
	CHECK(syscall(SYS_futex, &lonely, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &lonely,
		      FUTEX_OP(FUTEX_OP_ADD, 0, FUTEX_OP_CMP_EQ, 0)) == 0,
	      "FUTEX_WAKE_OP");
	CHECK(atomic_load(&lonely) == 0, "FUTEX_WAKE_OP added 0");
}

int main(void)
{
	pthread_t th[3];
	void *(*mains[3])(void *) = { waiter_main, timed_main, mismatch_main };
	pthread_barrier_init(&ready, NULL, 4);
	for (int i = 0; i < 3; i++)
		CHECK(pthread_create(&th[i], NULL, mains[i], NULL) == 0, "pthread_create");
	pthread_barrier_wait(&ready);
	plain_calls();
	sleep_ms(300);
	wake_it();
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(th[i], NULL) == 0, "pthread_join");
	CHECK(wait_r == 0, "FUTEX_WAIT returned 0 once woken");
	CHECK(timed_r == -1 && timed_errno == ETIMEDOUT, "FUTEX_WAIT_BITSET timed out: -1 ETIMEDOUT");
	CHECK(mismatches == 1000, "FUTEX_WAIT on another value: -1 EAGAIN");
	printf("all checks passed\n");
	return 0;
}
