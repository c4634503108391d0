/* heap_own_malloc.c — a program whose executable defines malloc, free,
 * calloc and realloc itself (a bump allocator behind a lock, as Chromium's
 * PartitionAlloc or rustc's jemalloc are the program's own): every malloc
 * of the process is its own, so no heap event can be recorded. Two threads
 * allocate and free; prints one line. test_heap_tool.py's OwnMallocTest:
 * traced, nothing is added to its output, and the trace says why it has
 * no heap events. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(64) unsigned char heap[64 << 20];
static size_t used;
static unsigned long blocks;

static void *bump(size_t n)
{
	pthread_mutex_lock(&mu);
	size_t start = (used + 2 * sizeof(size_t) + 15) & ~(size_t)15;
	void *p = NULL;
	if (start + n <= sizeof heap) {
		((size_t *)(heap + start))[-1] = n;
		used = start + n;
		blocks++;
		p = heap + start;
	}
	pthread_mutex_unlock(&mu);
	if (!p)
		errno = ENOMEM;
	return p;
}

void *malloc(size_t n) { return bump(n); }
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b)
{
	void *p = bump(a * b);
	if (p)
		memset(p, 0, a * b);
	return p;
}
void *realloc(void *p, size_t n)
{
	void *q = bump(n);
	if (p && q) {
		size_t old = ((size_t *)p)[-1];
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}

static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		char *p = malloc(16 + i % 200);
		if (p)
			p[0] = 1;
		free(p);
	}
	return NULL;
}

int main(void)
{
	pthread_t th;
	pthread_create(&th, NULL, work, NULL);
	work(NULL);
	pthread_join(th, NULL);
	printf("own malloc: %s\n", blocks >= 40000 ? "every block ours" : "blocks missing");
	return 0;
}
