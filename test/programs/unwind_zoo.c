/* unwind_zoo: programs that trouble a stack unwinder inside the traced
 * process (test/integration/test_unwind.py).
 *
 *   unwind_zoo fds N      a socketpair dup2'd onto descriptors 3 and 4: an
 *                         echo thread answers N messages on 4 while the main
 *                         thread sends them on 3 and checks every byte, and
 *                         an allocating thread mallocs from many different
 *                         stacks, through generated code without CFI (with
 *                         and without a frame pointer) and in a signal
 *                         handler. Prints "tid ROLE TID" lines, then "fds ok"
 *                         and a checksum.
 *   unwind_zoo small      a thread on a PTHREAD_STACK_MIN stack recurses 30
 *                         frames of ~200 bytes, then calls usleep and malloc.
 *                         Prints "small ok".
 *   unwind_zoo plugin SO N  dlopen SO, call its plugin_fn with a callback that
 *                         allocates and sleeps, dlclose; N times, while another
 *                         thread allocates; then once more without dlclose.
 *                         Prints "plugin ok". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int tid(void)
{
	return (int)syscall(SYS_gettid);
}

static void die(const char *what)
{
	fprintf(stderr, "unwind_zoo: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* --- fds ---------------------------------------------------------------- */

#define MSG 64

static int messages;
static _Atomic int done;
static _Atomic unsigned long allocs;

static void fill(unsigned char *b, int i)
{
	for (int k = 0; k < MSG; k++)
		b[k] = (unsigned char)(i * 31 + k * 7);
}

static int read_full(int fd, unsigned char *b, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, b + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const unsigned char *b, size_t n)
{
	size_t put = 0;
	while (put < n) {
		ssize_t r = write(fd, b + put, n - put);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		put += (size_t)r;
	}
	return 0;
}

static void *echo(void *arg)
{
	(void)arg;
	printf("tid echo %d\n", tid());
	fflush(stdout);
	unsigned char b[MSG];
	for (int i = 0; i < messages; i++) {
		if (read_full(4, b, MSG) != 0 || write_full(4, b, MSG) != 0) {
			fprintf(stderr, "unwind_zoo: echo failed at message %d\n", i);
			exit(1);
		}
	}
	return NULL;
}

__attribute__((noinline)) static void alloc_some(void)
{
	void *p = malloc(40 + (allocs % 200));
	__asm__ volatile("" : : "r"(p) : "memory");
	free(p);
	allocs++;
}

