/* cmd_run.c — `gotrace run`: runs a program with libgotrace.so preloaded and passes its fate through.
 *
 * The contract with the library is only the environment: LD_PRELOAD gets the
 * library's absolute path in front, GOTRACE_* carry the options. The program
 * runs in our process group; while it runs we ignore SIGINT and SIGQUIT (like
 * system(3)) so a Ctrl-C reaches the program and we stay to report, and we
 * forward SIGTERM and SIGHUP to it. Its exit status is ours; if a signal
 * killed it, the same signal kills us. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "tools/cmd.h"
#include "tools/elf_kind.h"
#include "tools/locate.h"
#include "tools/run_report.h"
#include "tools/view.h"

#define USAGE "gotrace run [-o FILE] [-s STACKS] [-p PERIOD] [-f FORMAT] [-F WINDOW] [-q] [--view] [--] CMD [ARGS...]"

/* The flags that set an option; help prints from here and core/config's table. */
static const struct run_flag {
	int opt;           /* enum gt_opt */
	char short_name;
	const char *long_name;
	const char *metavar;
	const char *help;
} run_flags[] = {
	{ GT_OPT_OUT, 'o', "output", "FILE", "trace file; %p becomes the program's pid" },
	{ GT_OPT_STACKS, 's', "stacks", "N", "max frames per stack, 0 = no stacks (0-128)" },
	{ GT_OPT_PERIOD, 'p', "period", "DUR", "generation length: 250ms, 2s, 1m, 0.5 (1ms-1h)" },
	{ GT_OPT_FORMAT, 'f', "format", "N", "23 (Go >= 1.23 reads it) or 26 (Go >= 1.26)" },
	{ GT_OPT_FLIGHT, 'F', "flight", "WINDOW", "flight recorder: keep only the last 10s / 64MB / 30s,256MB" },
};
#define NFLAGS (sizeof run_flags / sizeof run_flags[0])

static void run_help(FILE *out)
{
	fprintf(out, "Runs CMD with libgotrace.so preloaded; CMD writes a Go execution trace.\n"
		     "Each flag sets the GOTRACE_* variable named beside it; without the flag\n"
		     "that variable from the environment applies, else the default. Other\n"
		     "GOTRACE_* variables (see `gotrace help`) pass through to CMD.\n\n"
		     "options:\n");
	for (size_t i = 0; i < NFLAGS; i++) {
		const struct run_flag *f = &run_flags[i];
		const struct gt_option_desc *d = &gt_config_options[f->opt];
		char left[40];
		snprintf(left, sizeof left, "-%c, --%s %s", f->short_name, f->long_name, f->metavar);
		fprintf(out, "  %-22s %s\n  %-22s %s, default %s\n", left, f->help, "", d->name, d->def);
	}
	fprintf(out, "  %-22s %s\n", "-q, --quiet", "do not list the files the run wrote");
	fprintf(out, "  %-22s %s\n", "--view", "then open the trace in go tool trace (gotrace view)");
	fprintf(out, "  %-22s %s\n", "-h, --help", "show this help");
	fprintf(out, "\nAfter CMD ends, gotrace lists the files the run wrote: CMD's own and those of\n"
		     "the processes started from it (OUT.<pid>, or one per pid with %%p). One file:\n"
		     "  gotrace: trace written to app.trace (pid 4242, app --threads 8, 1.3 MiB)\n"
		     "  gotrace: open it with: go tool trace app.trace\n"
		     "Several: one line each with pid, program, size, status (trace, or why the\n"
		     "file is none: empty, header only, truncated, ...) and path; * marks CMD's\n"
		     "own process (after exec, the file of its last program). When CMD is a\n"
		     "wrapper whose file is small beside the trace of a process it started, a\n"
		     "line says so and \"open it with\" names that trace. No file at all: one line\n"
		     "says why (killed before its first generation was written, say).\n"
		     "\nexit status: CMD's own; if a signal killed CMD, gotrace dies by the same\n"
		     "signal. 127: CMD not found; 126: CMD not executable; 2: bad option, or CMD\n"
		     "is statically linked (LD_PRELOAD cannot reach it).\n"
		     "\nexamples:\n"
		     "  gotrace run -o app.trace -- ./app --threads 8\n"
		     "  gotrace run -s 0 -p 250ms ./server      # no stacks, short generations\n"
		     "  gotrace run -o 'job.%%p.trace' make -j8   # one file per traced process\n"
		     "  gotrace run -F 30s -o srv.trace ./server  # then kill -USR2: srv.trace.snap1\n"
		     "  go tool trace app.trace\n");
}

/* ---- output path ---- */

/* absolute_pattern prefixes a relative pattern with the current directory
 * (its '%' doubled), so a program that changes directory before the library
 * opens the file still writes where we will look. Returns -1 if it won't fit. */
