/* io_socket_wait: threads that wait on TCP loopback sockets.
 *
 * 1. net_reader_main read()s and recv_reader_main recv()s a connected
 *    socket whose peer (main) writes only after 300 ms: traced, each shows
 *    about 300 ms of network blocking (go tool trace -pprof=net) with
 *    read / recv as the leaf.
 * 2. server_main (epoll_wait, accept4, recv, send) and client_main
 *    (connect, send, poll, recv) exchange five ping/pong messages.
 * 3. nonblocking_probe: reads and MSG_DONTWAIT recvs on an empty socket
 *    that fail with EAGAIN at once (the tracer must record nothing there).
 * 4. eintr_reader_main blocks in read() and is interrupted by SIGUSR1,
 *    whose handler is installed without SA_RESTART: read fails with EINTR;
 *    the next read gets data.
 * 5. Partial reads: the peer writes 5 bytes, waits 50 ms, writes 5 more and
 *    closes; read(fd, buf, 100) returns 5, 5, then 0 (end of file).
 *
 * Every return value and errno is checked; the output is deterministic and
 * only main prints.  Exits 0 ("all checks passed"), 1 on any failure. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		CHECK(errno == EINTR, "nanosleep");
}

/* A listening socket on 127.0.0.1 with a port the kernel picked. */
static int listener(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0, "socket");
	int one = 1;
	CHECK(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0, "SO_REUSEADDR");
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind");
	CHECK(listen(fd, 16) == 0, "listen");
	socklen_t al = sizeof a;
	CHECK(getsockname(fd, (struct sockaddr *)&a, &al) == 0, "getsockname");
	*port = ntohs(a.sin_port);
	return fd;
}

static int connect_to(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0, "socket");
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((unsigned short)port);
	CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect");
	int one = 1;
	CHECK(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0, "TCP_NODELAY");
	return fd;
}

/* A connected pair over loopback: *a is the client end, *b the server end. */
static void tcp_pair(int lfd, int port, int *a, int *b)
{
	*a = connect_to(port);
	*b = accept(lfd, NULL, NULL);
	CHECK(*b >= 0, "accept");
}

static void write_all(int fd, const char *s)
{
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);
	CHECK(w == (ssize_t)n, "write");
}

/* ---- 1. readers whose peer writes after 300 ms --------------------------- */

struct reader {
	int fd;
	ssize_t got;
	int err;
	char buf[64];
};

static struct reader net_r, recv_r;

NOINLINE static void *net_reader_main(void *arg)
{
	struct reader *r = arg;
	ssize_t n = read(r->fd, r->buf, sizeof r->buf - 1);
	r->err = n < 0 ? errno : 0;
	r->got = n;
	if (n >= 0)
		r->buf[n] = 0;
	return NULL;
}

NOINLINE static void *recv_reader_main(void *arg)
{
	struct reader *r = arg;
	ssize_t n = recv(r->fd, r->buf, sizeof r->buf - 1, 0);
	r->err = n < 0 ? errno : 0;
	r->got = n;
	if (n >= 0)
		r->buf[n] = 0;
	return NULL;
}

static void print_reader(const char *who, const struct reader *r)
{
	if (r->got < 0)
		printf("%s: failed with %s\n", who, strerror(r->err));
	else
		printf("%s: got %zd bytes \"%s\"\n", who, r->got, r->buf);
}

static void late_writer(int lfd, int port)
{
	int a1, b1, a2, b2;
	tcp_pair(lfd, port, &a1, &b1);
	tcp_pair(lfd, port, &a2, &b2);
	net_r.fd = b1;
	recv_r.fd = b2;
	pthread_t t1, t2;
	CHECK(pthread_create(&t1, NULL, net_reader_main, &net_r) == 0, "pthread_create");
	CHECK(pthread_create(&t2, NULL, recv_reader_main, &recv_r) == 0, "pthread_create");
	sleep_ms(300);
	write_all(a1, "late-read");
	ssize_t s = send(a2, "late-recv", 9, 0);
	CHECK(s == 9, "send");
	CHECK(pthread_join(t1, NULL) == 0, "pthread_join");
	CHECK(pthread_join(t2, NULL) == 0, "pthread_join");
	print_reader("net_reader read", &net_r);
	print_reader("recv_reader recv", &recv_r);
	CHECK(net_r.got == 9 && recv_r.got == 9, "late data");
	close(a1);
	close(b1);
	close(a2);
	close(b2);
}

