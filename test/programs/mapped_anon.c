/* mapped_anon.c — memory outside malloc, for test_heap_mapped.py: maps
 * 64 MiB anonymous at make_pool, touches it, unmaps it; keeps a 4 MiB
 * mapping at keep_map to the end; runs a thread with a 1 MiB stack. What
 * `gotrace heap` must then show as mapped memory (when the library writes
 * span events). Prints nothing; exit status 0. */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"

#define POOL (64u << 20)
#define KEEP (4u << 20)

NOINLINE static void *make_pool(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap");
	return p;
}

NOINLINE static void *keep_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap");
	return p;
}

static void *worker(void *arg)
{
	volatile char buf[4096];
	memset((char *)buf, 1, sizeof buf);
	return arg;
}

int main(void)
{
	char *pool = make_pool(POOL);
	memset(pool, 1, POOL);
	CHECK(munmap(pool, POOL) == 0, "munmap");
	char *keep = keep_map(KEEP);
	keep[0] = 1;

	pthread_attr_t a;
	pthread_t t;
	CHECK(pthread_attr_init(&a) == 0, "pthread_attr_init");
	CHECK(pthread_attr_setstacksize(&a, 1u << 20) == 0, "setstacksize");
	CHECK(pthread_create(&t, &a, worker, NULL) == 0, "pthread_create");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	return 0;
}
