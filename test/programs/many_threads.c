/* many_threads: 2000 short-lived threads (start routine short_main), created
 * and joined in waves of 50.  Every thread adds its number to a shared total
 * under one mutex (some of them contend) and returns twice its number, which
 * main checks when joining.  Prints the count and the total; exit 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOTAL 2000
#define WAVE 50

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total;
static int finished;

__attribute__((noinline)) static void *short_main(void *arg)
{
    long n = (long)arg;
    pthread_mutex_lock(&mu);
    total += n;
    finished++;
    pthread_mutex_unlock(&mu);
    return (void *)(n * 2);
}

int main(void)
{
    pthread_t t[WAVE];
    long bad = 0;

    for (int base = 0; base < TOTAL; base += WAVE) {
        for (int i = 0; i < WAVE; i++) {
            int err = pthread_create(&t[i], NULL, short_main, (void *)(long)(base + i));
            if (err) {
                fprintf(stderr, "pthread_create: %s\n", strerror(err));
                return 1;
            }
        }
        for (int i = 0; i < WAVE; i++) {
            void *ret;
            int err = pthread_join(t[i], &ret);
            if (err || ret != (void *)(2L * (base + i)))
                bad++;
        }
    }
    printf("threads: %d\n", finished);
    printf("total: %ld\n", total);
    printf("bad joins: %ld\n", bad);
    return finished == TOTAL && bad == 0 ? 0 : 1;
}
