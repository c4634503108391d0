/* hostile_fds.c — a program that owns its descriptors (issue 12, problems 1
 * and 2). Everything it prints must be the same traced and untraced; details
 * a test may need to explain a difference go to stderr. Modes (argv[1]):
 *
 *   copy SRC DST early|late
 *       close every descriptor above 2 — a close() loop up to the limit that
 *       counts what it closed, close_range(3, ~0U), closefrom(3) — then open
 *       SRC and DST (prints the numbers it got: 3 and 4 untraced) and copy SRC
 *       to DST one byte at a time with an allocation between bytes, while two
 *       threads lock and allocate. early: the closing happens first, while
 *       single-threaded (a daemon at start); late: after the threads started.
 *   pair ROUNDS
 *       dup2 a socketpair onto 3 and 4; a thread echoes every message main
 *       sends over them while two threads lock and allocate; prints whether
 *       every reply was intact.
 *   first
 *       the numbers the first open(), socket(), pipe() and dup() return.
 *   list
 *       the numbers in /proc/self/fd at the start, while threads run, after
 *       they are joined, in a forked child, and at the end of main.
 *   reuse
 *       close everything, then dup2/dup3 /dev/null onto every number below
 *       min(1024, RLIMIT_NOFILE) (the tracer's numbers included, if any), work
 *       with the table full (allocate, sleep, create and join a thread), close
 *       them all, then run two threads (after_close_main) that contend.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;

/* Lock and allocate: contended locks and heap events with stacks. */
static void *busy_main(void *arg)
{
	unsigned n = 0;
	while (!stop) {
		pthread_mutex_lock(&mu);
		void *p = malloc(16 + (n++ % 200));
		usleep(20);
		free(p);
		pthread_mutex_unlock(&mu);
		usleep(30);
	}
	return arg;
}

static pthread_t busy[2];

static void start_busy(void)
{
	stop = 0;
	for (int i = 0; i < 2; i++)
		pthread_create(&busy[i], NULL, busy_main, NULL);
}

static void stop_busy(void)
{
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(busy[i], NULL);
}

static int fd_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536)
		return 65536; /* the loop stays short on machines with huge limits */
	return (int)rl.rlim_cur;
}

/* What a daemon or a sandbox does at start. */
static void close_everything(void)
{
	int limit = fd_limit(), closed = 0;
	for (int fd = 3; fd < limit; fd++)
		if (close(fd) == 0) {
			closed++;
			fprintf(stderr, "hostile_fds: the close loop closed fd %d\n", fd);
		}
	printf("close loop closed %d\n", closed);
	printf("close_range: %d\n", close_range(3, ~0U, 0));
	closefrom(3);
	closed = 0;
	for (int fd = 3; fd < limit; fd++)
		if (close(fd) == 0)
			closed++;
	printf("second close loop closed %d\n", closed);
}

static int copy(const char *src, const char *dst, int late)
{
	if (late)
		start_busy();
	close_everything();
	if (!late)
		start_busy();
	int in = open(src, O_RDONLY);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("src fd %d, dst fd %d\n", in, out);
	if (in < 0 || out < 0)
		return 1;
	long n = 0;
	char c;
	for (;;) {
		ssize_t r = read(in, &c, 1);
		if (r <= 0)
			break;
		/* an allocation (a heap event with a stack) and a contended
		 * lock (a block with a stack) between the read and the write */
		free(malloc(32));
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
		if (write(out, &c, 1) != 1)
			return 1;
		n++;
	}
	stop_busy();
	printf("copied %ld bytes\n", n);
	return close(in) != 0 || close(out) != 0;
}

static int echo_fd = 3;

