/* real_retitle.c — a server that retitles itself, as redis-server
 * ("redis-server *:6379") and every PostgreSQL process ("postgres:
 * checkpointer") do: it writes its title over argv[0] and clears the rest of
 * the argument area with NULs, so /proc/self/cmdline becomes the title
 * followed by a run of NUL bytes. Then it works for 0.3 s (a thread, sleeps)
 * so that several generations are written after the change.
 *
 * argv[1] is the title; any further arguments only make the area longer. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		usleep(10000);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: real_retitle TITLE [PADDING...]\n");
		return 2;
	}
	char title[256];
	snprintf(title, sizeof title, "%s", argv[1]);
	char *end = argv[argc - 1] + strlen(argv[argc - 1]);
	size_t area = (size_t)(end - argv[0]);
	memset(argv[0], 0, area);
	memcpy(argv[0], title, strlen(title) < area ? strlen(title) : area - 1);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	for (int i = 0; i < 20; i++)
		usleep(10000);
	pthread_join(t, NULL);
	puts("done");
	return 0;
}
