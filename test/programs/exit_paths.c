/* exit_paths MODE: ways a multi-threaded process ends.
 *
 *   return         two workers joined, two still blocked (condvar, mutex);
 *                  main returns 7
 *   exit_thread    a worker calls exit(5) while main is blocked in
 *                  pthread_join and two others are blocked (condvar, mutex)
 *   pthread_exit   main calls pthread_exit with two workers still running;
 *                  the process ends with status 0 when the last one returns
 *   exit_main      main calls exit(3) while a worker sleeps in nanosleep
 *   sigterm        main kills the process with SIGTERM while a worker is
 *                  blocked (status: killed by signal 15)
 *
 * Output is deterministic (only one thread prints at a time). */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static sem_t handoff;

static void msleep(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static pthread_t start(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    int err = pthread_create(&t, NULL, fn, arg);
    if (err) {
        fprintf(stderr, "pthread_create: %s\n", strerror(err));
        exit(1);
    }
    return t;
}

/* blocks forever on a condition variable nobody signals */
static void *cond_forever_main(void *arg)
{
    pthread_mutex_lock(&cmu);
    for (;;)
        pthread_cond_wait(&never, &cmu);
    return arg;
}

/* blocks on mu, which main holds until the process ends */
static void *mutex_forever_main(void *arg)
{
    pthread_mutex_lock(&mu);
    pthread_mutex_unlock(&mu);
    return arg;
}

static void *short_main(void *arg)
{
    msleep(10);
    return arg;
}

static void *exiter_main(void *arg)
{
    msleep(50);
    printf("worker calls exit(5)\n");
    exit(5);
    return arg;
}

static void *first_main(void *arg)
{
    msleep(100);
    printf("first worker done\n");
    fflush(stdout);
    sem_post(&handoff);
    return arg;
}

static void *second_main(void *arg)
{
    while (sem_wait(&handoff) != 0)
        ;
    msleep(20);
    printf("second worker done\n");
    return arg;
}

static void *sleeper_main(void *arg)
{
    msleep(10000);
    return arg;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if (strcmp(mode, "return") == 0) {
        pthread_mutex_lock(&mu);
        pthread_t a = start(short_main, NULL), b = start(short_main, NULL);
        start(cond_forever_main, NULL);
        start(mutex_forever_main, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        msleep(30);
        printf("main returns 7\n");
        return 7;
    }
    if (strcmp(mode, "exit_thread") == 0) {
        pthread_mutex_lock(&mu);
        start(cond_forever_main, NULL);
        start(mutex_forever_main, NULL);
        pthread_t e = start(exiter_main, NULL);
        pthread_join(e, NULL);
        printf("not reached\n");
        return 1;
    }
    if (strcmp(mode, "pthread_exit") == 0) {
        sem_init(&handoff, 0, 0);
        start(first_main, NULL);
        start(second_main, NULL);
        printf("main calls pthread_exit\n");
        fflush(stdout);
        pthread_exit(NULL);
    }
    if (strcmp(mode, "exit_main") == 0) {
        start(sleeper_main, NULL);
        msleep(30);
        printf("main calls exit(3)\n");
        exit(3);
    }
    if (strcmp(mode, "sigterm") == 0) {
        pthread_mutex_lock(&mu);
        start(mutex_forever_main, NULL);
        start(sleeper_main, NULL);
        msleep(30);
        printf("main raises SIGTERM\n");
        fflush(stdout);
        kill(getpid(), SIGTERM);
        msleep(10000);
        return 1;
    }
    fprintf(stderr, "usage: exit_paths return|exit_thread|pthread_exit|exit_main|sigterm\n");
    return 2;
}
