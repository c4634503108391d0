/* uncontended: every interposed family used many times without ever having
 * to wait, on the main thread and on one helper thread at a time (never two
 * threads touching the same object at once).  The tracer must not emit a
 * single block for these calls: only waits produce events.
 *
 * The only waits in the program are main's sleeps (Reason "sleep") while
 * each helper runs alone, so a helper is always finished before it is
 * joined.  Prints fixed lines; exit 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define ROUNDS 20000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_barrier_t barrier1;  /* count 1: never waits */
static sem_t sem;
static long counter;
static int errors;

static void expect(int got, int want, const char *what)
{
    if (got != want) {
        errors++;
        printf("FAIL %s = %d, want %d\n", what, got, want);
    }
}

static void hammer(void)
{
    struct timespec far;
    clock_gettime(CLOCK_REALTIME, &far);
    far.tv_sec += 60;
    for (int i = 0; i < ROUNDS; i++) {
        expect(pthread_mutex_lock(&mu), 0, "mutex_lock");
        counter++;
        expect(pthread_mutex_unlock(&mu), 0, "mutex_unlock");
        expect(pthread_mutex_trylock(&mu), 0, "mutex_trylock");
        expect(pthread_mutex_unlock(&mu), 0, "mutex_unlock");
        expect(pthread_mutex_timedlock(&mu, &far), 0, "mutex_timedlock");
        expect(pthread_cond_signal(&cv), 0, "cond_signal");
        expect(pthread_cond_broadcast(&cv), 0, "cond_broadcast");
        expect(pthread_mutex_unlock(&mu), 0, "mutex_unlock");
        expect(pthread_rwlock_rdlock(&rw), 0, "rwlock_rdlock");
        expect(pthread_rwlock_tryrdlock(&rw), 0, "rwlock_tryrdlock");   /* two readers */
        expect(pthread_rwlock_unlock(&rw), 0, "rwlock_unlock");
        expect(pthread_rwlock_unlock(&rw), 0, "rwlock_unlock");
        expect(pthread_rwlock_wrlock(&rw), 0, "rwlock_wrlock");
        expect(pthread_rwlock_unlock(&rw), 0, "rwlock_unlock");
        expect(pthread_rwlock_timedwrlock(&rw, &far), 0, "rwlock_timedwrlock");
        expect(pthread_rwlock_unlock(&rw), 0, "rwlock_unlock");
        expect(pthread_rwlock_timedrdlock(&rw, &far), 0, "rwlock_timedrdlock");
        expect(pthread_rwlock_unlock(&rw), 0, "rwlock_unlock");
        expect(pthread_spin_lock(&spin), 0, "spin_lock");
        expect(pthread_spin_unlock(&spin), 0, "spin_unlock");
        expect(pthread_spin_trylock(&spin), 0, "spin_trylock");
        expect(pthread_spin_unlock(&spin), 0, "spin_unlock");
        expect(sem_post(&sem), 0, "sem_post");
        expect(sem_wait(&sem), 0, "sem_wait");                        /* count was 1 */
        expect(sem_post(&sem), 0, "sem_post");
        expect(sem_trywait(&sem), 0, "sem_trywait");
        expect(sem_post(&sem), 0, "sem_post");
        expect(sem_timedwait(&sem, &far), 0, "sem_timedwait");
        if (i % 1000 == 0)
            expect(pthread_barrier_wait(&barrier1), PTHREAD_BARRIER_SERIAL_THREAD, "barrier_wait(1)");
    }
}

static void *helper_main(void *arg)
{
    hammer();
    return arg;
}

static void msleep(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int main(void)
{
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    pthread_barrier_init(&barrier1, NULL, 1);
    sem_init(&sem, 0, 0);

    hammer();
    for (int i = 0; i < 3; i++) {
        pthread_t t;
        expect(pthread_create(&t, NULL, helper_main, NULL), 0, "pthread_create");
        msleep(100);                        /* the helper finishes meanwhile */
        void *ret = (void *)1;
        expect(pthread_join(t, &ret), 0, "pthread_join");
        expect(ret == NULL, 1, "join result");
    }
    printf("counter: %ld\n", counter);
    printf("errors: %d\n", errors);
    return errors ? 1 : 0;
}