static void *echo_main(void *arg)
{
	char buf[64];
	for (;;) {
		size_t got = 0;
		while (got < sizeof buf) {
			ssize_t r = read(echo_fd, buf + got, sizeof buf - got);
			if (r <= 0)
				return arg;
			got += (size_t)r;
		}
		if (write(echo_fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			return arg;
	}
}

static int pair(int rounds)
{
	for (int fd = 3; fd < 10; fd++)
		close(fd);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 1;
	/* onto 3 and 4, whatever numbers the socketpair got */
	if (sv[0] != 3) {
		dup2(sv[0], 3);
		close(sv[0]);
	}
	if (sv[1] != 4) {
		dup2(sv[1], 4);
		if (sv[1] != 3)
			close(sv[1]);
	}
	start_busy();
	pthread_t echo;
	pthread_create(&echo, NULL, echo_main, NULL);
	int bad = 0;
	for (int i = 0; i < rounds; i++) {
		char msg[64], reply[64];
		for (size_t k = 0; k < sizeof msg; k++)
			msg[k] = (char)('a' + (i + k) % 26);
		if (write(4, msg, sizeof msg) != (ssize_t)sizeof msg) {
			bad++;
			break;
		}
		free(malloc(48));
		size_t got = 0;
		while (got < sizeof reply) {
			ssize_t r = read(4, reply + got, sizeof reply - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got != sizeof reply || memcmp(msg, reply, sizeof msg) != 0) {
			fprintf(stderr, "hostile_fds: round %d: reply differs (%zu bytes)\n", i, got);
			bad++;
			break;
		}
	}
	shutdown(4, SHUT_WR);
	pthread_join(echo, NULL);
	stop_busy();
	printf("pair: %d rounds, %s\n", rounds, bad ? "a reply differed" : "every reply intact");
	return bad != 0;
}

static int first(void)
{
	int a = open("/dev/null", O_RDONLY);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int p[2] = {-1, -1};
	if (pipe(p) != 0)
		return 1;
	int d = dup(0);
	printf("open %d socket %d pipe %d %d dup %d\n", a, s, p[0], p[1], d);
	start_busy();
	usleep(10000);
	stop_busy();
	int b = open("/dev/null", O_RDONLY);
	printf("open after threads %d\n", b);
	return 0;
}

/* Prints the numbers in /proc/self/fd (the directory's own descriptor
 * included, as untraced); the targets go to stderr for a test's message. */
static void list(const char *when)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d) {
		printf("%s: cannot open /proc/self/fd\n", when);
		return;
	}
	int fds[4096], n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < 4096)
		if (e->d_name[0] != '.')
			fds[n++] = atoi(e->d_name);
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
			int t = fds[j];
			fds[j] = fds[j - 1];
			fds[j - 1] = t;
		}
	printf("%s:", when);
	for (int i = 0; i < n; i++) {
		char path[64], target[512];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fds[i]);
		ssize_t len = readlink(path, target, sizeof target - 1);
		target[len > 0 ? len : 0] = 0;
		fprintf(stderr, "hostile_fds: %s: fd %d -> %s\n", when, fds[i], target);
		printf(" %d", fds[i]);
	}
	printf("\n");
	closedir(d);
}

static int list_mode(void)
{
	list("start");
	start_busy();
	usleep(20000);
	list("threads running");
	stop_busy();
	list("threads joined");
	pid_t c = fork();
	if (c == 0) {
		list("forked child");
		fflush(stdout);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	free(malloc(100));
	list("end of main");
	return 0;
}

static void *full_main(void *arg)
{
	free(malloc(64));
	usleep(2000);
	return arg;
}

static void *after_close_main(void *arg)
{
	for (int i = 0; i < 200; i++) {
		pthread_mutex_lock(&mu);
		free(malloc(24));
		usleep(50);
		pthread_mutex_unlock(&mu);
	}
	return arg;
}

static int reuse(void)
{
	close_range(3, ~0U, 0);
	int limit = fd_limit();
	int top = limit < 1024 ? limit : 1024;
	int base = open("/dev/null", O_RDWR);
	printf("base fd %d\n", base);
	int ok = 0, want = 0;
	for (int fd = 3; fd < top; fd++) {
		if (fd == base)
			continue;
		want++;
		int r = fd % 2 ? dup2(base, fd) : dup3(base, fd, O_CLOEXEC);
		if (r == fd)
			ok++;
		else
			fprintf(stderr, "hostile_fds: dup onto %d returned %d (%s)\n", fd, r, strerror(errno));
	}
	printf("dup2/dup3 onto %d of %d numbers\n", ok, want);
	/* the table is full: the tracer cannot open anything in it now */
	for (int i = 0; i < 20; i++) {
		free(malloc(128));
		usleep(1000);
	}
	pthread_t t;
	printf("thread with a full table: %s\n", pthread_create(&t, NULL, full_main, NULL) == 0 ? "started" : "failed");
	pthread_join(t, NULL);
	int full = open("/dev/null", O_RDONLY);
	printf("open with a full table: %s\n", full < 0 && errno == EMFILE ? "EMFILE" : "succeeded");
	int closed = 0;
	for (int fd = 3; fd < top; fd++)
		if (close(fd) == 0)
			closed++;
	printf("closed %d\n", closed);
	pthread_t a[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&a[i], NULL, after_close_main, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(a[i], NULL);
	int again = open("/dev/null", O_RDONLY);
	printf("after_close done, next open %d\n", again);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(mode, "copy") == 0 && argc > 4)
		return copy(argv[2], argv[3], strcmp(argv[4], "late") == 0);
	if (strcmp(mode, "pair") == 0)
		return pair(argc > 2 ? atoi(argv[2]) : 1000);
	if (strcmp(mode, "first") == 0)
		return first();
	if (strcmp(mode, "list") == 0)
		return list_mode();
	if (strcmp(mode, "reuse") == 0)
		return reuse();
	fprintf(stderr, "usage: hostile_fds copy SRC DST early|late | pair N | first | list | reuse\n");
	return 2;
}
