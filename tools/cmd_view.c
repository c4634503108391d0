/* cmd_view.c — `gotrace view [-pprof=KIND] [-http=ADDR] TRACE`: opens a
 * trace with the newest Go on the machine that reads it (tools/gofind.c).
 *
 * go runs as our child with GOTOOLCHAIN=local; its output passes through us
 * line by line, so that the progress line (tools/progress.c: how far it has
 * read the trace, from /proc, on a terminal after a second) never mixes into
 * its lines. When Go says where it serves, we say it too, in one line of our
 * own. While it runs we ignore SIGINT and SIGQUIT (a Ctrl-C reaches Go, which
 * ends; that is the normal end of a viewer: status 0) and pass SIGTERM and
 * SIGHUP on. A profile is made by `go tool trace -pprof=KIND` into a
 * temporary file, opened by `go tool pprof -http`, and removed at the end. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/cmd.h"
#include "tools/gofind.h"
#include "tools/progress.h"
#include "tools/readpos.h"
#include "tools/view.h"

#define USAGE "gotrace view [-pprof=sync|net|syscall|sched] [-http=ADDR] TRACE"

static const char *const profiles[] = { "sync", "net", "syscall", "sched" };

static volatile sig_atomic_t go_pid;

static void pass_signal(int sig)
{
	if (go_pid > 0)
		kill((pid_t)go_pid, sig);
}

/* trace_minor reads "go 1.N trace" from the header: N, or -1. */
static int trace_minor(const char *path, char *err, size_t errlen)
{
	char h[16] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = fread(h, 1, sizeof h, f);
	fclose(f);
	int minor;
	if (n < 14 || sscanf(h, "go 1.%d trace", &minor) != 1 || memcmp(h, "go 1.", 5) != 0) {
		snprintf(err, errlen, "%s is not a Go execution trace (%s)", path,
			 n == 0 ? "it is empty" : "no \"go 1.N trace\" header");
		return -1;
	}
	return minor;
}

/* ready_url finds the address in Go's "listening on URL" / "Serving web UI
 * on URL" line. */
static bool ready_url(const char *line, char *url, size_t len)
{
	const char *keys[] = { "Trace viewer is listening on ", "Serving web UI on " };
	for (size_t i = 0; i < 2; i++) {
		const char *p = strstr(line, keys[i]);
		if (p) {
			p += strlen(keys[i]);
			snprintf(url, len, "%.*s", (int)strcspn(p, " \r\n"), p);
			return true;
		}
	}
	return false;
}

struct watch {
	const char *what;      /* for the progress line */
	dev_t dev;             /* the file Go reads, for the progress line */
	ino_t ino;
	uint64_t total;        /* its size */
	bool progress;
	bool said_ready;
};

/* run_go runs go with argv (argv[0] = the go binary), its stdout to out_fd
 * (-1: through us like its stderr), and returns its wait status, or -1. */
