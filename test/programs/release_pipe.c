/* release_pipe: a write to a pipe releases a thread of the process that
 * waits in poll for the pipe to be readable (issue 16 item 1).
 *
 * reader_main waits for the pipe's read end to be readable (no timeout:
 * poll with POLLIN in even rounds, select in odd ones), then reads the
 * byte; writer_main sleeps WAIT_MS and writes it from write_it, a function
 * of its own. ROUNDS rounds, each acknowledged on a second pipe (whose
 * read without a readiness wait is a system call, as before). Only main prints;
 * exits 0 ("all checks passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/select.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define ROUNDS 4
#define WAIT_MS 100

static int data[2], ack[2];

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		CHECK(errno == EINTR, "nanosleep");
}

static NOINLINE void write_it(char c)
{
	CHECK(write(data[1], &c, 1) == 1, "write");
}

static NOINLINE void *writer_main(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		sleep_ms(WAIT_MS);
		write_it((char)('a' + i));
		char c;
		CHECK(read(ack[0], &c, 1) == 1 && c == 'k', "read ack");
	}
	return arg;
}

static NOINLINE void *reader_main(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		if (i % 2 == 0) {
			struct pollfd p = { .fd = data[0], .events = POLLIN };
			int r;
			while ((r = poll(&p, 1, -1)) < 0)
				CHECK(errno == EINTR, "poll");
			CHECK(r == 1 && (p.revents & POLLIN), "poll readable");
		} else {
			fd_set rd;
			int r;
			do {
				FD_ZERO(&rd);
				FD_SET(data[0], &rd);
			} while ((r = select(data[0] + 1, &rd, NULL, NULL, NULL)) < 0 && errno == EINTR);
			CHECK(r == 1 && FD_ISSET(data[0], &rd), "select readable");
		}
		char c;
		CHECK(read(data[0], &c, 1) == 1 && c == 'a' + i, "read data");
		CHECK(write(ack[1], "k", 1) == 1, "write ack");
	}
	return arg;
}

int main(void)
{
	pthread_t w, r;
	CHECK(pipe(data) == 0 && pipe(ack) == 0, "pipe");
	CHECK(pthread_create(&r, NULL, reader_main, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&w, NULL, writer_main, NULL) == 0, "pthread_create");
	CHECK(pthread_join(r, NULL) == 0 && pthread_join(w, NULL) == 0, "pthread_join");
	printf("release_pipe: %d rounds, all checks passed\n", ROUNDS);
	return 0;
}
