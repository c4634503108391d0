/* syscall_storm.c — a system-call-heavy workload for test/bench/run.py.
 *
 *   syscall_storm [ROUNDS [SLEEP_EVERY [SLEEP_US]]]
 *
 * Two threads play ping-pong over two pipes: the main thread writes one
 * byte into the first pipe and reads the answer from the second; the echo
 * thread reads each byte, adds one and writes it back. ROUNDS round trips
 * (default 100,000), so every read really waits for the other thread. Every
 * SLEEP_EVERY rounds (default 64) both threads also sleep SLEEP_US
 * microseconds (default 20) with nanosleep: short sleeps between bursts.
 *
 * It prints one line, the same for every run with the same arguments:
 *
 *   syscall_storm rounds N sleeps S sum HEX
 *
 *   cc -O2 -g -pthread -o syscall_storm test/bench/syscall_storm.c */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static uint64_t rounds, sleep_every, sleep_us;

static void nap(void)
{
	struct timespec ts = {0, (long)(sleep_us * 1000)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void io(int fd, unsigned char *b, int writing)
{
	ssize_t n = writing ? write(fd, b, 1) : read(fd, b, 1);
	if (n != 1) {
		perror(writing ? "syscall_storm: write" : "syscall_storm: read");
		exit(1);
	}
}

static void *echo(void *arg)
{
	(void)arg;
	unsigned char b;
	for (uint64_t i = 0; i < rounds; i++) {
		io(ping[0], &b, 0);
		b++;
		io(pong[1], &b, 1);
		if (sleep_every && i % sleep_every == sleep_every - 1)
			nap();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
	sleep_every = argc > 2 ? strtoull(argv[2], NULL, 10) : 64;
	sleep_us = argc > 3 ? strtoull(argv[3], NULL, 10) : 20;
	if (rounds == 0 || sleep_us >= 1000000) {
		fprintf(stderr, "usage: syscall_storm [ROUNDS [SLEEP_EVERY [SLEEP_US]]]\n");
		return 2;
	}
	if (pipe(ping) != 0 || pipe(pong) != 0) {
		perror("syscall_storm: pipe");
		return 1;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, echo, NULL) != 0) {
		fprintf(stderr, "syscall_storm: pthread_create failed\n");
		return 1;
	}
	uint64_t sum = 0, sleeps = 0;
	unsigned char b = 0;
	for (uint64_t i = 0; i < rounds; i++) {
		unsigned char sent = (unsigned char)(i * 7);
		b = sent;
		io(ping[1], &b, 1);
		io(pong[0], &b, 0);
		if (b != (unsigned char)(sent + 1)) {
			fprintf(stderr, "syscall_storm: round %llu: got %u for %u\n",
				(unsigned long long)i, b, sent);
			return 1;
		}
		sum = sum * 31 + b;
		if (sleep_every && i % sleep_every == sleep_every - 1) {
			nap();
			sleeps++;
		}
	}
	pthread_join(t, NULL);
	printf("syscall_storm rounds %llu sleeps %llu sum %016llx\n", (unsigned long long)rounds,
	       (unsigned long long)sleeps, (unsigned long long)sum);
	return 0;
}
