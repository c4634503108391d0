/* signals_dispositions.c — sets signal dispositions every way libc offers
 * (sigaction, signal, bsd_signal, ssignal, sysv_signal, sigset, sigignore,
 * siginterrupt, a raw rt_sigaction) and prints what it reads back: the
 * handler, the flags, the mask and the restorer. The output must be the
 * same traced as untraced, whatever the tracer gives the kernel. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SA_UNSUPPORTED
#define SA_UNSUPPORTED 0x00000400
#endif

/* Old interfaces on purpose: the tracer must handle them too. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic ignored "-Wrestrict"
extern __sighandler_t bsd_signal(int sig, __sighandler_t handler); /* not declared with _GNU_SOURCE */

static volatile sig_atomic_t ran[65];
static void (*glibc_restorer)(void);

static void on_sig(int sig)
{
	ran[sig]++;
}

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	ran[sig] += 10;
}

/* A thread that reads SIGQUIT's disposition while system() runs: glibc
 * ignores SIGINT and SIGQUIT in the caller while it waits, behind any
 * wrapper's back, then puts back what it found. */
static volatile int watching;
static volatile int quit_ignored_seen;
static void *watch_quit(void *arg)
{
	(void)arg;
	while (watching) {
		struct sigaction o;
		sigaction(SIGQUIT, NULL, &o);
		if (o.sa_handler == SIG_IGN)
			quit_ignored_seen = 1;
		usleep(200);
	}
	return NULL;
}

static const char *handler_name(void *h)
{
	if (h == (void *)SIG_DFL)
		return "SIG_DFL";
	if (h == (void *)SIG_IGN)
		return "SIG_IGN";
	if (h == (void *)SIG_HOLD)
		return "SIG_HOLD";
	if (h == (void *)SIG_ERR)
		return "SIG_ERR";
	if (h == (void *)on_sig)
		return "on_sig";
	if (h == (void *)on_info)
		return "on_info";
	return "other";
}

/* show prints sig's disposition as sigaction reads it back. */
static void show(const char *what, int sig)
{
	struct sigaction sa;
	memset(&sa, 0x5a, sizeof sa);
	errno = ERANGE;
	int r = sigaction(sig, NULL, &sa);
	if (r != 0) {
		printf("%-34s sig %2d: sigaction=%d errno=%s\n", what, sig, r, strerrorname_np(errno));
		return;
	}
	char mask[80];
	int n = 0;
	for (int s = 1; s <= 64; s++)
		if (sigismember(&sa.sa_mask, s) == 1)
			n += snprintf(mask + n, sizeof mask - (size_t)n, "%s%d", n ? "," : "", s);
	if (n == 0)
		strcpy(mask, "-");
	const char *rest = sa.sa_restorer == NULL ? "none" : sa.sa_restorer == glibc_restorer ? "glibc" : "other";
	printf("%-34s sig %2d: %-8s flags=%#010x mask=%s restorer=%s errno=%s\n", what, sig,
	       handler_name((void *)sa.sa_handler), (unsigned)sa.sa_flags, mask, rest,
	       errno == ERANGE ? "unchanged" : strerrorname_np(errno));
}

static void set(const char *what, int sig, void *handler, int flags, int mask_sig)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = (void (*)(int))handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (mask_sig)
		sigaddset(&sa.sa_mask, mask_sig);
	errno = ERANGE;
	int r = sigaction(sig, &sa, &old);
	printf("%-34s sig %2d: sigaction=%d old=%s errno=%s\n", what, sig, r,
	       r == 0 ? handler_name((void *)old.sa_handler) : "-",
	       errno == ERANGE ? "unchanged" : strerrorname_np(errno));
	show(what, sig);
}