static int absolute_pattern(const char *pattern, char *buf, size_t len)
{
	char cwd[PATH_MAX];
	if (pattern[0] == '/')
		return snprintf(buf, len, "%s", pattern) < (int)len ? 0 : -1;
	if (getcwd(cwd, sizeof cwd) == NULL)
		return -1;
	size_t n = 0;
	for (const char *c = cwd; *c; c++) {
		if (n + 2 >= len)
			return -1;
		if (*c == '%')
			buf[n++] = '%';
		buf[n++] = *c;
	}
	int m = snprintf(buf + n, len - n, "/%s", pattern);
	return m >= 0 && (size_t)m < len - n ? 0 : -1;
}

/* ---- environment ---- */

/* prepend_preload puts lib first in LD_PRELOAD, keeping what was there. */
static int prepend_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	if (old == NULL || *old == '\0')
		return setenv("LD_PRELOAD", lib, 1);
	size_t n = strlen(lib) + 1 + strlen(old) + 1;
	char *v = malloc(n);
	if (v == NULL)
		return -1;
	snprintf(v, n, "%s:%s", lib, old);
	int r = setenv("LD_PRELOAD", v, 1);
	free(v);
	return r;
}

/* ---- signals ---- */

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
	int saved = errno;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
	errno = saved;
}

/* die_like_child ends this process by sig, without a core dump of its own
 * (only the child's dump is wanted). Falls back to 128+sig. */
