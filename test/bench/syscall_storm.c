/* syscall_storm.c — a workload of calls that wait in the kernel: what
 * tracing costs a program that mostly talks through pipes and sleeps.
 *
 *   syscall_storm pipe [ROUNDS]     two threads pass one byte back and forth
 *                                   through two pipes, ROUNDS round trips
 *                                   (default 200,000): every read waits for
 *                                   the other thread's write
 *   syscall_storm sleep [ROUNDS [US]]
 *                                   two threads each sleep US microseconds
 *                                   (default 20) ROUNDS times (default
 *                                   20,000) with nanosleep, doing a little
 *                                   work in between
 *
 * It prints "MODE rounds N seconds S" (S: wall time of the threads' work,
 * CLOCK_MONOTONIC).
 *
 *   cc -O2 -g -pthread -o syscall_storm test/bench/syscall_storm.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t rounds;
static unsigned sleep_us = 20;
static int ping[2], pong[2];

static void *pinger(void *arg)
{
	(void)arg;
	char c = 'x';
	for (uint64_t i = 0; i < rounds; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			abort();
	}
	return NULL;
}

static void *ponger(void *arg)
{
	(void)arg;
	char c;
	for (uint64_t i = 0; i < rounds; i++) {
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			abort();
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	uint64_t x = (uintptr_t)arg + 1, acc = 0;
	struct timespec d = { 0, (long)sleep_us * 1000 };
	for (uint64_t i = 0; i < rounds; i++) {
		nanosleep(&d, NULL);
		for (int w = 0; w < 200; w++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			acc += x >> 60;
		}
	}
	return (void *)(uintptr_t)acc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "pipe") != 0 && strcmp(argv[1], "sleep") != 0)) {
		fprintf(stderr, "usage: syscall_storm pipe [ROUNDS] | sleep [ROUNDS [US]]\n");
		return 2;
	}
	int is_pipe = strcmp(argv[1], "pipe") == 0;
	rounds = argc > 2 ? strtoull(argv[2], NULL, 10) : (is_pipe ? 200000 : 20000);
	if (argc > 3)
		sleep_us = (unsigned)strtoul(argv[3], NULL, 10);
	if (pipe(ping) != 0 || pipe(pong) != 0) {
		perror("syscall_storm: pipe");
		return 1;
	}
	pthread_t a, b;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&a, NULL, is_pipe ? pinger : sleeper, (void *)0) != 0 ||
	    pthread_create(&b, NULL, is_pipe ? ponger : sleeper, (void *)1) != 0) {
		fprintf(stderr, "syscall_storm: pthread_create failed\n");
		return 1;
	}
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%s rounds %llu seconds %.3f\n", argv[1], (unsigned long long)rounds,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
