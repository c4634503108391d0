/* cpu_eintr: main makes calls that report EINTR when a handler interrupts
 * them (poll on a pipe, nanosleep, read on a pipe, select), each after a
 * millisecond of CPU of its own, while two threads burn CPU; a helper
 * writes to the pipes. Prints how many calls failed with EINTR (0 untraced:
 * the program installs no handler). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static atomic_int stop;
static int p1[2], p2[2];

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void spin(uint64_t ns)
{
	uint64_t x = 9, end = cpu_ns() + ns;
	while (cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 11;
	sink = x;
}

static void *burner(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		spin(10000000);
	return NULL;
}

static void *feeder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 40; i++) {
		usleep(3000);
		if (write(p1[1], "x", 1) != 1 || write(p2[1], "y", 1) != 1)
			return NULL;
	}
	return NULL;
}

int main(void)
{
	if (pipe(p1) || pipe(p2))
		return 1;
	pthread_t b1, b2, f;
	pthread_create(&b1, NULL, burner, NULL);
	pthread_create(&b2, NULL, burner, NULL);
	pthread_create(&f, NULL, feeder, NULL);
	int eintr = 0, calls = 0;
	char c;
	for (int i = 0; i < 40; i++) {
		spin(1000000);
		struct pollfd pf = { p1[0], POLLIN, 0 };
		if (poll(&pf, 1, 5000) < 0 && errno == EINTR)
			eintr++;
		if (read(p1[0], &c, 1) < 0 && errno == EINTR)
			eintr++;
		spin(1000000);
		struct timespec ts = { 0, 2000000 };
		if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
			eintr++;
		spin(1000000);
		if (read(p2[0], &c, 1) < 0 && errno == EINTR)
			eintr++;
		struct timeval tv = { 0, 1000 };
		if (select(0, NULL, NULL, NULL, &tv) < 0 && errno == EINTR)
			eintr++;
		calls += 5;
	}
	atomic_store(&stop, 1);
	pthread_join(b1, NULL);
	pthread_join(b2, NULL);
	pthread_join(f, NULL);
	printf("%d calls, %d EINTR\n", calls, eintr);
	return 0;
}
