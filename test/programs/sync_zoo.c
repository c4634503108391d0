/* sync_zoo: every interposed blocking family once, with real contention,
 * checking return values and errno inside the program.
 *
 * Each section starts a helper thread with its own start routine, makes it
 * wait for something main holds (a semaphore handshake plus a 30 ms sleep
 * make sure it really waits), and checks the results after joining.  The
 * timed variants are made to time out (ETIMEDOUT) and to fail on a bad
 * timeout (EINVAL), the try variants to find the object busy.  A sleeper
 * thread sleep(1)s meanwhile.  Only main prints: one "ok <section>" line per
 * section, in a fixed order, then a summary; exit status 0 when every check
 * passed, 1 otherwise.  The traced run must print exactly the same. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ERRNO_SENTINEL 4242


/* pthread_yield as binaries built against older glibc call it (sysbench):
 * today it is only a compatibility symbol, reached by its version. */
int old_pthread_yield(void);
__asm__(".symver old_pthread_yield, pthread_yield@GLIBC_2.2.5");
static int failures;
static int checks;
static int section_failures;
static sem_t ready;             /* helper → main: "I am about to wait" */
static volatile int sleeps_done;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        checks++;                                                             \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            section_failures++;                                               \
            printf("FAIL %s:%d: ", __func__, __LINE__);                       \
            printf(__VA_ARGS__);                                              \
            printf("\n");                                                     \
        }                                                                     \
    } while (0)

#define CHECK_RC(expr, want)                                                  \
    do {                                                                      \
        int rc_ = (expr);                                                     \
        CHECK(rc_ == (want), "%s = %d (%s), want %d (%s)", #expr, rc_,        \
              strerror(rc_), (want), strerror(want));                         \
    } while (0)