/* ---- 2. a client/server pair --------------------------------------------- */

#define MESSAGES 5
#define MSG_LEN 6 /* "ping N" / "pong N" */

static int server_port;
static int server_lfd;
static int server_handled;
static char replies[MESSAGES][MSG_LEN + 1];

static void epoll_add(int ep, int fd)
{
	struct epoll_event ev;
	memset(&ev, 0, sizeof ev);
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll_ctl");
}

NOINLINE static void *server_main(void *arg)
{
	(void)arg;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK(ep >= 0, "epoll_create1");
	epoll_add(ep, server_lfd);
	struct epoll_event ev;
	int n = epoll_wait(ep, &ev, 1, 10000);
	CHECK(n == 1 && ev.data.fd == server_lfd, "epoll_wait for a connection");
	int c = accept4(server_lfd, NULL, NULL, SOCK_CLOEXEC);
	CHECK(c >= 0, "accept4");
	epoll_add(ep, c);
	for (;;) {
		n = epoll_wait(ep, &ev, 1, 10000);
		CHECK(n == 1 && ev.data.fd == c, "epoll_wait for a message");
		char buf[MSG_LEN + 1];
		ssize_t k = recv(c, buf, MSG_LEN, MSG_WAITALL);
		CHECK(k == 0 || k == MSG_LEN, "recv a whole message");
		if (k == 0)
			break;
		CHECK(memcmp(buf, "ping ", 5) == 0, "a ping");
		memcpy(buf, "pong", 4);
		sleep_ms(5); /* the client waits in poll meanwhile */
		ssize_t s = send(c, buf, MSG_LEN, MSG_NOSIGNAL);
		CHECK(s == MSG_LEN, "send the reply");
		server_handled++;
	}
	CHECK(close(c) == 0, "close");
	CHECK(close(ep) == 0, "close epoll");
	return NULL;
}

NOINLINE static void *client_main(void *arg)
{
	(void)arg;
	sleep_ms(30); /* the server waits in epoll_wait meanwhile */
	int fd = connect_to(server_port);
	for (int i = 0; i < MESSAGES; i++) {
		char msg[MSG_LEN + 1];
		snprintf(msg, sizeof msg, "ping %d", i);
		ssize_t s = send(fd, msg, MSG_LEN, MSG_NOSIGNAL);
		CHECK(s == MSG_LEN, "send a ping");
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n = poll(&p, 1, 10000);
		CHECK(n == 1 && (p.revents & POLLIN), "poll for the reply");
		size_t have = 0;
		while (have < MSG_LEN) {
			ssize_t k = recv(fd, replies[i] + have, MSG_LEN - have, 0);
			CHECK(k > 0, "recv the reply");
			have += (size_t)k;
		}
		sleep_ms(10);
	}
	CHECK(shutdown(fd, SHUT_WR) == 0, "shutdown");
	char c;
	ssize_t k = recv(fd, &c, 1, 0);
	CHECK(k == 0, "end of file after shutdown");
	CHECK(close(fd) == 0, "close");
	return NULL;
}

static void ping_pong(void)
{
	server_lfd = listener(&server_port);
	pthread_t s, c;
	CHECK(pthread_create(&s, NULL, server_main, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&c, NULL, client_main, NULL) == 0, "pthread_create");
	CHECK(pthread_join(c, NULL) == 0, "pthread_join");
	CHECK(pthread_join(s, NULL) == 0, "pthread_join");
	for (int i = 0; i < MESSAGES; i++)
		printf("client: reply %d \"%s\"\n", i, replies[i]);
	printf("server: handled %d messages\n", server_handled);
	CHECK(server_handled == MESSAGES, "server handled every message");
	close(server_lfd);
}

/* ---- 3. non-blocking reads of an empty socket ----------------------------- */

#define PROBES 50

