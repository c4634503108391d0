/* holders: a contended mutex and a write-held rwlock, each with a named
 * holder.
 *
 * A thread started at holder_main names itself "lockholder", takes a mutex
 * and keeps it 200 ms inside hold_mutex, which also unlocks it; a thread
 * started at waiter_main waits for the mutex meanwhile. Then a thread
 * started at writer_main, named "rwwriter", holds a rwlock for writing
 * 100 ms inside hold_write while a thread started at reader_main waits to
 * read it. Traced, each wait is preceded by a "gotrace.holder" log naming
 * the holder, and the mutex profile charges ~200 ms to hold_mutex.
 * Prints two lines, exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static atomic_int taken;

static void die(const char *what, int err)
{
    fprintf(stderr, "holders: %s: %s\n", what, strerror(err));
    exit(1);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* until: wait (without any lock) until the holder says it holds (it
 * says so once it has the lock). */
static void until(int v)
{
    while (atomic_load(&taken) < v)
        sleep_ms(1);
}

__attribute__((noinline)) static void hold_mutex(void)
{
    int err = pthread_mutex_lock(&mu);
    if (err)
        die("pthread_mutex_lock", err);
    atomic_store(&taken, 1);
    sleep_ms(200);
    if ((err = pthread_mutex_unlock(&mu)))
        die("pthread_mutex_unlock", err);
}

__attribute__((noinline)) static void *holder_main(void *arg)
{
    pthread_setname_np(pthread_self(), "lockholder");
    hold_mutex();
    return arg;
}

__attribute__((noinline)) static void *waiter_main(void *arg)
{
    until(1);
    int err = pthread_mutex_lock(&mu);
    if (err)
        die("pthread_mutex_lock (waiter)", err);
    pthread_mutex_unlock(&mu);
    return arg;
}

__attribute__((noinline)) static void hold_write(void)
{
    int err = pthread_rwlock_wrlock(&rw);
    if (err)
        die("pthread_rwlock_wrlock", err);
    atomic_store(&taken, 2);
    sleep_ms(100);
    if ((err = pthread_rwlock_unlock(&rw)))
        die("pthread_rwlock_unlock", err);
}

__attribute__((noinline)) static void *writer_main(void *arg)
{
    pthread_setname_np(pthread_self(), "rwwriter");
    hold_write();
    return arg;
}

__attribute__((noinline)) static void *reader_main(void *arg)
{
    until(2);
    int err = pthread_rwlock_rdlock(&rw);
    if (err)
        die("pthread_rwlock_rdlock (reader)", err);
    pthread_rwlock_unlock(&rw);
    return arg;
}

static void pair(void *(*a)(void *), void *(*b)(void *))
{
    pthread_t ta, tb;
    int err;
    if ((err = pthread_create(&ta, NULL, a, NULL)) || (err = pthread_create(&tb, NULL, b, NULL)))
        die("pthread_create", err);
    if ((err = pthread_join(ta, NULL)) || (err = pthread_join(tb, NULL)))
        die("pthread_join", err);
}

int main(void)
{
    pair(holder_main, waiter_main);
    printf("mutex done\n");
    pair(writer_main, reader_main);
    printf("holders ok\n");
    return 0;
}
