/* mutex_wait: the smallest contended wait.
 *
 * main locks a mutex, starts one thread (start routine waiter_main) that
 * tries to lock it, sleeps 200 ms and unlocks.  Traced, the waiter shows
 * about 200 ms of sync blocking under waiter_main in -pprof=sync.
 * Prints two lines, exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int entered;

static void die(const char *what, int err)
{
    fprintf(stderr, "mutex_wait: %s: %s\n", what, strerror(err));
    exit(1);
}

__attribute__((noinline)) static void *waiter_main(void *arg)
{
    int err = pthread_mutex_lock(&mu);
    if (err)
        die("pthread_mutex_lock", err);
    entered = 1;
    err = pthread_mutex_unlock(&mu);
    if (err)
        die("pthread_mutex_unlock", err);
    return arg;
}

int main(void)
{
    pthread_t t;
    int err;

    if ((err = pthread_mutex_lock(&mu)))
        die("pthread_mutex_lock", err);
    if ((err = pthread_create(&t, NULL, waiter_main, NULL)))
        die("pthread_create", err);
    struct timespec ts = { 0, 200 * 1000 * 1000 };
    while (nanosleep(&ts, &ts) != 0)
        ;
    if (entered)
        die("waiter got the mutex while main held it", 0);
    if ((err = pthread_mutex_unlock(&mu)))
        die("pthread_mutex_unlock", err);
    if ((err = pthread_join(t, NULL)))
        die("pthread_join", err);
    printf("waiter entered: %d\n", entered);
    printf("mutex_wait ok\n");
    return 0;
}