/* a libc call returning -1 and setting errno */
#define CHECK_ERRNO(expr, want_errno)                                         \
    do {                                                                      \
        errno = 0;                                                            \
        int rc_ = (expr);                                                     \
        int e_ = errno;                                                       \
        CHECK(rc_ == -1 && e_ == (want_errno), "%s = %d errno %d (%s), want -1 errno %d (%s)", \
              #expr, rc_, e_, strerror(e_), (want_errno), strerror(want_errno)); \
    } while (0)

static void section_begin(void)
{
    section_failures = 0;
}

static void section_end(const char *name)
{
    if (section_failures == 0)
        printf("ok %s\n", name);
    else
        printf("not ok %s\n", name);
}

static void msleep(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static struct timespec abs_in(clockid_t clk, long ms)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static const struct timespec bad_ts = { 0, 2000000000L };  /* tv_nsec out of range */

static pthread_t start(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    int err = pthread_create(&t, NULL, fn, arg);
    if (err) {
        printf("FAIL pthread_create: %s\n", strerror(err));
        exit(1);
    }
    return t;
}

static void *join(pthread_t t)
{
    void *ret = NULL;
    int err = pthread_join(t, &ret);
    if (err) {
        printf("FAIL pthread_join: %s\n", strerror(err));
        exit(1);
    }
    return ret;
}

/* The helper signals "about to wait", main gives it time to get there. */
static void helper_ready(void)
{
    sem_post(&ready);
}

static void await_helper(void)
{
    while (sem_wait(&ready) != 0)
        ;
    msleep(30);
}

/* ---------------------------------------------------------------- sleeper */

static int sleeper_rc = -1;

__attribute__((noinline)) static int do_sleep(void)
{
    unsigned left = sleep(1);
    sleeps_done++;
    return left == 0 ? 0 : 1;
}

static void *sleeper_main(void *arg)
{
    sleeper_rc = do_sleep();
    return arg;
}

/* ------------------------------------------------------------------ mutex */

static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static int mx_try, mx_lock, mx_errno;
static int mx_timed_to, mx_timed_inval, mx_timed_ok;

static void *mutex_locker_main(void *arg)
{
    mx_try = pthread_mutex_trylock(&mx);           /* main holds it: EBUSY */
    helper_ready();
    errno = ERRNO_SENTINEL;
    mx_lock = pthread_mutex_lock(&mx);             /* waits ~30 ms */
    mx_errno = errno;
    pthread_mutex_unlock(&mx);
    return arg;
}

static void *mutex_timed_main(void *arg)
{
    struct timespec ts = abs_in(CLOCK_REALTIME, 30);
    mx_timed_to = pthread_mutex_timedlock(&mx, &ts);       /* ETIMEDOUT */
    mx_timed_inval = pthread_mutex_timedlock(&mx, &bad_ts); /* EINVAL */
    helper_ready();
    ts = abs_in(CLOCK_REALTIME, 10000);
    mx_timed_ok = pthread_mutex_timedlock(&mx, &ts);       /* 0 once main unlocks */
    if (mx_timed_ok == 0)
        pthread_mutex_unlock(&mx);
    return arg;
}

static void test_mutex(void)
{
    section_begin();
    CHECK_RC(pthread_mutex_lock(&mx), 0);
    pthread_t t = start(mutex_locker_main, NULL);
    await_helper();
    CHECK_RC(pthread_mutex_unlock(&mx), 0);
    join(t);
    CHECK_RC(mx_try, EBUSY);
    CHECK_RC(mx_lock, 0);
    CHECK(mx_errno == ERRNO_SENTINEL, "errno after contended pthread_mutex_lock = %d, want it preserved", mx_errno);
    section_end("mutex_lock_trylock");

    section_begin();
    CHECK_RC(pthread_mutex_lock(&mx), 0);
    t = start(mutex_timed_main, NULL);
    await_helper();
    CHECK_RC(pthread_mutex_unlock(&mx), 0);
    join(t);
    CHECK_RC(mx_timed_to, ETIMEDOUT);
    CHECK_RC(mx_timed_inval, EINVAL);
    CHECK_RC(mx_timed_ok, 0);
    section_end("mutex_timedlock");
}

/* ----------------------------------------------------------------- rwlock */

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int rd_try, rd_timed, rd_lock, wr_try, wr_timed, wr_lock;

static void *rw_reader_main(void *arg)
{
    rd_try = pthread_rwlock_tryrdlock(&rw);         /* writer holds it: EBUSY */
    struct timespec ts = abs_in(CLOCK_REALTIME, 30);
    rd_timed = pthread_rwlock_timedrdlock(&rw, &ts); /* ETIMEDOUT */
    helper_ready();
    rd_lock = pthread_rwlock_rdlock(&rw);           /* waits for the writer */
    if (rd_lock == 0)
        pthread_rwlock_unlock(&rw);
    return arg;
}

static void *rw_writer_main(void *arg)
{
    wr_try = pthread_rwlock_trywrlock(&rw);         /* reader holds it: EBUSY */
    struct timespec ts = abs_in(CLOCK_REALTIME, 30);
    wr_timed = pthread_rwlock_timedwrlock(&rw, &ts); /* ETIMEDOUT */
    helper_ready();
    wr_lock = pthread_rwlock_wrlock(&rw);           /* waits for the reader */
    if (wr_lock == 0)
        pthread_rwlock_unlock(&rw);
    return arg;
}

static void test_rwlock(void)
{
    section_begin();
    CHECK_RC(pthread_rwlock_wrlock(&rw), 0);
    pthread_t t = start(rw_reader_main, NULL);
    await_helper();
    CHECK_RC(pthread_rwlock_unlock(&rw), 0);
    join(t);
    CHECK_RC(rd_try, EBUSY);
    CHECK_RC(rd_timed, ETIMEDOUT);
    CHECK_RC(rd_lock, 0);
    section_end("rwlock_rdlock");

    section_begin();
    CHECK_RC(pthread_rwlock_rdlock(&rw), 0);
    t = start(rw_writer_main, NULL);
    await_helper();
    CHECK_RC(pthread_rwlock_unlock(&rw), 0);
    join(t);
    CHECK_RC(wr_try, EBUSY);
    CHECK_RC(wr_timed, ETIMEDOUT);
    CHECK_RC(wr_lock, 0);
    section_end("rwlock_wrlock");
}

/* ------------------------------------------------------------------- spin */

static pthread_spinlock_t spin;
static int spin_try, spin_lock;

static void *spin_main(void *arg)
{
    spin_try = pthread_spin_trylock(&spin);         /* EBUSY */
    helper_ready();
    spin_lock = pthread_spin_lock(&spin);           /* spins ~30 ms */
    if (spin_lock == 0)
        pthread_spin_unlock(&spin);
    return arg;
}

static void test_spin(void)
{
    section_begin();
    CHECK_RC(pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE), 0);
    CHECK_RC(pthread_spin_lock(&spin), 0);
    pthread_t t = start(spin_main, NULL);
    await_helper();
    CHECK_RC(pthread_spin_unlock(&spin), 0);
    join(t);
    CHECK_RC(spin_try, EBUSY);
    CHECK_RC(spin_lock, 0);
    CHECK_RC(pthread_spin_destroy(&spin), 0);
    section_end("spin_lock");
}

/* ---------------------------------------------------------------- condvar */

static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t cv_mono;
static int cv_flag, cv_wait_rc, cv_errno, cv_timed_rc;
static int bc_flag, bc_woken, bc_bad;

static void *cond_waiter_main(void *arg)
{
    pthread_mutex_lock(&cm);
    helper_ready();
    errno = ERRNO_SENTINEL;
    while (!cv_flag)
        cv_wait_rc |= pthread_cond_wait(&cv, &cm);
    cv_errno = errno;
    pthread_mutex_unlock(&cm);
    return arg;
}

static void *cond_timed_waiter_main(void *arg)
{
    struct timespec ts = abs_in(CLOCK_REALTIME, 10000);
    int rc = 0;
    pthread_mutex_lock(&cm);
    helper_ready();
    while (!cv_flag && rc == 0)
        rc = pthread_cond_timedwait(&cv, &cm, &ts);  /* signalled long before */
    cv_timed_rc = rc;
    pthread_mutex_unlock(&cm);
    return arg;
}

static void *cond_broadcast_waiter_main(void *arg)
{
    pthread_mutex_lock(&cm);
    helper_ready();
    while (!bc_flag)
        bc_bad |= pthread_cond_wait(&cv, &cm);
    bc_woken++;
    pthread_mutex_unlock(&cm);
    return arg;
}

static void test_cond(void)
{
    /* wait + signal */
    section_begin();
    cv_flag = 0;
    pthread_t t = start(cond_waiter_main, NULL);
    await_helper();
    CHECK_RC(pthread_mutex_lock(&cm), 0);
    cv_flag = 1;
    CHECK_RC(pthread_cond_signal(&cv), 0);
    CHECK_RC(pthread_mutex_unlock(&cm), 0);
    join(t);
    CHECK_RC(cv_wait_rc, 0);
    CHECK(cv_errno == ERRNO_SENTINEL, "errno after pthread_cond_wait = %d, want it preserved", cv_errno);
    section_end("cond_wait_signal");

    /* timedwait: timing out (realtime and monotonic clocks), bad timeout,
     * and signalled before the timeout */
    section_begin();
    CHECK_RC(pthread_mutex_lock(&cm), 0);
    struct timespec ts = abs_in(CLOCK_REALTIME, 30);
    int rc;
    do
        rc = pthread_cond_timedwait(&cv, &cm, &ts);
    while (rc == 0);                                  /* spurious wake-ups */
    CHECK_RC(rc, ETIMEDOUT);
    CHECK_RC(pthread_cond_timedwait(&cv, &cm, &bad_ts), EINVAL);
    ts = abs_in(CLOCK_MONOTONIC, 30);
    do
        rc = pthread_cond_timedwait(&cv_mono, &cm, &ts);
    while (rc == 0);
    CHECK_RC(rc, ETIMEDOUT);
    CHECK_RC(pthread_mutex_unlock(&cm), 0);
    cv_flag = 0;
    t = start(cond_timed_waiter_main, NULL);
    await_helper();
    CHECK_RC(pthread_mutex_lock(&cm), 0);
    cv_flag = 1;
    CHECK_RC(pthread_cond_signal(&cv), 0);
    CHECK_RC(pthread_mutex_unlock(&cm), 0);
    join(t);
    CHECK_RC(cv_timed_rc, 0);
    section_end("cond_timedwait");

    /* broadcast to three waiters */
    section_begin();
    pthread_t w[3];
    for (int i = 0; i < 3; i++)
        w[i] = start(cond_broadcast_waiter_main, NULL);
    for (int i = 0; i < 3; i++)
        while (sem_wait(&ready) != 0)
            ;
    msleep(30);
    CHECK_RC(pthread_mutex_lock(&cm), 0);
    bc_flag = 1;
    CHECK_RC(pthread_cond_broadcast(&cv), 0);
    CHECK_RC(pthread_mutex_unlock(&cm), 0);
    for (int i = 0; i < 3; i++)
        join(w[i]);
    CHECK(bc_woken == 3, "woken by broadcast: %d, want 3", bc_woken);
    CHECK_RC(bc_bad, 0);
    section_end("cond_broadcast");
}

/* ---------------------------------------------------------------- barrier */

static pthread_barrier_t barrier;
static int barrier_serial, barrier_zero, barrier_other;
static pthread_mutex_t barrier_mu = PTHREAD_MUTEX_INITIALIZER;

static void count_barrier(int rc)
{
    pthread_mutex_lock(&barrier_mu);
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
        barrier_serial++;
    else if (rc == 0)
        barrier_zero++;
    else
        barrier_other++;
    pthread_mutex_unlock(&barrier_mu);
}

static void *barrier_main(void *arg)
{
    count_barrier(pthread_barrier_wait(&barrier));
    return arg;
}

static void test_barrier(void)
{
    section_begin();
    CHECK_RC(pthread_barrier_init(&barrier, NULL, 4), 0);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        t[i] = start(barrier_main, NULL);
    msleep(30);                                       /* the three wait for main */
    count_barrier(pthread_barrier_wait(&barrier));
    for (int i = 0; i < 3; i++)
        join(t[i]);
    CHECK(barrier_serial == 1 && barrier_zero == 3 && barrier_other == 0,
          "barrier results: serial %d, zero %d, other %d", barrier_serial, barrier_zero, barrier_other);
    CHECK_RC(pthread_barrier_destroy(&barrier), 0);
    section_end("barrier");
}

/* -------------------------------------------------------------- semaphore */

static sem_t sem;
static int sem_wait_rc = -1, sem_timed_rc = -1;

static void *sem_waiter_main(void *arg)
{
    helper_ready();
    sem_wait_rc = sem_wait(&sem);                     /* waits for main's post */
    struct timespec ts = abs_in(CLOCK_REALTIME, 10000);
    sem_timed_rc = sem_timedwait(&sem, &ts);          /* second post */
    return arg;
}

static void test_sem(void)
{
    section_begin();
    CHECK_RC(sem_init(&sem, 0, 0), 0);
    CHECK_ERRNO(sem_trywait(&sem), EAGAIN);
    struct timespec ts = abs_in(CLOCK_REALTIME, 30);
    CHECK_ERRNO(sem_timedwait(&sem, &ts), ETIMEDOUT);
    CHECK_ERRNO(sem_timedwait(&sem, &bad_ts), EINVAL);
    pthread_t t = start(sem_waiter_main, NULL);
    await_helper();
    CHECK_RC(sem_post(&sem), 0);
    msleep(30);
    CHECK_RC(sem_post(&sem), 0);
    join(t);
    CHECK_RC(sem_wait_rc, 0);
    CHECK_RC(sem_timed_rc, 0);
    int v = -1;
    CHECK_RC(sem_getvalue(&sem, &v), 0);
    CHECK(v == 0, "semaphore value %d, want 0", v);
    CHECK_RC(sem_destroy(&sem), 0);
    section_end("semaphore");
}

/* ------------------------------------------------------------------- join */

static void *join_target_main(void *arg)
{
    msleep(60);
    return arg;
}

static void test_join(void)
{
    section_begin();
    pthread_t t = start(join_target_main, (void *)42L);
    void *ret = NULL;
    CHECK_RC(pthread_tryjoin_np(t, &ret), EBUSY);
    struct timespec ts = abs_in(CLOCK_REALTIME, 20);
    CHECK_RC(pthread_timedjoin_np(t, &ret, &ts), ETIMEDOUT);
    CHECK_RC(pthread_join(t, &ret), 0);               /* waits ~40 ms */
    CHECK(ret == (void *)42L, "join returned %p, want 0x2a", ret);

    t = start(join_target_main, (void *)43L);
    ts = abs_in(CLOCK_REALTIME, 10000);
    ret = NULL;
    CHECK_RC(pthread_timedjoin_np(t, &ret, &ts), 0);
    CHECK(ret == (void *)43L, "timedjoin returned %p, want 0x2b", ret);
    section_end("join");
}

/* ----------------------------------------------------------------- sleeps */

__attribute__((noinline)) static int do_nanosleep(void)
{
    struct timespec ts = { 0, 10 * 1000 * 1000 }, rem = { 7, 7 };
    errno = ERRNO_SENTINEL;
    int rc = nanosleep(&ts, &rem);
    CHECK(errno == ERRNO_SENTINEL, "errno after nanosleep = %d, want it preserved", errno);
    return rc;
}

/* Each do_* wrapper does something after its call so that the call is not a
 * tail call: do_* must stay on the stack of the sleep block. */
__attribute__((noinline)) static int do_usleep(void)
{
    int rc = usleep(10 * 1000);
    sleeps_done++;
    return rc;
}

__attribute__((noinline)) static int do_clock_nanosleep(void)
{
    struct timespec rel = { 0, 10 * 1000 * 1000 };
    int rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL);
    struct timespec abs = abs_in(CLOCK_MONOTONIC, 10);
    rc |= clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
    sleeps_done++;
    return rc;
}

