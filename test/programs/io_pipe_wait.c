/* io_pipe_wait: waits on pipes, which the tracer records as system calls.
 *
 * 1. pipe_reader_main read()s a pipe that main writes only after 250 ms:
 *    traced, about 250 ms in a system call under pipe_reader_main
 *    (go tool trace -pprof=syscall) with read as the leaf.
 * 2. pipe_nonblock_probe: reads of an empty O_NONBLOCK pipe that fail with
 *    EAGAIN at once (the tracer must record nothing there).
 * 3. pipe_poll_timeout: poll() on an empty pipe times out after 100 ms
 *    (returns 0): a readiness wait on a pipe, a network wait as Go's
 *    poller makes it (issue 15 item 2); reads and writes stay system calls.
 * 4. Partial reads: 4 bytes written, read(fd, buf, 100) returns 4; after the
 *    write end is closed read returns 0.
 *
 * Every return value and errno is checked; the output is deterministic and
 * only main prints.  Exits 0 ("all checks passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		CHECK(errno == EINTR, "nanosleep");
}

/* ---- 1. a reader whose writer comes after 250 ms ------------------------- */

static int late_pipe[2];
static ssize_t late_got;
static int late_err;
static char late_buf[64];

NOINLINE static void *pipe_reader_main(void *arg)
{
	(void)arg;
	ssize_t n = read(late_pipe[0], late_buf, sizeof late_buf - 1);
	late_err = n < 0 ? errno : 0;
	late_got = n;
	if (n >= 0)
		late_buf[n] = 0;
	return NULL;
}

static void late_writer(void)
{
	CHECK(pipe2(late_pipe, O_CLOEXEC) == 0, "pipe2");
	pthread_t t;
	CHECK(pthread_create(&t, NULL, pipe_reader_main, NULL) == 0, "pthread_create");
	sleep_ms(250);
	ssize_t w = write(late_pipe[1], "late-pipe", 9);
	CHECK(w == 9, "write");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	if (late_got < 0)
		printf("pipe_reader: failed with %s\n", strerror(late_err));
	else
		printf("pipe_reader: got %zd bytes \"%s\"\n", late_got, late_buf);
	CHECK(late_got == 9, "late data");
	close(late_pipe[0]);
	close(late_pipe[1]);
}

/* ---- 2. non-blocking reads of an empty pipe ------------------------------ */

#define PROBES 100

NOINLINE static int pipe_nonblock_probe(int fd)
{
	int eagain = 0;
	for (int i = 0; i < PROBES; i++) {
		char c;
		errno = 0;
		ssize_t n = read(fd, &c, 1);
		if (n == -1 && errno == EAGAIN)
			eagain++;
	}
	return eagain;
}

/* ---- 3. poll on a pipe that stays empty ---------------------------------- */

NOINLINE static int pipe_poll_timeout(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 100);
	CHECK(n >= 0, "poll");
	return n + p.revents;
}

static void empty_pipe(void)
{
	int p[2];
	CHECK(pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0, "pipe2");
	int n = pipe_nonblock_probe(p[0]);
	printf("nonblocking pipe: %d of %d reads failed with EAGAIN\n", n, PROBES);
	CHECK(n == PROBES, "EAGAIN every time");
	int r = pipe_poll_timeout(p[0]);
	printf("poll on an empty pipe: %d (timed out)\n", r);
	CHECK(r == 0, "poll timed out");

	/* partial read, then end of file */
	ssize_t w = write(p[1], "wxyz", 4);
	CHECK(w == 4, "write");
	char buf[100];
	ssize_t n1 = read(p[0], buf, sizeof buf);
	CHECK(n1 == 4 && memcmp(buf, "wxyz", 4) == 0, "partial read");
	CHECK(close(p[1]) == 0, "close");
	ssize_t n2 = read(p[0], buf, sizeof buf);
	CHECK(n2 == 0, "end of file");
	printf("partial: read(100) returned %zd, then %zd at end of file\n", n1, n2);
	close(p[0]);
}

int main(void)
{
	late_writer();
	empty_pipe();
	printf("io_pipe_wait: all checks passed\n");
	return 0;
}