__attribute__((noinline)) static int nest(int d)
{
	if (d <= 0) {
		alloc_some();
		return 0;
	}
	volatile char pad[48];
	pad[d & 31] = (char)d;
	int r = nest(d - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + pad[0];
}

/* Generated code, as a JIT makes it: no CFI anywhere. */
typedef void (*call_fn)(void (*)(void));
static call_fn jit_framed, jit_frameless;

static void make_jit(void)
{
	static const unsigned char framed[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };
	static const unsigned char frameless[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd7,
						   0x48, 0x83, 0xc4, 0x08, 0xc3 };
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		die("mmap");
	memcpy(page, framed, sizeof framed);
	memcpy(page + 64, frameless, sizeof frameless);
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		die("mprotect");
	jit_framed = (call_fn)(void *)page;
	jit_frameless = (call_fn)(void *)(page + 64);
}

static void on_signal(int sig)
{
	(void)sig;
	nest(3);
}

static void *allocator(void *arg)
{
	(void)arg;
	printf("tid alloc %d\n", tid());
	fflush(stdout);
	for (unsigned long i = 0; !done; i++) {
		nest((int)(i % 40));
		if (i % 7 == 0)
			jit_framed(alloc_some);
		if (i % 11 == 0)
			jit_frameless(alloc_some);
		if (i % 1000 == 0)
			raise(SIGUSR1);
	}
	return NULL;
}

static int run_fds(int n)
{
	messages = n;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die("socketpair");
	/* The pair becomes descriptors 3 and 4, whatever held them. */
	if (dup2(sv[0], 3) < 0 || dup2(sv[1], 4) < 0)
		die("dup2");
	if (sv[0] != 3 && sv[0] != 4)
		close(sv[0]);
	if (sv[1] != 3 && sv[1] != 4)
		close(sv[1]);
	make_jit();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	printf("tid main %d\n", tid());
	fflush(stdout);
	pthread_t e, a;
	if (pthread_create(&e, NULL, echo, NULL) != 0 || pthread_create(&a, NULL, allocator, NULL) != 0)
		die("pthread_create");
	unsigned char out[MSG], in[MSG];
	unsigned long sum = 0;
	for (int i = 0; i < n; i++) {
		fill(out, i);
		if (write_full(3, out, MSG) != 0 || read_full(3, in, MSG) != 0) {
			fprintf(stderr, "unwind_zoo: exchange failed at message %d\n", i);
			return 1;
		}
		if (memcmp(in, out, MSG) != 0) {
			fprintf(stderr, "unwind_zoo: message %d came back changed\n", i);
			return 1;
		}
		for (int k = 0; k < MSG; k++)
			sum = sum * 33 + in[k];
	}
	done = 1;
	pthread_join(e, NULL);
	pthread_join(a, NULL);
	printf("fds ok %lu\n", sum);
	return allocs > 0 ? 0 : 1;
}

/* --- small --------------------------------------------------------------- */

__attribute__((noinline)) static int deep200(int d)
{
	volatile char frame[192];
	frame[d % 192] = (char)d;
	if (d == 0) {
		usleep(1000);
		void *p = malloc(100);
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
		return frame[0];
	}
	int r = deep200(d - 1);
	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + frame[1];
}

static void *small_main(void *arg)
{
	(void)arg;
	deep200(30);
	return NULL;
}

static int run_small(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	if (pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN) != 0)
		die("pthread_attr_setstacksize");
	pthread_t th;
	int err = pthread_create(&th, &a, small_main, NULL);
	if (err != 0) {
		errno = err;
		die("pthread_create");
	}
	pthread_join(th, NULL);
	printf("small ok\n");
	return 0;
}

/* --- plugin -------------------------------------------------------------- */

static void plugin_callback(void)
{
	void *p = malloc(256);
	__asm__ volatile("" : : "r"(p) : "memory");
	usleep(200);
	free(p);
}

static void *background(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; !done; i++)
		nest((int)(i % 20));
	return NULL;
}

__attribute__((noinline)) static int plugin_round(const char *so, int close_it)
{
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "unwind_zoo: dlopen %s: %s\n", so, dlerror());
		return 1;
	}
	int (*fn)(void (*)(void), int) = (int (*)(void (*)(void), int))dlsym(h, "plugin_fn");
	if (!fn) {
		fprintf(stderr, "unwind_zoo: no plugin_fn in %s\n", so);
		return 1;
	}
	int r = fn(plugin_callback, 3);
	if (close_it && dlclose(h) != 0) {
		fprintf(stderr, "unwind_zoo: dlclose: %s\n", dlerror());
		return 1;
	}
	return r == 3 ? 0 : 1;
}

static int run_plugin(const char *so, int n)
{
	pthread_t th;
	if (pthread_create(&th, NULL, background, NULL) != 0)
		die("pthread_create");
	int bad = 0;
	for (int i = 0; i < n && !bad; i++)
		bad = plugin_round(so, 1);
	if (!bad)
		bad = plugin_round(so, 0);
	done = 1;
	pthread_join(th, NULL);
	if (bad)
		return 1;
	printf("plugin ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "fds") == 0)
		return run_fds(atoi(argv[2]));
	if (argc >= 2 && strcmp(argv[1], "small") == 0)
		return run_small();
	if (argc >= 4 && strcmp(argv[1], "plugin") == 0)
		return run_plugin(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: unwind_zoo fds N | small | plugin SO N\n");
	return 2;
}