static void test_sleep(void)
{
    section_begin();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_RC(do_nanosleep(), 0);
    CHECK_RC(do_usleep(), 0);
    CHECK_RC(do_clock_nanosleep(), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    CHECK(ms >= 40, "four 10 ms sleeps took %ld ms", ms);
    CHECK_ERRNO(nanosleep(&bad_ts, NULL), EINVAL);
    errno = ERRNO_SENTINEL;
    CHECK_RC(clock_nanosleep(CLOCK_MONOTONIC, 0, &bad_ts, NULL), EINVAL);
    CHECK(errno == ERRNO_SENTINEL, "errno after clock_nanosleep = %d, want it unchanged", errno);
    CHECK_RC(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &bad_ts, NULL), EINVAL);
    section_end("sleep");

    section_begin();
    CHECK_RC(sched_yield(), 0);
    CHECK_RC(old_pthread_yield(), 0);
    section_end("sched_yield");
}

/* ------------------------------------------------------------------ names */

static void test_names(pthread_t sleeper)
{
    section_begin();
    char got[16];
    CHECK_RC(pthread_setname_np(pthread_self(), "zoo-main"), 0);
    CHECK_RC(pthread_getname_np(pthread_self(), got, sizeof got), 0);
    CHECK(strcmp(got, "zoo-main") == 0, "own name %s", got);
    CHECK_RC(pthread_setname_np(sleeper, "zoo-sleeper"), 0);
    CHECK_RC(pthread_getname_np(sleeper, got, sizeof got), 0);
    CHECK(strcmp(got, "zoo-sleeper") == 0, "sleeper's name %s", got);
    CHECK_RC(pthread_setname_np(pthread_self(), "a-name-that-is-too-long"), ERANGE);
    section_end("setname");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (sem_init(&ready, 0, 0) != 0) {
        perror("sem_init");
        return 1;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cv_mono, &ca);
    pthread_condattr_destroy(&ca);

    pthread_t sleeper = start(sleeper_main, NULL);
    test_names(sleeper);
    test_mutex();
    test_rwlock();
    test_spin();
    test_cond();
    test_barrier();
    test_sem();
    test_join();
    test_sleep();

    section_begin();
    join(sleeper);
    CHECK_RC(sleeper_rc, 0);
    section_end("sleep_in_thread");

    printf("sync_zoo: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
