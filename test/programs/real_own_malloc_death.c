/* real_own_malloc_death.c — a program with its own malloc in its executable,
 * as Chromium (PartitionAlloc): a bump allocator behind a spin lock, which
 * every malloc of the process uses, the tracer's and libdw's included. The
 * main thread is ended by SIGTERM while it holds its allocator's lock, as a
 * Chromium renderer is when the browser ends it in the middle of an
 * allocation. Untraced it dies at once; traced it must die by SIGTERM too,
 * at once, with the generation in progress written first (or no file), and
 * never wait for the lock it holds itself.
 *
 * argv[1]: "threads" (a second thread exists, so the tracer has a writer
 * thread) or "single" (the dying thread writes the trace itself). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int taken;
static _Alignas(64) unsigned char heap[256 << 20];
static size_t used;

static void lock(void)
{
	while (atomic_exchange(&taken, 1))
		sched_yield();
}

static void unlock(void)
{
	atomic_store(&taken, 0);
}

/* Each block is preceded by its size (for realloc). */
static void *bump(size_t n, size_t align)
{
	if (align < 16)
		align = 16;
	lock();
	size_t start = (used + sizeof(size_t) + align - 1) & ~(align - 1);
	if (start + n > sizeof heap) {
		unlock();
		errno = ENOMEM;
		return NULL;
	}
	((size_t *)(heap + start))[-1] = n;
	used = start + n;
	unlock();
	return heap + start;
}

void *malloc(size_t n)
{
	return bump(n, 16);
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t a, size_t b)
{
	void *p = bump(a * b, 16);
	if (p)
		memset(p, 0, a * b);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = bump(n, 16);
	if (p && q) {
		size_t old = ((size_t *)p)[-1];
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}

void *memalign(size_t a, size_t n)
{
	return bump(n, a);
}

void *aligned_alloc(size_t a, size_t n)
{
	return bump(n, a);
}

int posix_memalign(void **r, size_t a, size_t n)
{
	*r = bump(n, a);
	return *r ? 0 : ENOMEM;
}

size_t malloc_usable_size(void *p)
{
	return p ? ((size_t *)p)[-1] : 0;
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "threads") != 0 && strcmp(argv[1], "single") != 0)) {
		fprintf(stderr, "usage: real_own_malloc_death threads|single\n");
		return 2;
	}
	pthread_t t;
	if (strcmp(argv[1], "threads") == 0 && pthread_create(&t, NULL, idle, NULL) != 0)
		return 1;
	for (int i = 0; i < 20; i++)
		usleep(2000); /* something to trace */
	printf("taking the allocator's lock\n");
	fflush(stdout);
	lock();
	raise(SIGTERM); /* the process dies here */
	unlock();
	printf("survived SIGTERM\n");
	return 0;
}
