/* signals_results.c — calls the wrapped functions whose results can be
 * compared and prints each return value and errno (errno is set to ERANGE
 * before every call, so "unchanged" means the call left it alone). Waits
 * are cut short by SIGALRM from a 50 ms timer, with a handler installed
 * with and without SA_RESTART. Times are printed only where they are
 * certain (whole seconds left, "time left > 0"). The output must be the
 * same traced as untraced. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* arm: a handler for SIGALRM (SA_RESTART or not) and a one-shot timer. */
static void arm(int restart, long ms)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void disarm(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

static const char *err_name(int e)
{
	if (e == ERANGE)
		return "unchanged";
	const char *n = strerrorname_np(e);
	return n ? n : "?";
}

/* R(label, call): prints the call's result as a long and errno. */
#define R(label, call)                                                                     \
	do {                                                                               \
		errno = ERANGE;                                                            \
		long r_ = (long)(call);                                                    \
		int e_ = errno;                                                            \
		printf("%-44s ret=%ld errno=%s alarms=%d\n", label, r_, err_name(e_), (int)alarms); \
	} while (0)

/* E(label, call): for calls that return an error number (0 = success). */
#define E(label, call)                                                                     \
	do {                                                                               \
		errno = ERANGE;                                                            \
		int r_ = (call);                                                           \
		int e_ = errno;                                                            \
		printf("%-44s ret=%s errno=%s alarms=%d\n", label, r_ ? strerrorname_np(r_) : "0", \
		       err_name(e_), (int)alarms);                                         \
	} while (0)

static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	long long ns = (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec + (long long)ms * 1000000ll;
	ts.tv_sec = (time_t)(ns / 1000000000ll);
	ts.tv_nsec = (long)(ns % 1000000000ll);
	return ts;
}

/* Threads that help (hold a lock, write later) block SIGALRM: the timer
 * must interrupt main, as it would untraced. */
static void block_alarm(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static int late_fd;
static void *late_writer(void *arg)
{
	(void)arg;
	block_alarm();
	usleep(150000);
	(void)!write(late_fd, "y", 1);
	return NULL;
}

static void *late_reader(void *arg)
{
	(void)arg;
	block_alarm();
	usleep(150000);
	char buf[4096];
	(void)!read(late_fd, buf, sizeof buf);
	return NULL;
}

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t held_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t held_spin;
static sem_t sem_go, sem_done;

static void *holder(void *arg)
{
	(void)arg;
	block_alarm();
	pthread_mutex_lock(&held);
	pthread_rwlock_wrlock(&held_rw);
	pthread_spin_lock(&held_spin);
	sem_post(&sem_go);
	sem_wait(&sem_done);
	pthread_spin_unlock(&held_spin);
	pthread_rwlock_unlock(&held_rw);
	pthread_mutex_unlock(&held);
	return NULL;
}

static void *returns_7(void *arg)
{
	(void)arg;
	return (void *)7;
}

static void *sleeps_300ms(void *arg)
{
	(void)arg;
	block_alarm();
	usleep(300000);
	return NULL;
}

static void sleeps(void)
{
	struct timespec ts, rem;
	R("sleep(0)", sleep(0));
	R("usleep(0)", usleep(0));
	R("usleep(20000)", usleep(20000));
	arm(1, 50);
	R("usleep(500000) interrupted, SA_RESTART", usleep(500000));
	arm(0, 50);
	R("sleep(1) interrupted after 50ms", sleep(1));
	arm(0, 50);
	R("sleep(2) interrupted after 50ms", sleep(2));
	arm(1, 50);
	R("sleep(1) interrupted, SA_RESTART", sleep(1));
	R("sleep(1) not interrupted", sleep(1));
	ts = (struct timespec){ 0, 20000000 };
	R("nanosleep(20ms)", nanosleep(&ts, &rem));
	ts = (struct timespec){ 1, 0 };
	memset(&rem, 0, sizeof rem);
	arm(0, 50);
	R("nanosleep(1s) interrupted", nanosleep(&ts, &rem));
	printf("  rem: %ld s, more than 0.5 s: %d\n", (long)rem.tv_sec,
	       rem.tv_sec > 0 || rem.tv_nsec > 500000000);
	ts = (struct timespec){ 1, 0 };
	arm(0, 50);
	R("nanosleep(1s) interrupted, rem NULL", nanosleep(&ts, NULL));
	ts = (struct timespec){ 1, 0 };
	arm(0, 50);
	R("nanosleep(1s) interrupted, rem == req", nanosleep(&ts, &ts));
	printf("  ts: %ld s, more than 0.5 s: %d\n", (long)ts.tv_sec, ts.tv_sec > 0 || ts.tv_nsec > 500000000);
	ts = (struct timespec){ 0, 2000000000 };
	R("nanosleep(bad nsec)", nanosleep(&ts, &rem));
	ts = (struct timespec){ -1, 0 };
	R("nanosleep(-1 s)", nanosleep(&ts, &rem));
	ts = (struct timespec){ 0, 0 };
	R("nanosleep(0)", nanosleep(&ts, &rem));

	ts = (struct timespec){ 0, 20000000 };
	E("clock_nanosleep(MONOTONIC, 20ms)", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &rem));
	ts = (struct timespec){ 1, 0 };
	memset(&rem, 0, sizeof rem);
	arm(0, 50);
	E("clock_nanosleep(1s) interrupted", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &rem));
	printf("  rem: %ld s, more than 0.5 s: %d\n", (long)rem.tv_sec,
	       rem.tv_sec > 0 || rem.tv_nsec > 500000000);
	ts = (struct timespec){ 1, 0 };
	arm(1, 50);
	E("clock_nanosleep(1s) interrupted, rem NULL", clock_nanosleep(CLOCK_REALTIME, 0, &ts, NULL));
	ts = in_ms(CLOCK_MONOTONIC, 1000);
	rem = (struct timespec){ 99, 99 };
	arm(0, 50);
	E("clock_nanosleep(ABSTIME) interrupted", clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, &rem));
	printf("  rem untouched: %d\n", rem.tv_sec == 99 && rem.tv_nsec == 99);
	ts = in_ms(CLOCK_MONOTONIC, -10);
	E("clock_nanosleep(ABSTIME in the past)", clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL));
	ts = in_ms(CLOCK_REALTIME, 20);
	E("clock_nanosleep(REALTIME ABSTIME 20ms)", clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL));
	ts = (struct timespec){ 0, 1000000 };
	E("clock_nanosleep(THREAD_CPUTIME)", clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ts, NULL));
	E("clock_nanosleep(bad clock)", clock_nanosleep((clockid_t)12345, 0, &ts, NULL));
	ts = (struct timespec){ 0, -5 };
	E("clock_nanosleep(bad nsec)", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL));
	ts = (struct timespec){ 0, 0 };
	E("clock_nanosleep(0)", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL));
	R("sched_yield", sched_yield());
	disarm();
}