static int run_go(char **argv, int out_fd, struct watch *w)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		fprintf(stderr, "gotrace: pipe: %s\n", strerror(errno));
		return -1;
	}
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit, fw = { .sa_handler = pass_signal };
	sigemptyset(&fw.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "gotrace: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		dup2(pipefd[1], STDERR_FILENO);
		dup2(out_fd >= 0 ? out_fd : pipefd[1], STDOUT_FILENO);
		execv(argv[0], argv);
		fprintf(stderr, "gotrace: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	go_pid = pid;
	sigaction(SIGTERM, &fw, NULL);
	sigaction(SIGHUP, &fw, NULL);
	close(pipefd[1]);

	if (w->progress)
		tool_progress_begin(w->what, w->total);
	char line[4096];
	size_t have = 0;
	for (bool open = true; open;) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		int r = poll(&pfd, 1, 250);
		if (r > 0) {
			ssize_t got = read(pipefd[0], line + have, sizeof line - 1 - have);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				open = false;
			else
				have += (size_t)got;
			/* Pass complete lines (or a full buffer) through. */
			char *nl;
			while (have && ((nl = memchr(line, '\n', have)) != NULL || have == sizeof line - 1 || !open)) {
				size_t n = nl ? (size_t)(nl - line) + 1 : have;
				tool_progress_end();
				fwrite(line, 1, n, stderr);
				if (!nl)
					fputc('\n', stderr);
				line[n - (nl ? 1 : 0)] = '\0';
				char url[512];
				if (!w->said_ready && ready_url(line, url, sizeof url)) {
					fprintf(stderr, "gotrace: open %s in a browser (Ctrl-C ends the viewer)\n", url);
					w->said_ready = true;
				}
				fflush(stderr);
				memmove(line, line + n, have - n);
				have -= n;
				if (w->progress && !w->said_ready)
					tool_progress_begin(w->what, w->total);
			}
		}
		if (w->progress && !w->said_ready && w->ino) {
			int64_t pos = tool_read_position(pid, w->dev, w->ino);
			if (pos >= 0)
				tool_progress_at((uint64_t)pos);
		}
	}
	tool_progress_end();
	close(pipefd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
	go_pid = 0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	return status;
}

/* free_port returns a TCP port of localhost nobody listens on now, or 0.
 * (`go tool pprof -http=localhost:0` would print port 0 as its address.) */
static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int port = 0;
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* headless says whether no graphical session is there to show a browser:
 * then Go must not start one (it would try chromium, firefox … in turn and
 * print their complaints); the address we print is the way in (over ssh -L). */
static bool headless(void)
{
	const char *d = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY"), *b = getenv("BROWSER");
	return !(d && *d) && !(w && *w) && !(b && *b);
}

/* exit_of turns Go's wait status into ours: a Ctrl-C is how a viewer ends. */
static int exit_of(int status)
{
	if (status < 0)
		return 1;
	if (WIFSIGNALED(status))
		return WTERMSIG(status) == SIGINT ? 0 : 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int tool_view(const char *trace, const char *profile, const char *http)
{
	char err[512];
	int minor = trace_minor(trace, err, sizeof err);
	if (minor < 0) {
		fprintf(stderr, "gotrace: %s\n", err);
		return TOOL_EXIT_USAGE;
	}
	struct stat st;
	if (stat(trace, &st) != 0) {
		fprintf(stderr, "gotrace: %s: %s\n", trace, strerror(errno));
		return TOOL_EXIT_USAGE;
	}
	struct tool_go go;
	char looked[1024];
	if (tool_go_find(&go, looked, sizeof looked) != 0) {
		fprintf(stderr, "gotrace: no Go found to open the trace (looked in %s); install %s\n", looked,
			tool_go_package(minor));
		return 1;
	}
	if (go.minor < minor) {
		fprintf(stderr, "gotrace: %s is a Go 1.%d trace; the newest Go found, %s (%s), cannot read it; "
				"install %s\n", trace, minor, go.version, go.path, tool_go_package(minor));
		return 1;
	}
	setenv("GOTOOLCHAIN", "local", 1);
	bool no_browser = headless();
	if (no_browser)
		setenv("BROWSER", "true", 1); /* go tool trace's first choice: "opened", nothing started */
	char httpflag[600] = "";
	if (http)
		snprintf(httpflag, sizeof httpflag, "-http=%s", http);
	struct watch w = { .dev = st.st_dev, .ino = st.st_ino, .total = (uint64_t)st.st_size, .progress = true };

	if (!profile) {
		fprintf(stderr, "gotrace: opening %s with go tool trace (%s, %s)\n", trace, go.version, go.path);
		char *argv[] = { go.path, "tool", "trace", http ? httpflag : (char *)trace,
				 http ? (char *)trace : NULL, NULL };
		w.what = "go tool trace is reading the trace";
		return exit_of(run_go(argv, -1, &w));
	}

	/* The profile, into a file of our own that we remove. */
	char tmp[4200];
	const char *dir = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/gotrace-view-%s-XXXXXX.pb", dir && *dir ? dir : "/tmp", profile);
	int fd = mkostemps(tmp, 3, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "gotrace: cannot make a temporary file %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	char pflag[32];
	snprintf(pflag, sizeof pflag, "-pprof=%s", profile);
	fprintf(stderr, "gotrace: making the %s profile of %s with go tool trace (%s, %s)\n", profile, trace,
		go.version, go.path);
	char *mk[] = { go.path, "tool", "trace", pflag, (char *)trace, NULL };
	w.what = "go tool trace is reading the trace";
	int status = run_go(mk, fd, &w);
	close(fd);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		unlink(tmp);
		fprintf(stderr, "gotrace: go tool trace %s could not make the profile\n", pflag);
		return exit_of(status) ? exit_of(status) : 1;
	}
	fprintf(stderr, "gotrace: opening the %s profile with go tool pprof\n", profile);
	char hflag[620];
	if (http)
		snprintf(hflag, sizeof hflag, "-http=%s", http);
	else
		snprintf(hflag, sizeof hflag, "-http=localhost:%d", free_port());
	char *view[] = { go.path, "tool", "pprof", hflag, no_browser ? "-no_browser" : tmp,
			 no_browser ? tmp : NULL, NULL };
	struct watch pw = { .progress = false };
	status = run_go(view, -1, &pw);
	unlink(tmp);
	return exit_of(status);
}

static void view_help(FILE *out)
{
	fprintf(out, "Opens TRACE in `go tool trace` (the timelines, goroutine analysis and\n"
		     "profiles in a browser), or with -pprof one of its profiles in\n"
		     "`go tool pprof -http`, using the newest Go on this machine that reads the\n"
		     "trace: GOTRACE_GO if set, else `go` on PATH, else GOTRACE_GO_SEARCH\n"
		     "(default %s), under GOTOOLCHAIN=local.\n"
		     "Prints the address to open; Ctrl-C ends the viewer. Without a display\n"
		     "(no DISPLAY, WAYLAND_DISPLAY or BROWSER) Go starts no browser.\n\n"
		     "options:\n"
		     "  -pprof=KIND  sync (blocking on locks, condvars, joins), net (network waits),\n"
		     "               syscall (system calls), sched (scheduler latency)\n"
		     "  -http=ADDR   serve on ADDR (host:port; :8080 for every interface), not localhost:random\n"
		     "  -h, -help    this help\n",
		TOOL_GO_SEARCH_DEFAULT);
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "gotrace view: %s%s%s\nusage: %s\n", msg, arg ? " " : "", arg ? arg : "", USAGE);
	return TOOL_EXIT_USAGE;
}

static int view_main(int argc, char **argv)
{
	const char *profile = NULL, *http = NULL, *trace = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "-help") == 0 || strcmp(a, "--help") == 0) {
			tool_command_help(stdout, &tool_cmd_view);
			return 0;
		}
		const char *v = NULL;
		if (strncmp(a, "-pprof=", 7) == 0 || strncmp(a, "--pprof=", 8) == 0)
			v = strchr(a, '=') + 1;
		else if (strcmp(a, "-pprof") == 0 || strcmp(a, "--pprof") == 0) {
			if (++i >= argc)
				return usage_error("missing value for", a);
			v = argv[i];
		}
		if (v) {
			profile = NULL;
			for (size_t k = 0; k < sizeof profiles / sizeof profiles[0]; k++)
				if (strcmp(v, profiles[k]) == 0)
					profile = profiles[k];
			if (!profile)
				return usage_error("-pprof takes sync, net, syscall or sched, not", v);
			continue;
		}
		if (strncmp(a, "-http=", 6) == 0 || strncmp(a, "--http=", 7) == 0) {
			http = strchr(a, '=') + 1;
			continue;
		}
		if (strcmp(a, "-http") == 0 || strcmp(a, "--http") == 0) {
			if (++i >= argc)
				return usage_error("missing value for", a);
			http = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0 && i + 1 < argc) {
			a = argv[++i];
		} else if (a[0] == '-' && a[1] != '\0') {
			return usage_error("unknown option", a);
		}
		if (trace)
			return usage_error("one trace at a time; also given:", a);
		trace = a;
	}
	if (!trace)
		return usage_error("no trace given", NULL);
	return tool_view(trace, profile, http);
}

const struct tool_command tool_cmd_view = {
	.name = "view",
	.summary = "open a trace in go tool trace, or a profile of it in go tool pprof",
	.usage = USAGE,
	.help = view_help,
	.main = view_main,
};
