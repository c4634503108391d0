/* annotated.c — a small server-like program annotated with gotrace.h:
 * each "request" is a task with parse / handle / reply regions and a log
 * line; workers label themselves. Runs (and prints the same) without the
 * library: the annotations are then no-ops. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "../include/gotrace.h"

static pthread_mutex_t db = PTHREAD_MUTEX_INITIALIZER;
static long served;

static void handle(int worker, int req)
{
	char who[32];
	snprintf(who, sizeof who, "worker %d request %d", worker, req);
	uint64_t task = gotrace_task_begin("request", 0);
	gotrace_region_begin(task, "parse");
	usleep(2000);
	gotrace_region_end(task, "parse");
	gotrace_region_begin(task, "handle");
	pthread_mutex_lock(&db);
	usleep(1000);
	served++;
	pthread_mutex_unlock(&db);
	gotrace_region_end(task, "handle");
	gotrace_region_begin(task, "reply");
	usleep(500);
	gotrace_region_end(task, "reply");
	gotrace_log(task, "served", who);
	gotrace_task_end(task);
}

static void *worker_main(void *arg)
{
	int id = (int)(long)arg;
	char label[16];
	snprintf(label, sizeof label, "worker-%d", id);
	gotrace_set_label(label);
	for (int r = 0; r < 20; r++)
		handle(id, r);
	return NULL;
}

int main(void)
{
	pthread_t t[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker_main, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("served %ld requests\n", served);
	return 0;
}