static void pipes(void)
{
	int p[2];
	char buf[8];
	pthread_t th;
	struct pollfd pfd;
	if (pipe(p) != 0)
		abort();
	arm(0, 50);
	R("read(empty pipe) interrupted", read(p[0], buf, 1));
	late_fd = p[1];
	pthread_create(&th, NULL, late_writer, NULL);
	arm(1, 50);
	R("read(empty pipe) interrupted, SA_RESTART", read(p[0], buf, 1));
	pthread_join(th, NULL);
	pfd = (struct pollfd){ p[0], POLLIN, 0 };
	R("poll(empty pipe, 20ms)", poll(&pfd, 1, 20));
	arm(1, 50);
	R("poll(empty pipe, 1s) interrupted, SA_RESTART", poll(&pfd, 1, 1000));
	arm(0, 50);
	R("poll(empty pipe, 1s) interrupted", poll(&pfd, 1, 1000));
	fd_set rs;
	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	struct timeval tv = { 0, 20000 };
	R("select(empty pipe, 20ms)", select(p[0] + 1, &rs, NULL, NULL, &tv));
	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	tv = (struct timeval){ 1, 0 };
	arm(1, 50);
	R("select(empty pipe, 1s) interrupted", select(p[0] + 1, &rs, NULL, NULL, &tv));
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = p[0] }, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	R("epoll_wait(empty pipe, 20ms)", epoll_wait(ep, &out, 1, 20));
	arm(1, 50);
	R("epoll_wait(empty pipe, 1s) interrupted", epoll_wait(ep, &out, 1, 1000));
	close(ep);

	/* Fill the pipe, then a blocking write. */
	int fl = fcntl(p[1], F_GETFL);
	fcntl(p[1], F_SETFL, fl | O_NONBLOCK);
	static char big[4096];
	while (write(p[1], big, sizeof big) > 0)
		;
	R("write(full pipe, O_NONBLOCK)", write(p[1], big, 1));
	fcntl(p[1], F_SETFL, fl);
	arm(0, 50);
	R("write(full pipe) interrupted", write(p[1], big, 1));
	late_fd = p[0];
	pthread_create(&th, NULL, late_reader, NULL);
	arm(1, 50);
	R("write(full pipe) interrupted, SA_RESTART", write(p[1], big, 1));
	pthread_join(th, NULL);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	R("write(no reader, SIGPIPE ignored)", write(p[1], "z", 1));
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
	R("read(bad fd)", read(p[0], buf, 1));
	R("write(bad fd)", write(-1, buf, 1));
	R("close(bad fd)", close(p[0]));
	R("close(-1)", close(-1));
	R("dup(bad fd)", dup(9999));
	R("dup2(0, 0)", dup2(0, 0));
	R("dup2(bad fd, 50)", dup2(9999, 50));
	R("fsync(stdin /dev/null)", fsync(0));
	R("flock(bad fd)", flock(9999, LOCK_EX));
	R("open(missing file)", open("/nonexistent/gotrace", O_RDONLY));
	R("openat(missing file)", openat(AT_FDCWD, "/nonexistent/gotrace", O_RDONLY));
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	R("recv(nonblocking, no data)", recv(sv[0], buf, 1, MSG_DONTWAIT));
	arm(0, 50);
	R("recv(no data) interrupted", recv(sv[0], buf, 1, 0));
	R("accept(not listening)", accept(sv[0], NULL, NULL));
	R("send(bad fd)", send(9999, buf, 1, 0));
	R("sendto(a pipe, not a socket)", sendto(1, buf, 1, 0, NULL, 0) < 0 ? -1 : 0);
	R("fcntl(bad fd)", fcntl(9999, F_GETFL));
	close(sv[0]);
	close(sv[1]);
	disarm();
}

