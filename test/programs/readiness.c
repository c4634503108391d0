/* readiness: readiness waits labelled by what they wait for (issue 15
 * item 2). Each thread makes one ~200 ms wait, all at once:
 *
 * 1. timerfd_main:  epoll_wait on a set holding a timerfd alone, armed for
 *    200 ms: returns 1 (the timer)                          -> sleep
 * 2. socket_main:   epoll_wait(200 ms) on one end of a socketpair, no data:
 *    returns 0                                              -> network
 * 3. pipe_main:     epoll_wait(200 ms) on an empty pipe: returns 0
 *                                                           -> network
 * 4. eventfd_main:  epoll_wait(-1) on an eventfd that main writes after
 *    200 ms: returns 1                                      -> sync.eventfd
 * 5. signalfd_main: poll on a signalfd for SIGUSR1 (blocked everywhere),
 *    which main sends to the thread after 200 ms: POLLIN, then read
 *                                                           -> sync.signal
 * 6. select_main:   select(200 ms) on a socket: returns 0   -> network
 * 7. deleted_main:  a set holding a socket and a timerfd; EPOLL_CTL_DEL
 *    takes the socket out, then epoll_wait until the timerfd fires
 *                                                           -> sleep
 * 8. closed_main:   a set holding a socket and a timerfd; the socket is
 *    closed (which takes it out of the set), then epoll_wait on the timer
 *                                                           -> sleep
 * 9. nested_main:   epoll_pwait on a set holding another epoll descriptor,
 *    whose set holds a timerfd (through a dup'd number)     -> sleep
 *
 * Every result is checked; only main prints. Exits 0 ("all checks
 * passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define WAIT_MS 200

static pthread_barrier_t ready;
static int efd;
static pthread_t signal_thread;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		CHECK(errno == EINTR, "nanosleep");
}

static int timer_ms(long ms)
{
	int t = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	CHECK(t >= 0, "timerfd_create");
	struct itimerspec it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000000L } };
	CHECK(timerfd_settime(t, 0, &it, NULL) == 0, "timerfd_settime");
	return t;
}

static int set_of(int fd)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0, "epoll_create1");
	if (fd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
		CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll_ctl ADD");
	}
	return ep;
}

static void add(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll_ctl ADD");
}

static NOINLINE void *timerfd_main(void *arg)
{
	int t = timer_ms(WAIT_MS), ep = set_of(t);
	struct epoll_event ev;
	pthread_barrier_wait(&ready);
	int n = epoll_wait(ep, &ev, 1, 5000);
	CHECK(n == 1 && ev.data.fd == t, "epoll_wait on a timerfd");
	close(ep);
	close(t);
	return arg;
}

static NOINLINE void *socket_main(void *arg)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	int ep = set_of(sv[0]);
	struct epoll_event ev;
	pthread_barrier_wait(&ready);
	CHECK(epoll_wait(ep, &ev, 1, WAIT_MS) == 0, "epoll_wait on a socket times out");
	close(ep);
	close(sv[0]);
	close(sv[1]);
	return arg;
}

static NOINLINE void *pipe_main(void *arg)
{
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	int ep = set_of(p[0]);
	struct epoll_event ev;
	pthread_barrier_wait(&ready);
	CHECK(epoll_wait(ep, &ev, 1, WAIT_MS) == 0, "epoll_wait on a pipe times out");
	close(ep);
	close(p[0]);
	close(p[1]);
	return arg;
}

static NOINLINE void *eventfd_main(void *arg)
{
	int ep = set_of(efd);
	struct epoll_event ev;
	pthread_barrier_wait(&ready);
	int n = epoll_wait(ep, &ev, 1, 5000);
	CHECK(n == 1 && ev.data.fd == efd, "epoll_wait on an eventfd");
	uint64_t v;
	CHECK(read(efd, &v, sizeof v) == sizeof v && v == 1, "read the eventfd");
	close(ep);
	return arg;
}

static NOINLINE void *signalfd_main(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	int sfd = signalfd(-1, &s, SFD_CLOEXEC);
	CHECK(sfd >= 0, "signalfd");
	struct pollfd p = { .fd = sfd, .events = POLLIN };
	pthread_barrier_wait(&ready);
	CHECK(poll(&p, 1, 5000) == 1 && (p.revents & POLLIN), "poll on a signalfd");
	struct signalfd_siginfo si;
	CHECK(read(sfd, &si, sizeof si) == sizeof si && si.ssi_signo == SIGUSR1, "read the signalfd");
	close(sfd);
	return arg;
}

static NOINLINE void *select_main(void *arg)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	fd_set r;
	FD_ZERO(&r);
	FD_SET(sv[0], &r);
	struct timeval tv = { 0, WAIT_MS * 1000 };
	pthread_barrier_wait(&ready);
	CHECK(select(sv[0] + 1, &r, NULL, NULL, &tv) == 0, "select on a socket times out");
	close(sv[0]);
	close(sv[1]);
	return arg;
}

static NOINLINE void *deleted_main(void *arg)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	int t = timer_ms(WAIT_MS), ep = set_of(sv[0]);
	add(ep, t);
	CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, sv[0], NULL) == 0, "epoll_ctl DEL");
	struct epoll_event ev;
	pthread_barrier_wait(&ready);
	int n = epoll_wait(ep, &ev, 1, 5000);
	CHECK(n == 1 && ev.data.fd == t, "epoll_wait after DEL");
	close(ep);
	close(t);
	close(sv[0]);
	close(sv[1]);
	return arg;
}

static NOINLINE void *closed_main(void *arg)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	int t = timer_ms(WAIT_MS), ep = set_of(sv[0]);
	add(ep, t);
	close(sv[0]);
	struct epoll_event ev;
	pthread_barrier_wait(&ready);
	int n = epoll_wait(ep, &ev, 1, 5000);
	CHECK(n == 1 && ev.data.fd == t, "epoll_wait after close");
	close(ep);
	close(t);
	close(sv[1]);
	return arg;
}

static NOINLINE void *nested_main(void *arg)
{
	int t = timer_ms(WAIT_MS), inner = set_of(t);
	int copy = dup(inner);
	CHECK(copy >= 0, "dup");
	close(inner);
	int outer = set_of(copy);
	struct epoll_event ev;
	sigset_t none;
	sigemptyset(&none);
	pthread_barrier_wait(&ready);
	int n = epoll_pwait(outer, &ev, 1, 5000, &none);
	CHECK(n == 1 && ev.data.fd == copy, "epoll_pwait on a nested set");
	close(outer);
	close(copy);
	close(t);
	return arg;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &s, NULL) == 0, "pthread_sigmask");
	efd = eventfd(0, EFD_CLOEXEC);
	CHECK(efd >= 0, "eventfd");

	void *(*mains[])(void *) = { timerfd_main, socket_main, pipe_main, eventfd_main, signalfd_main,
				     select_main, deleted_main, closed_main, nested_main };
	enum { N = sizeof mains / sizeof mains[0] };
	pthread_t th[N];
	CHECK(pthread_barrier_init(&ready, NULL, N + 1) == 0, "pthread_barrier_init");
	for (int i = 0; i < N; i++)
		CHECK(pthread_create(&th[i], NULL, mains[i], NULL) == 0, "pthread_create");
	signal_thread = th[4];
	pthread_barrier_wait(&ready);
	sleep_ms(WAIT_MS);
	uint64_t one = 1;
	CHECK(write(efd, &one, sizeof one) == sizeof one, "write the eventfd");
	CHECK(pthread_kill(signal_thread, SIGUSR1) == 0, "pthread_kill");
	for (int i = 0; i < N; i++)
		CHECK(pthread_join(th[i], NULL) == 0, "pthread_join");
	close(efd);
	printf("all checks passed\n");
	return 0;
}
