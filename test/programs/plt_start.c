/* plt_start: a non-PIE program (built -fno-pie -no-pie, linked with
 * libpltstart.so from plt_start_lib.c) starts a thread at plt_worker, a
 * function of the library: its canonical address, the one the program
 * passes to pthread_create, is the executable's PLT stub for it, which the
 * symbol table names after the preceding symbol (_init). Prints plt_worker's
 * result; exit 0. */
#include <pthread.h>
#include <stdio.h>

#include "check.h"

void *plt_worker(void *arg);

int main(void)
{
	pthread_t t;
	void *r;
	CHECK(pthread_create(&t, NULL, plt_worker, (void *)1) == 0, "pthread_create");
	CHECK(pthread_join(t, &r) == 0, "pthread_join");
	printf("result %ld\n", (long)r);
	return 0;
}