static void locks(void)
{
	pthread_t th;
	struct timespec ts;
	pthread_spin_init(&held_spin, 0);
	sem_init(&sem_go, 0, 0);
	sem_init(&sem_done, 0, 0);
	pthread_create(&th, NULL, holder, NULL);
	sem_wait(&sem_go);
	E("pthread_mutex_trylock(held)", pthread_mutex_trylock(&held));
	ts = in_ms(CLOCK_REALTIME, 30);
	E("pthread_mutex_timedlock(held, 30ms)", pthread_mutex_timedlock(&held, &ts));
	ts = (struct timespec){ 0, -1 };
	E("pthread_mutex_timedlock(bad abstime)", pthread_mutex_timedlock(&held, &ts));
	ts = in_ms(CLOCK_MONOTONIC, 30);
	E("pthread_mutex_clocklock(held, 30ms)", pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &ts));
	E("pthread_rwlock_tryrdlock(held)", pthread_rwlock_tryrdlock(&held_rw));
	ts = in_ms(CLOCK_REALTIME, 30);
	E("pthread_rwlock_timedrdlock(held, 30ms)", pthread_rwlock_timedrdlock(&held_rw, &ts));
	ts = in_ms(CLOCK_REALTIME, 30);
	E("pthread_rwlock_timedwrlock(held, 30ms)", pthread_rwlock_timedwrlock(&held_rw, &ts));
	E("pthread_spin_trylock(held)", pthread_spin_trylock(&held_spin));
	sem_t s;
	sem_init(&s, 0, 0);
	R("sem_trywait(0)", sem_trywait(&s));
	ts = in_ms(CLOCK_REALTIME, 30);
	R("sem_timedwait(0, 30ms)", sem_timedwait(&s, &ts));
	ts = in_ms(CLOCK_REALTIME, 1000);
	arm(0, 50);
	R("sem_timedwait(0, 1s) interrupted", sem_timedwait(&s, &ts));
	ts = in_ms(CLOCK_REALTIME, 1000);
	arm(1, 50);
	R("sem_timedwait(0, 1s) interrupted, SA_RESTART", sem_timedwait(&s, &ts) == 0 ? 0 : -1);
	ts = (struct timespec){ 0, -1 };
	R("sem_timedwait(bad abstime)", sem_timedwait(&s, &ts));
	sem_post(&s);
	R("sem_wait(1)", sem_wait(&s));
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	pthread_mutex_lock(&m);
	ts = in_ms(CLOCK_REALTIME, 30);
	E("pthread_cond_timedwait(30ms)", pthread_cond_timedwait(&c, &m, &ts));
	ts = in_ms(CLOCK_MONOTONIC, 30);
	E("pthread_cond_clockwait(30ms)", pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &ts));
	pthread_mutex_unlock(&m);
	pthread_mutex_t ec;
	pthread_mutexattr_t at;
	pthread_mutexattr_init(&at);
	pthread_mutexattr_settype(&at, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&ec, &at);
	E("pthread_mutex_unlock(errorcheck, not owner)", pthread_mutex_unlock(&ec));
	pthread_mutex_lock(&ec);
	E("pthread_mutex_lock(errorcheck, again)", pthread_mutex_lock(&ec));
	pthread_mutex_unlock(&ec);
	sem_post(&sem_done);
	E("pthread_join(holder)", pthread_join(th, NULL));
	pthread_barrier_t b;
	pthread_barrier_init(&b, NULL, 1);
	E("pthread_barrier_wait(count 1)", pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : EINVAL);

	void *ret = NULL;
	pthread_create(&th, NULL, returns_7, NULL);
	usleep(20000);
	E("pthread_join(finished thread)", pthread_join(th, &ret));
	printf("  returned %ld\n", (long)ret);
	E("pthread_join(self)", pthread_join(pthread_self(), NULL));
	pthread_create(&th, NULL, sleeps_300ms, NULL);
	E("pthread_tryjoin_np(running)", pthread_tryjoin_np(th, NULL));
	ts = in_ms(CLOCK_REALTIME, 30);
	E("pthread_timedjoin_np(running, 30ms)", pthread_timedjoin_np(th, NULL, &ts));
	E("pthread_join(running)", pthread_join(th, NULL));
}

