/* detached_exit.c — detached workers tell main they are done just before
 * they return, and main exits at once: the workers' own thread exits race
 * the process's exit (Python's Thread.join waits this way). The last
 * worker to end stops the flusher while main asks it for the final
 * generation; the trace must be written all the same. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#define WORKERS 4

static sem_t done;

static void *worker_main(void *arg)
{
	(void)arg;
	sem_post(&done);
	return NULL;
}

int main(void)
{
	sem_init(&done, 0, 0);
	for (int i = 0; i < WORKERS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker_main, NULL) != 0)
			return 1;
		pthread_detach(t);
	}
	for (int i = 0; i < WORKERS; i++)
		sem_wait(&done);
	puts("done");
	return 0;
}
