/* cancel_read.c — a thread cancelled while it waits in a system call.
 *
 * reader_main blocks in read() on a pipe nobody writes; main cancels it
 * after 200 ms and joins it. Untraced and traced alike it prints
 * "cancelled: yes" and "all checks passed". The trace must show
 * reader_main's 200 ms as the wait it was (a system call), not as
 * running. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int fds[2];

static void *reader_main(void *arg)
{
	(void)arg;
	char c;
	ssize_t n = read(fds[0], &c, 1); /* a cancellation point */
	printf("read returned %zd\n", n); /* never reached */
	return NULL;
}

int main(void)
{
	if (pipe(fds) != 0)
		return 1;
	pthread_t th;
	if (pthread_create(&th, NULL, reader_main, NULL) != 0)
		return 1;
	struct timespec d = { 0, 200 * 1000 * 1000 };
	nanosleep(&d, NULL);
	pthread_cancel(th);
	void *ret = NULL;
	pthread_join(th, &ret);
	printf("cancelled: %s\n", ret == PTHREAD_CANCELED ? "yes" : "no");
	if (ret != PTHREAD_CANCELED)
		return 1;
	printf("all checks passed\n");
	return 0;
}