static void children(void)
{
	int st = 0;
	R("waitpid(-1) no child", waitpid(-1, &st, 0));
	R("waitpid(-1, WNOHANG) no child", waitpid(-1, &st, WNOHANG));
	R("wait() no child", wait(&st));
	siginfo_t si;
	R("waitid(P_ALL) no child", waitid(P_ALL, 0, &si, WEXITED));
	pid_t pid = fork();
	if (pid == 0)
		_exit(3);
	R("waitpid(child)", waitpid(pid, &st, 0) == pid);
	printf("  exited %d status %d\n", WIFEXITED(st), WEXITSTATUS(st));
	R("waitpid(reaped child)", waitpid(pid, &st, 0));
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	R("waitpid(running child, WNOHANG)", waitpid(pid, &st, WNOHANG));
	kill(pid, SIGKILL);
	R("waitpid(killed child)", waitpid(pid, &st, 0) == pid);
	printf("  signaled %d signal %d\n", WIFSIGNALED(st), WTERMSIG(st));
	fflush(stdout);
	R("system(exit 3)", system("exit 3"));
	fflush(stdout);
	FILE *f = popen("exit 5", "r");
	R("pclose(exit 5)", pclose(f));
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *only = argc > 1 ? argv[1] : "";
	if (!*only || strcmp(only, "sleeps") == 0)
		sleeps();
	if (!*only || strcmp(only, "pipes") == 0)
		pipes();
	if (!*only || strcmp(only, "locks") == 0)
		locks();
	if (!*only || strcmp(only, "children") == 0)
		children();
	printf("done\n");
	return 0;
}
