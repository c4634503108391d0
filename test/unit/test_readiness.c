/* test_readiness.c — the readiness rule (core/readiness.h) on real
 * descriptors: each kind told apart and cached, mixed sets take the
 * strongest, and the epoll summary follows epoll_ctl, close and dup (the
 * hooks interpose/fd.c calls, called here by hand: the unit tests run
 * without the wrappers). */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "../../core/readiness.h"

static int rank_of(int fd)
{
	gt_fdkind_set(fd, GT_FD_UNKNOWN); /* probe afresh */
	return gt_ready_fd_rank(fd);
}

Test(readiness, kinds_are_told_apart_and_cached)
{
	int sv[2], p[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	cr_assert_eq(pipe(p), 0);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	int ev = eventfd(0, 0), tf = timerfd_create(CLOCK_MONOTONIC, 0), sf = signalfd(-1, &s, 0);
	int in = inotify_init1(0), ep = epoll_create1(0), fd = open("/proc/self/exe", 0);
	cr_assert(ev >= 0 && tf >= 0 && sf >= 0 && in >= 0 && ep >= 0 && fd >= 0);
	struct { int fd; enum gt_fdkind k; int call; } want[] = {
		{ sv[0], GT_FD_SOCKET, GT_CALL_NETWORK },  { p[0], GT_FD_PIPE, GT_CALL_NETWORK },
		{ ev, GT_FD_EVENTFD, GT_CALL_EVENTFD },    { tf, GT_FD_TIMERFD, GT_CALL_SLEEP },
		{ sf, GT_FD_SIGNALFD, GT_CALL_SIGNAL },    { in, GT_FD_INOTIFY, GT_CALL_NETWORK },
		{ fd, GT_FD_FILE, GT_CALL_SYSCALL },
	};
	for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
		gt_fdkind_set(want[i].fd, GT_FD_UNKNOWN);
		cr_assert_eq(gt_fdkind(want[i].fd), want[i].k, "descriptor %u", i);
		cr_assert_eq(atomic_load(&gt_fdkinds[want[i].fd]), want[i].k, "cached %u", i);
		cr_assert_eq(gt_ready_call_kind(gt_ready_fd_rank(want[i].fd)), want[i].call, "call kind %u", i);
	}
	cr_assert_eq(gt_fdkind(ep), GT_FD_EPOLL);
	cr_assert_eq(gt_fdkind(1000), GT_FD_BAD);
	cr_assert_eq(gt_ready_call_kind(rank_of(1000)), GT_CALL_SLEEP, "a closed descriptor waits for nothing");
	int all[] = { sv[0], sv[1], p[0], p[1], ev, tf, sf, in, ep, fd };
	for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) {
		gt_fd_closed(all[i]);
		close(all[i]);
	}
}

Test(readiness, mixed_sets_take_the_strongest)
{
	/* socket > eventfd > signalfd > pipe/tty > file > timerfd/none */
	static const enum gt_fdkind order[] = { GT_FD_TIMERFD, GT_FD_FILE, GT_FD_PIPE, GT_FD_SIGNALFD,
						GT_FD_EVENTFD, GT_FD_SOCKET };
	for (unsigned i = 1; i < sizeof order / sizeof order[0]; i++)
		cr_assert_gt(gt_ready_kind_rank(order[i]), gt_ready_kind_rank(order[i - 1]), "%u", i);
	cr_assert_eq(gt_ready_kind_rank(GT_FD_CHAR), gt_ready_kind_rank(GT_FD_PIPE));
	cr_assert_eq(gt_ready_kind_rank(GT_FD_BAD), 0);
	cr_assert_eq(gt_ready_call_kind(0), GT_CALL_SLEEP);
}

static void add(int ep, int fd)
{
	struct epoll_event e = { .events = EPOLLIN };
	cr_assert_eq(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e), 0);
	gt_epset_ctl(ep, EPOLL_CTL_ADD, fd);
}

static void del(int ep, int fd)
{
	cr_assert_eq(epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL), 0);
	gt_epset_ctl(ep, EPOLL_CTL_DEL, fd);
}

Test(readiness, the_epoll_summary_follows_ctl_close_and_dup)
{
	int ep = epoll_create1(0);
	cr_assert_geq(ep, 0);
	cr_assert_eq(gt_epset_rank(ep), GT_READY_UNKNOWN_SET, "a set not seen created is as before: network");
	gt_epset_created(ep);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(ep)), GT_CALL_SLEEP, "an empty set: time alone");

	int sv[2], tf = timerfd_create(CLOCK_MONOTONIC, 0), ev = eventfd(0, 0);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	gt_fdkind_set(sv[0], GT_FD_SOCKET);
	add(ep, tf);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(ep)), GT_CALL_SLEEP);
	add(ep, sv[0]);
	add(ep, ev);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(ep)), GT_CALL_NETWORK);
	del(ep, sv[0]);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(ep)), GT_CALL_EVENTFD, "DEL takes the socket out");
	/* a member's close takes it out, as the kernel does */
	gt_fd_closed(ev);
	close(ev);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(ep)), GT_CALL_SLEEP, "close takes the eventfd out");
	add(ep, sv[0]);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(ep)), GT_CALL_NETWORK);

	/* a set inside another counts as its own class */
	int outer = epoll_create1(0);
	gt_epset_created(outer);
	int inner = epoll_create1(0);
	gt_epset_created(inner);
	add(inner, tf);
	add(outer, inner);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(outer)), GT_CALL_SLEEP);

	/* a dup'd epoll descriptor has the same set; closing the original
	 * forgets only the original's summary */
	int copy = dup(ep);
	gt_fdkind_set(copy, GT_FD_EPOLL);
	gt_epset_dup(ep, copy);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(copy)), GT_CALL_NETWORK);
	gt_fd_closed(ep);
	close(ep);
	cr_assert_eq(gt_epset_rank(ep), GT_READY_UNKNOWN_SET, "a closed set's summary is forgotten");
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(copy)), GT_CALL_NETWORK, "the copy keeps it");

	/* a stale member record (its set closed) does not count in a new set
	 * that has the same number */
	int again = epoll_create1(0);
	cr_assert_eq(again, ep, "the number is reused");
	gt_epset_created(again);
	gt_fd_closed(sv[0]);
	cr_assert_eq(gt_ready_call_kind(gt_epset_rank(again)), GT_CALL_SLEEP);
	cr_assert_eq(atomic_load(&gt_epsets[again].n[0]), 0);
	int all[] = { again, copy, outer, inner, sv[0], sv[1], tf };
	for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) {
		gt_fd_closed(all[i]);
		close(all[i]);
	}
}