static void die_like_child(int sig)
{
	struct rlimit nocore = { 0, 0 };
	sigset_t set;

	fflush(NULL);
	setrlimit(RLIMIT_CORE, &nocore);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

/* child_exec runs in the forked child: restore what the parent changed, exec. */
static void child_exec(char **argv, const struct sigaction *old_int,
		       const struct sigaction *old_quit, const sigset_t *old_mask)
{
	sigaction(SIGINT, old_int, NULL);
	sigaction(SIGQUIT, old_quit, NULL);
	sigprocmask(SIG_SETMASK, old_mask, NULL);
	execvp(argv[0], argv);

	/* No stdio here: the buffers are a copy of the parent's. */
	int e = errno;
	const char *parts[] = { "gotrace: ", argv[0], ": ", strerror(e), "\n" };
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if (write(2, parts[i], strlen(parts[i])) < 0)
			break;
	_exit(e == ENOENT ? TOOL_EXIT_NOTFOUND : TOOL_EXIT_NOEXEC);
}

/* ---- the command ---- */

static int usage_error(const char *what, const char *arg)
{
	if (arg)
		fprintf(stderr, "gotrace run: %s %s\nusage: %s\n", what, arg, USAGE);
	else
		fprintf(stderr, "gotrace run: %s\nusage: %s\n", what, USAGE);
	return TOOL_EXIT_USAGE;
}

static int run_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "stacks", required_argument, NULL, 's' },
		{ "period", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "flight", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "view", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *given[GT_OPT_COUNT] = { NULL };
	struct gt_config cfg;
	bool quiet = false, view = false;
	int c;

	/* What the library would see without flags; it warns about bad values itself. */
	gt_config_load(&cfg, getenv, NULL, NULL);

	opterr = 0;
	optind = 1;
	/* '+': options end at CMD, so `gotrace run ls -l` works without "--". */
	while ((c = getopt_long(argc, argv, "+:o:s:p:f:F:qh", longopts, NULL)) != -1) {
		const struct run_flag *flag = NULL;
		for (size_t i = 0; i < NFLAGS; i++)
			if (run_flags[i].short_name == c)
				flag = &run_flags[i];
		if (flag) {
			const struct gt_option_desc *d = &gt_config_options[flag->opt];
			char q[96];
			if (gt_config_set(&cfg, flag->opt, optarg) < 0) {
				gt_config_quote(optarg, q, sizeof q);
				fprintf(stderr, "gotrace: -%c %s is not %s (%s)\n", c, q, d->expect,
					d->name);
				return TOOL_EXIT_USAGE;
			}
			given[flag->opt] = optarg;
			continue;
		}
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case 'V':
			view = true;
			break;
		case 'h':
			tool_command_help(stdout, &tool_cmd_run);
			return 0;
		case ':':
		default: {
			char shortopt[3] = { '-', (char)optopt, '\0' };
			const char *what = c == ':' ? "missing value for" : "unknown option";
			return usage_error(what, optopt ? shortopt : argv[optind - 1]);
		}
		}
	}
	if (optind >= argc)
		return usage_error("no command to run", NULL);
	char **cmd = argv + optind;

	/* Say what is wrong before starting anything, like a shell would. */
	char exe[PATH_MAX];
	int found = tool_which(cmd[0], exe, sizeof exe);
	if (found == TOOL_EXIT_NOTFOUND) {
		fprintf(stderr, "gotrace: %s: command not found\n", cmd[0]);
		return found;
	}
	if (found == TOOL_EXIT_NOEXEC) {
		struct stat st;
		bool dir = stat(exe, &st) == 0 && S_ISDIR(st.st_mode);
		fprintf(stderr, "gotrace: %s: %s\n", cmd[0], dir ? "is a directory" : "permission denied");
		return found;
	}
	if (tool_elf_is_static(exe)) {
		fprintf(stderr, "gotrace: %s is statically linked; LD_PRELOAD cannot trace it\n", cmd[0]);
		return TOOL_EXIT_USAGE;
	}

	char lib[PATH_MAX + 64];
	bool have_lib = tool_find_preload(lib, sizeof lib) == 0;
	if (!have_lib)
		fprintf(stderr, "gotrace: libgotrace.so not found (looked for %s); running %s untraced\n",
			lib, cmd[0]);
	else if (strpbrk(lib, ": ") != NULL) {
		fprintf(stderr, "gotrace: %s has ':' or ' ' in its path, which LD_PRELOAD cannot "
				"carry; running %s untraced\n", lib, cmd[0]);
		have_lib = false;
	}
	if (have_lib && prepend_preload(lib) != 0) {
		fprintf(stderr, "gotrace: cannot set LD_PRELOAD: %s\n", strerror(errno));
		return 1;
	}

	/* GOTRACE_OUT: ours when -o was given or nothing was set, made absolute. */
	const char *env_out = getenv("GOTRACE_OUT");
	if (given[GT_OPT_OUT] || env_out == NULL || *env_out == '\0') {
		char abs[GT_CONFIG_OUT_MAX];
		const char *v = absolute_pattern(cfg.out, abs, sizeof abs) == 0 ? abs : cfg.out;
		if (setenv("GOTRACE_OUT", v, 1) != 0) {
			fprintf(stderr, "gotrace: cannot set GOTRACE_OUT: %s\n", strerror(errno));
			return 1;
		}
	}
	for (int i = 0; i < GT_OPT_COUNT; i++) {
		if (i == GT_OPT_OUT || given[i] == NULL)
			continue;
		if (setenv(gt_config_options[i].name, given[i], 1) != 0) {
			fprintf(stderr, "gotrace: cannot set %s: %s\n", gt_config_options[i].name,
				strerror(errno));
			return 1;
		}
	}

	/* The same clock the kernel stamps files with, so the report can tell
	 * the run's files from older ones. */
	struct timespec start;
	clock_gettime(CLOCK_REALTIME_COARSE, &start);

	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigset_t fwd, old_mask;
	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGHUP);
	/* The flight recorder's snapshot signal is for the program; sent to
	 * us (by `pkill`, say) it must not kill us. */
	int snap_sig = cfg.flight_bytes ? cfg.flight_signal : 0;
	if (snap_sig)
		sigaddset(&fwd, snap_sig);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	/* Held until child_pid is known, so a SIGTERM now is forwarded, not lost. */
	sigprocmask(SIG_BLOCK, &fwd, &old_mask);

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "gotrace: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0)
		child_exec(cmd, &old_int, &old_quit, &old_mask);

	child_pid = pid;
	struct sigaction fw = { .sa_handler = forward_signal };
	sigemptyset(&fw.sa_mask);
	sigaction(SIGTERM, &fw, NULL);
	sigaction(SIGHUP, &fw, NULL);
	if (snap_sig)
		sigaction(snap_sig, &fw, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);

	/* Wait without reaping, then stop forwarding, then reap: a late SIGTERM
	 * must never reach some other process that got the pid back. */
	siginfo_t info;
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "gotrace: waitid: %s\n", strerror(errno));
			return 1;
		}
	}
	sigprocmask(SIG_BLOCK, &fwd, NULL);
	child_pid = 0;
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "gotrace: waitpid: %s\n", strerror(errno));
			return 1;
		}
	}

	char open[PATH_MAX + NAME_MAX + 2] = "";
	if (!quiet || view) {
		struct tool_run_result res = { cfg.out, pid, start, status, have_lib, open, sizeof open };
		FILE *out = quiet ? fopen("/dev/null", "we") : stderr;
		fflush(stdout);
		if (out)
			tool_run_report(out, &res);
		if (out && out != stderr)
			fclose(out);
	}
	/* --view: the trace the report names, once the program is over; our
	 * status stays the program's. */
	if (view && *open)
		tool_view(open, NULL, NULL);
	else if (view)
		fprintf(stderr, "gotrace: --view: no trace to open\n");

	if (WIFSIGNALED(status))
		die_like_child(WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

const struct tool_command tool_cmd_run = {
	.name = "run",
	.summary = "run a program and write its Go execution trace",
	.usage = USAGE,
	.help = run_help,
	.main = run_main,
};
