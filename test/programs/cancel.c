/* cancel: pthread_cancel of blocked threads, with cleanup handlers.
 *
 *   cond_cancel_main   blocked in pthread_cond_wait; its cleanup handler
 *                      unlocks the mutex (which cancellation re-acquired)
 *   sleep_cancel_main  blocked in nanosleep (10 s); cleanup handler counts
 *   join_cancel_main   blocked in pthread_join of a thread that never ends
 *                      (a sem_wait waiter, cancelled afterwards too)
 *
 * main waits until all are blocked, cancels them, joins each (the result
 * must be PTHREAD_CANCELED), checks that every cleanup handler ran and that
 * the mutex is free again.  Prints fixed lines; exit 0 when all is well. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t ready, never;
static int cleanups[4];
static pthread_t sem_waiter;

static void msleep(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void unlock_cleanup(void *arg)
{
    cleanups[0]++;
    pthread_mutex_unlock(arg);
}

static void count_cleanup(void *arg)
{
    cleanups[(long)arg]++;
}

static void *cond_cancel_main(void *arg)
{
    pthread_mutex_lock(&mu);
    pthread_cleanup_push(unlock_cleanup, &mu);
    sem_post(&ready);
    for (;;)
        pthread_cond_wait(&cv, &mu);        /* never signalled */
    pthread_cleanup_pop(1);
    return arg;
}

static void *sleep_cancel_main(void *arg)
{
    pthread_cleanup_push(count_cleanup, (void *)1L);
    sem_post(&ready);
    struct timespec ts = { 10, 0 };
    nanosleep(&ts, NULL);
    pthread_cleanup_pop(0);
    return arg;
}

static void *sem_cancel_main(void *arg)
{
    pthread_cleanup_push(count_cleanup, (void *)2L);
    sem_post(&ready);
    sem_wait(&never);
    pthread_cleanup_pop(0);
    return arg;
}

static void *join_cancel_main(void *arg)
{
    pthread_cleanup_push(count_cleanup, (void *)3L);
    sem_post(&ready);
    pthread_join(sem_waiter, NULL);
    pthread_cleanup_pop(0);
    return arg;
}

static int cancel_and_join(pthread_t t, const char *name)
{
    int err = pthread_cancel(t);
    if (err) {
        printf("pthread_cancel(%s): %s\n", name, strerror(err));
        return 0;
    }
    void *ret = NULL;
    err = pthread_join(t, &ret);
    if (err) {
        printf("pthread_join(%s): %s\n", name, strerror(err));
        return 0;
    }
    int ok = ret == PTHREAD_CANCELED;
    printf("%s: %s\n", name, ok ? "canceled" : "NOT canceled");
    return ok;
}

int main(void)
{
    sem_init(&ready, 0, 0);
    sem_init(&never, 0, 0);
    pthread_t c, s, j;
    pthread_create(&c, NULL, cond_cancel_main, NULL);
    pthread_create(&s, NULL, sleep_cancel_main, NULL);
    pthread_create(&sem_waiter, NULL, sem_cancel_main, NULL);
    for (int i = 0; i < 3; i++)
        while (sem_wait(&ready) != 0)
            ;
    pthread_create(&j, NULL, join_cancel_main, NULL);
    while (sem_wait(&ready) != 0)
        ;
    msleep(50);                             /* let them all block */

    int ok = 1;
    ok &= cancel_and_join(c, "cond_wait");
    ok &= cancel_and_join(s, "nanosleep");
    ok &= cancel_and_join(j, "join");
    ok &= cancel_and_join(sem_waiter, "sem_wait");
    printf("cleanups: %d %d %d %d\n", cleanups[0], cleanups[1], cleanups[2], cleanups[3]);
    int err = pthread_mutex_trylock(&mu);
    printf("mutex after cancel: %s\n", err == 0 ? "free" : strerror(err));
    if (err == 0)
        pthread_mutex_unlock(&mu);
    ok &= err == 0;
    for (int i = 0; i < 4; i++)
        ok &= cleanups[i] == 1;
    return ok ? 0 : 1;
}
