/* workers: 8 threads with one start routine (worker_main) passing a token
 * round-robin under one mutex and one condition variable.
 *
 * Every worker names itself "worker-<i>" (pthread_setname_np), waits at a
 * start gate until main broadcasts, then takes ROUNDS turns; a worker whose
 * turn it is not waits on the condvar, so there are real condvar waits and
 * mutex contention.  main joins all.  Output is deterministic, exit 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NWORKERS 8
#define ROUNDS 40

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int started;
static int turn;
static long checksum;
static int named_ok[NWORKERS];

static void check(const char *what, int err)
{
    if (err) {
        fprintf(stderr, "workers: %s: %s\n", what, strerror(err));
        exit(1);
    }
}

__attribute__((noinline)) static void *worker_main(void *arg)
{
    int id = (int)(long)arg;
    char name[16], got[16];

    snprintf(name, sizeof name, "worker-%d", id);
    check("pthread_setname_np", pthread_setname_np(pthread_self(), name));
    check("pthread_getname_np", pthread_getname_np(pthread_self(), got, sizeof got));
    named_ok[id] = strcmp(name, got) == 0;

    check("lock", pthread_mutex_lock(&mu));
    while (!started)
        check("cond_wait", pthread_cond_wait(&cv, &mu));
    for (int r = 0; r < ROUNDS; r++) {
        while (turn % NWORKERS != id)
            check("cond_wait", pthread_cond_wait(&cv, &mu));
        checksum += (long)turn * (id + 1);
        turn++;
        check("cond_broadcast", pthread_cond_broadcast(&cv));
    }
    check("unlock", pthread_mutex_unlock(&mu));
    return NULL;
}

int main(void)
{
    pthread_t t[NWORKERS];

    for (long i = 0; i < NWORKERS; i++)
        check("pthread_create", pthread_create(&t[i], NULL, worker_main, (void *)i));
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    while (nanosleep(&ts, &ts) != 0)
        ;
    check("lock", pthread_mutex_lock(&mu));
    started = 1;
    check("cond_broadcast", pthread_cond_broadcast(&cv));
    check("unlock", pthread_mutex_unlock(&mu));
    for (int i = 0; i < NWORKERS; i++)
        check("pthread_join", pthread_join(t[i], NULL));
    int named = 0;
    for (int i = 0; i < NWORKERS; i++)
        named += named_ok[i];
    printf("workers: %d\n", NWORKERS);
    printf("turns: %d\n", turn);
    printf("checksum: %ld\n", checksum);
    printf("named: %d\n", named);
    return turn == NWORKERS * ROUNDS && named == NWORKERS ? 0 : 1;
}