static void shown_fn(const char *what, int sig, void (*h)(int))
{
	int e = errno;
	printf("%-34s sig %2d: returned %s errno=%s\n", what, sig, handler_name((void *)h),
	       e == ERANGE ? "unchanged" : strerrorname_np(e));
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* glibc's restorer, from an action glibc installed itself. */
	struct sigaction probe;
	signal(SIGWINCH, SIG_DFL);
	sigaction(SIGWINCH, NULL, &probe);
	glibc_restorer = probe.sa_restorer;

	static const int initial[] = { SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
				       SIGUSR1, SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT,
				       SIGCHLD, SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGXCPU,
				       SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS, 34, 36, 50, 64 };
	for (size_t i = 0; i < sizeof initial / sizeof initial[0]; i++)
		show("initial", initial[i]);

	/* sigaction: SIG_DFL and SIG_IGN with flags and masks, handlers. */
	set("sigaction DFL 0", SIGPIPE, SIG_DFL, 0, 0);
	set("sigaction DFL RESTART|ONSTACK", SIGALRM, SIG_DFL, SA_RESTART | SA_ONSTACK, SIGUSR1);
	set("sigaction DFL NODEFER|SIGINFO", SIGTERM, SIG_DFL, SA_NODEFER | SA_SIGINFO, SIGKILL);
	set("sigaction DFL unsupported bit", SIGUSR2, SIG_DFL, SA_UNSUPPORTED | SA_RESTART, 0);
	set("sigaction DFL INTERRUPT bit", SIGHUP, SIG_DFL, SA_INTERRUPT, SIGSTOP);
	set("sigaction IGN", SIGPIPE, SIG_IGN, 0, 0);
	set("sigaction DFL again", SIGPIPE, SIG_DFL, SA_RESTART, 0);
	set("sigaction handler RESTART", SIGUSR1, on_sig, SA_RESTART, SIGUSR2);
	set("sigaction handler SIGINFO", SIGUSR1, on_info, SA_SIGINFO, 0);
	raise(SIGUSR1);
	printf("handler ran %d\n", (int)ran[SIGUSR1]);
	set("sigaction IGN real-time", 40, SIG_IGN, 0, 0);
	set("sigaction DFL real-time", 40, SIG_DFL, 0, 0);
	set("sigaction handler CHLD NOCLDSTOP", SIGCHLD, on_sig, SA_NOCLDSTOP | SA_RESTART, 0);
	set("sigaction DFL CHLD", SIGCHLD, SIG_DFL, 0, 0);

	/* act and old the same struct */
	struct sigaction same;
	memset(&same, 0, sizeof same);
	same.sa_handler = on_sig;
	sigemptyset(&same.sa_mask);
	sigaction(SIGVTALRM, &same, &same);
	printf("%-34s sig %2d: old=%s\n", "sigaction act == old", SIGVTALRM, handler_name((void *)same.sa_handler));
	show("sigaction act == old", SIGVTALRM);

	/* SA_RESETHAND: the kernel resets the action to SIG_DFL on delivery. */
	set("sigaction RESETHAND", SIGUSR2, on_sig, SA_RESETHAND, 0);
	raise(SIGUSR2);
	printf("handler ran %d\n", (int)ran[SIGUSR2]);
	show("after RESETHAND delivery", SIGUSR2);
	set("sigaction RESETHAND|SIGINFO WINCH", SIGWINCH, on_info, SA_RESETHAND | SA_SIGINFO, 0);
	raise(SIGWINCH);
	printf("handler ran %d\n", (int)ran[SIGWINCH]);
	show("after RESETHAND delivery", SIGWINCH);

	/* signal() family */
	errno = ERANGE;
	shown_fn("signal on_sig", SIGPROF, signal(SIGPROF, on_sig));
	show("signal on_sig", SIGPROF);
	errno = ERANGE;
	shown_fn("signal DFL", SIGPROF, signal(SIGPROF, SIG_DFL));
	show("signal DFL", SIGPROF);
	errno = ERANGE;
	shown_fn("bsd_signal IGN", SIGXCPU, bsd_signal(SIGXCPU, SIG_IGN));
	show("bsd_signal IGN", SIGXCPU);
	errno = ERANGE;
	shown_fn("ssignal on_sig", SIGXFSZ, ssignal(SIGXFSZ, on_sig));
	show("ssignal on_sig", SIGXFSZ);
	errno = ERANGE;
	shown_fn("sysv_signal on_sig", SIGPWR, sysv_signal(SIGPWR, on_sig));
	show("sysv_signal on_sig", SIGPWR);
	raise(SIGPWR);
	printf("handler ran %d\n", (int)ran[SIGPWR]);
	show("after sysv_signal delivery", SIGPWR);
	errno = ERANGE;
	shown_fn("signal SIGKILL", SIGKILL, signal(SIGKILL, on_sig));
	errno = ERANGE;
	shown_fn("signal 0", 0, signal(0, on_sig));
	errno = ERANGE;
	shown_fn("signal 32", 32, signal(32, on_sig));
	errno = ERANGE;
	shown_fn("signal SIG_ERR", SIGINT, signal(SIGINT, SIG_ERR));

	/* siginterrupt, then signal() remembers it */
	errno = ERANGE;
	printf("%-34s sig %2d: %d\n", "siginterrupt 1", SIGIO, siginterrupt(SIGIO, 1));
	show("siginterrupt 1", SIGIO);
	shown_fn("signal after siginterrupt 1", SIGIO, signal(SIGIO, on_sig));
	show("signal after siginterrupt 1", SIGIO);
	printf("%-34s sig %2d: %d\n", "siginterrupt 0", SIGIO, siginterrupt(SIGIO, 0));
	show("siginterrupt 0", SIGIO);
	shown_fn("signal after siginterrupt 0", SIGIO, signal(SIGIO, SIG_DFL));
	show("signal after siginterrupt 0", SIGIO);
	errno = ERANGE;
	int r = siginterrupt(99, 1);
	printf("%-34s sig %2d: %d errno=%s\n", "siginterrupt 99", 99, r, strerrorname_np(errno));

	/* sigset, sigignore (System V) */
	errno = ERANGE;
	shown_fn("sigset on_sig", SIGHUP, sigset(SIGHUP, on_sig));
	show("sigset on_sig", SIGHUP);
	shown_fn("sigset HOLD", SIGHUP, sigset(SIGHUP, SIG_HOLD));
	shown_fn("sigset HOLD again", SIGHUP, sigset(SIGHUP, SIG_HOLD));
	shown_fn("sigset DFL while held", SIGHUP, sigset(SIGHUP, SIG_DFL));
	show("sigset DFL while held", SIGHUP);
	errno = ERANGE;
	printf("%-34s sig %2d: %d\n", "sigignore", SIGINT, sigignore(SIGINT));
	show("sigignore", SIGINT);
	errno = ERANGE;
	r = sigignore(SIGKILL);
	printf("%-34s sig %2d: %d errno=%s\n", "sigignore SIGKILL", SIGKILL, r, strerrorname_np(errno));

	/* invalid signals */
	static const int bad[] = { 0, -1, 32, 33, 65, SIGKILL, SIGSTOP };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_sig;
		errno = ERANGE;
		int r = sigaction(bad[i], &sa, NULL);
		printf("%-34s sig %2d: %d errno=%s\n", "sigaction set invalid", bad[i], r, strerrorname_np(errno));
		show("sigaction read invalid", bad[i]);
	}

	/* A raw rt_sigaction, past libc: sigaction reads the kernel's. */
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} raw = { (void *)SIG_IGN, 0, NULL, 0 };
	printf("%-34s sig %2d: %ld\n", "raw rt_sigaction IGN", SIGQUIT,
	       syscall(SYS_rt_sigaction, SIGQUIT, &raw, NULL, 8));
	show("after raw rt_sigaction", SIGQUIT);
	raw.handler = (void *)SIG_DFL;
	syscall(SYS_rt_sigaction, SIGQUIT, &raw, NULL, 8);
	show("after raw rt_sigaction DFL", SIGQUIT);
	set("sigaction after raw", SIGQUIT, SIG_DFL, 0, 0);

	pthread_t th;
	watching = 1;
	pthread_create(&th, NULL, watch_quit, NULL);
	fflush(stdout);
	int st = system("sleep 0.3");
	watching = 0;
	pthread_join(th, NULL);
	printf("system: %d, SIGQUIT seen ignored meanwhile: %d\n", st, (int)quit_ignored_seen);
	show("after system()", SIGQUIT);
	show("after system()", SIGINT);
	printf("done\n");
	return 0;
}
