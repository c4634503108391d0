/* real_exit_fds.c — a program whose thread keeps working while main
 * returns, as a JVM's, a server's or a thread pool's threads do: exit()
 * runs the atexit handlers and the library destructors while the worker
 * still opens and closes a file. The program keeps no descriptor above 2
 * open, so untraced the worker's open always returns 3, the lowest free
 * number. Traced it must too: the
 * tracer may write its last generation at exit, but not with descriptors
 * of the program's table, which the program's own threads can see (and
 * close, or dup2 over).
 *
 * Prints "ok" from main; the worker writes one line to stderr for each
 * other number it gets (naming what held 3), until the process ends. */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = open("/dev/null", O_RDONLY); /* the lowest free number: 3 */
		if (fd != 3) {
			char target[PATH_MAX] = "closed again";
			ssize_t n = readlink("/proc/self/fd/3", target, sizeof target - 1);
			if (n > 0)
				target[n] = 0;
			char msg[PATH_MAX + 80];
			int len = snprintf(msg, sizeof msg, "worker: open returned %d, not 3 (3: %s)\n", fd, target);
			if (write(2, msg, (size_t)len) < 0)
				_exit(3);
		}
		if (fd >= 0)
			close(fd);
	}
	return NULL;
}

int main(void)
{
	if (fcntl(3, F_GETFD) != -1) {
		fprintf(stderr, "descriptor 3 is open at start: run me with only 0, 1 and 2\n");
		return 2;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	for (int i = 0; i < 10; i++) {
		void *p = malloc(100 + (size_t)i); /* a few events to write at exit */
		usleep(5000);
		free(p);
	}
	puts("ok");
	fflush(stdout);
	return 0; /* exit() while the worker runs */
}
