/* names_prctl: threads that name themselves with prctl(PR_SET_NAME), the
 * way Chromium's and many servers' threads do (no pthread_setname_np).
 *
 * NWORKERS threads with start routine prctl_worker each name themselves
 * "prctl-<i>", read the name back (PR_GET_NAME) and sleep 20 ms so they
 * live a while named. One more thread, long_namer, sets a 23-byte name: the
 * kernel keeps its first 15 bytes ("a-very-long-thr"), and so must the
 * label. main names itself with pthread_setname_np ("names-main"), which
 * glibc does with its own prctl: one label, not two. Two calls that must be
 * untouched: PR_SET_NAME with a bad pointer (-1, EFAULT, no label) and
 * PR_GET_DUMPABLE (its value). Output is deterministic, exit 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define NWORKERS 4

static int named_ok[NWORKERS + 1];

static void sleep_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void *prctl_worker(void *arg)
{
    int id = (int)(long)arg;
    char name[16], got[16] = "";

    snprintf(name, sizeof name, "prctl-%d", id);
    int r = prctl(PR_SET_NAME, name, 0, 0, 0);
    named_ok[id] = r == 0 && prctl(PR_GET_NAME, got, 0, 0, 0) == 0 && strcmp(got, name) == 0;
    sleep_ms(20);
    return NULL;
}

__attribute__((noinline)) static void *long_namer(void *arg)
{
    (void)arg;
    char got[16] = "";
    int r = prctl(PR_SET_NAME, "a-very-long-thread-name");
    named_ok[NWORKERS] = r == 0 && prctl(PR_GET_NAME, got) == 0 && strcmp(got, "a-very-long-thr") == 0;
    sleep_ms(20);
    return NULL;
}

int main(void)
{
    pthread_t t[NWORKERS + 1];

    if (pthread_setname_np(pthread_self(), "names-main") != 0) {
        fprintf(stderr, "names_prctl: pthread_setname_np failed\n");
        return 1;
    }
    errno = 0;
    int bad = prctl(PR_SET_NAME, (char *)8, 0, 0, 0);
    printf("bad name: %d %s\n", bad, strerror(errno));
    printf("dumpable: %d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));

    for (long i = 0; i < NWORKERS; i++)
        if (pthread_create(&t[i], NULL, prctl_worker, (void *)i) != 0) {
            fprintf(stderr, "names_prctl: pthread_create failed\n");
            return 1;
        }
    if (pthread_create(&t[NWORKERS], NULL, long_namer, NULL) != 0) {
        fprintf(stderr, "names_prctl: pthread_create failed\n");
        return 1;
    }
    for (int i = 0; i <= NWORKERS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i <= NWORKERS; i++)
        printf("thread %d named: %s\n", i, named_ok[i] ? "yes" : "no");
    char got[16] = "";
    prctl(PR_GET_NAME, got, 0, 0, 0);
    printf("main: %s\n", got);
    return 0;
}