NOINLINE static int nonblocking_probe(int nb_fd, int blocking_fd)
{
	int eagain = 0;
	for (int i = 0; i < PROBES; i++) {
		char c;
		errno = 0;
		ssize_t n = read(nb_fd, &c, 1);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			eagain++;
		errno = 0;
		n = recv(blocking_fd, &c, 1, MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			eagain++;
	}
	return eagain;
}

static void nonblocking(int lfd, int port)
{
	int a, b;
	tcp_pair(lfd, port, &a, &b);
	int fl = fcntl(b, F_GETFL);
	CHECK(fl >= 0 && fcntl(b, F_SETFL, fl | O_NONBLOCK) == 0, "O_NONBLOCK");
	int n = nonblocking_probe(b, a);
	printf("nonblocking: %d of %d reads failed with EAGAIN\n", n, 2 * PROBES);
	CHECK(n == 2 * PROBES, "EAGAIN every time");
	close(a);
	close(b);
}

/* ---- 4. a blocking read interrupted by a signal ---------------------------- */

static volatile sig_atomic_t usr1_seen;
static atomic_int first_read_done;
static struct reader eintr_r, eintr_r2;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen = 1;
}

NOINLINE static void *eintr_reader_main(void *arg)
{
	(void)arg;
	ssize_t n = read(eintr_r.fd, eintr_r.buf, sizeof eintr_r.buf - 1);
	eintr_r.err = n < 0 ? errno : 0;
	eintr_r.got = n;
	atomic_store(&first_read_done, 1);
	n = read(eintr_r.fd, eintr_r2.buf, sizeof eintr_r2.buf - 1);
	eintr_r2.err = n < 0 ? errno : 0;
	eintr_r2.got = n;
	if (n >= 0)
		eintr_r2.buf[n] = 0;
	return NULL;
}

static void interrupted(int lfd, int port)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = 0; /* no SA_RESTART: a blocking read fails with EINTR */
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	int a, b;
	tcp_pair(lfd, port, &a, &b);
	eintr_r.fd = b;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, eintr_reader_main, NULL) == 0, "pthread_create");
	sleep_ms(100);
	/* A signal that arrives before the read starts does not interrupt it:
	 * send again until the first read has returned. */
	int sent = 0;
	while (!atomic_load(&first_read_done)) {
		CHECK(pthread_kill(t, SIGUSR1) == 0, "pthread_kill");
		sent++;
		CHECK(sent < 500, "the read was never interrupted");
		sleep_ms(10);
	}
	write_all(a, "after-eintr");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	if (eintr_r.got == -1)
		printf("eintr: first read returned -1 with %s\n",
		       eintr_r.err == EINTR ? "EINTR" : strerror(eintr_r.err));
	else
		printf("eintr: first read returned %zd\n", eintr_r.got);
	print_reader("eintr: second read", &eintr_r2);
	printf("eintr: handler ran: %s\n", usr1_seen ? "yes" : "no");
	CHECK(eintr_r.got == -1 && eintr_r.err == EINTR, "EINTR");
	close(a);
	close(b);
}

/* ---- 5. partial reads and end of file -------------------------------------- */

static int partial_fd;

NOINLINE static void *partial_writer_main(void *arg)
{
	(void)arg;
	write_all(partial_fd, "abcde");
	sleep_ms(50);
	struct iovec iov[2] = { { "fg", 2 }, { "hij", 3 } };
	ssize_t w = writev(partial_fd, iov, 2);
	CHECK(w == 5, "writev");
	CHECK(close(partial_fd) == 0, "close");
	return NULL;
}

static void partial(int lfd, int port)
{
	int a, b;
	tcp_pair(lfd, port, &a, &b);
	partial_fd = a;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, partial_writer_main, NULL) == 0, "pthread_create");
	char buf[100];
	ssize_t n1 = read(b, buf, sizeof buf);
	CHECK(n1 == 5 && memcmp(buf, "abcde", 5) == 0, "first partial read");
	ssize_t n2 = read(b, buf, sizeof buf);
	CHECK(n2 == 5 && memcmp(buf, "fghij", 5) == 0, "second partial read");
	ssize_t n3 = read(b, buf, sizeof buf);
	CHECK(n3 == 0, "end of file");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	printf("partial: read(100) returned %zd, %zd, then %zd at end of file\n", n1, n2, n3);
	close(b);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	int port;
	int lfd = listener(&port);
	late_writer(lfd, port);
	ping_pong();
	nonblocking(lfd, port);
	interrupted(lfd, port);
	partial(lfd, port);
	close(lfd);
	printf("io_socket_wait: all checks passed\n");
	return 0;
}
