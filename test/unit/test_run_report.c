/* test_run_report.c — what `gotrace run` says after the command ends
 * (tools/run_report.h), on directories of crafted trace files: wrappers,
 * exec, files that are no traces, old files, %p patterns. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_run_fixture.h"
#include "tools/run_report.h"

static char dir[64];
static uint8_t mem[1 << 20];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/gotrace-run-report-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* put_pp writes dir/name: a trace of pid (started by ppid) running cmd,
 * 2 * pad KB bigger. */
static void put_pp(const char *name, long pid, long ppid, const char *cmd, unsigned pad)
{
	size_t len = rx_trace(mem, sizeof mem, 23, 2, pid, ppid, cmd, pad);
	rx_write(dir, name, mem, len);
}

static void put(const char *name, long pid, const char *cmd, unsigned pad)
{
	put_pp(name, pid, 1, cmd, pad);
}

static void put_bytes(const char *name, const void *bytes, size_t n)
{
	rx_write(dir, name, bytes, n);
}

#define HEADER "go 1.23 trace\0\0\0"

/* report runs the report for a command of pid `pid` that ended with `status`. */
static char *report(const char *base, long pid, int status)
{
	static char pattern[256];
	snprintf(pattern, sizeof pattern, "%s/%s", dir, base);
	struct tool_run_result run = { pattern, (pid_t)pid, { 0, 0 }, status, true };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	tool_run_report(out, &run);
	fclose(out);
	return text;
}

/* line returns the line of text holding needle (a static copy), or fails. */
static const char *line(const char *text, const char *needle)
{
	static char buf[1024];
	const char *p = strstr(text, needle);
	cr_assert_not_null(p, "no \"%s\" in:\n%s", needle, text);
	while (p > text && p[-1] != '\n')
		p--;
	size_t n = strcspn(p, "\n");
	snprintf(buf, sizeof buf, "%.*s", (int)n, p);
	return buf;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

static size_t count_lines(const char *text)
{
	size_t n = 0;
	for (; *text; text++)
		n += *text == '\n';
	return n;
}

Test(run_report, a_wrapper_that_forks_the_program, .init = setup, .fini = teardown)
{
	put("7z.trace", 100, "/bin/sh /usr/bin/7z a x.7z f", 0);
	put_pp("7z.trace.101", 101, 100, "/usr/lib/p7zip/7z a x.7z f", 20);
	put_bytes("7z.trace.4194102", HEADER, 16);
	put_bytes("7z.trace.bak", HEADER, 16);  /* not a name the library gives */
	put_bytes("other.trace", HEADER, 16);
	char *t = report("7z.trace", 100, 0);
	cr_expect(strncmp(t, "gotrace: this run wrote 3 files (* marks the command's own process, pid 100):\n", 78) == 0,
		  "%s", t);
	cr_expect_eq(count_lines(t), 8, "%s", t);
	/* The command's own first, then by size. */
	const char *own = line(t, " 100  ");
	cr_expect(strncmp(own, "gotrace: *     100  sh /usr/bin/7z a x.7z f", 43) == 0, "%s", own);
	cr_expect(strstr(own, "  trace  ") != NULL, "%s", own);
	cr_expect(strstr(t, own) < strstr(t, " 101  "), "%s", t);
	cr_expect(strstr(line(t, " 101  "), "7z a x.7z f") != NULL, "%s", t);
	const char *hdr = line(t, " 4194102  ");
	cr_expect(strstr(hdr, "    16 B  header only  ") != NULL, "%s", hdr);
	cr_expect(strstr(hdr, "/7z.trace.4194102") != NULL, "%s", hdr);
	line(t, "gotrace: 1 of these files is no trace (header only: the process ended before its first "
		"generation was written)");
	const char *bulk = line(t, "most of the run is in");
	cr_expect(strstr(bulk, "the command's own process (pid 100, sh /usr/bin/7z a x.7z f) wrote ") != NULL,
		  "%s", bulk);
	cr_expect(strstr(bulk, "most of the run is in the trace of pid 101 (7z a x.7z f, ") != NULL, "%s", bulk);
	char want[128];
	snprintf(want, sizeof want, "gotrace: open it with: go tool trace %s/7z.trace.101\n", dir);
	cr_expect(strstr(t, want) != NULL && strcmp(strstr(t, want), want) == 0, "want last:\n%s\n%s", want, t);
	cr_expect(strstr(t, "trace written") == NULL, "%s", t);
	free(t);
}

Test(run_report, the_bulk_of_a_process_the_command_did_not_start, .init = setup, .fini = teardown)
{
	/* A daemon the command talked to (started by init) wrote more: the
	 * command is not a wrapper, its own trace is the one to open. */
	put("c.trace", 100, "/usr/bin/client --fetch", 0);
	put_pp("c.trace.101", 101, 1, "/usr/sbin/daemon", 20);
	char *t = report("c.trace", 100, 0);
	cr_expect(strstr(t, "most of the run") == NULL, "%s", t);
	cr_expect(ends_with(line(t, "open it with"), "/c.trace"), "%s", t);
	free(t);
	/* The same file from a child of the command: a wrapper. */
	put_pp("c.trace.101", 101, 100, "/usr/lib/client.real --fetch", 20);
	t = report("c.trace", 100, 0);
	cr_expect(strstr(t, "most of the run is in the trace of pid 101 (client.real --fetch, ") != NULL, "%s", t);
	cr_expect(ends_with(line(t, "open it with"), "/c.trace.101"), "%s", t);
	free(t);
	/* A grandchild through a child that wrote a file: a wrapper too. */
	put_pp("c.trace.102", 102, 100, "/bin/sh /usr/lib/client.sh", 0);
	put_pp("c.trace.101", 101, 102, "/usr/lib/client.real --fetch", 20);
	t = report("c.trace", 100, 0);
	cr_expect(ends_with(line(t, "open it with"), "/c.trace.101"), "%s", t);
	free(t);
	/* ... but not through a parent that left no file: it may be anyone's. */
	put_pp("c.trace.101", 101, 103, "/usr/lib/client.real --fetch", 20);
	t = report("c.trace", 100, 0);
	cr_expect(ends_with(line(t, "open it with"), "/c.trace"), "%s", t);
	free(t);
	char path[128];
	snprintf(path, sizeof path, "%s/c.trace.102", dir);
	cr_assert_eq(unlink(path), 0);
	/* A child that is not much bigger: the command's own. */
	put_pp("c.trace.101", 101, 100, "/usr/lib/client.real --fetch", 0);
	put("c.trace", 100, "/usr/bin/client --fetch", 1);
	t = report("c.trace", 100, 0);
	cr_expect(strstr(t, "most of the run") == NULL, "%s", t);
	cr_expect(ends_with(line(t, "open it with"), "/c.trace"), "%s", t);
	free(t);
}

Test(run_report, a_script_that_execs_the_program, .init = setup, .fini = teardown)
{
	/* The library gives the base name to the program the script exec'd. */
	put("7z.trace", 100, "/usr/lib/p7zip/7z a x.7z f", 3);
	char *t = report("7z.trace", 100, 0);
	char want[512];
	snprintf(want, sizeof want, "gotrace: trace written to %s/7z.trace (pid 100, 7z a x.7z f, ", dir);
	cr_expect(strncmp(t, want, strlen(want)) == 0, "%s", t);
	cr_expect(strstr(t, " KiB)\n") != NULL, "%s", t);
	snprintf(want, sizeof want, "gotrace: open it with: go tool trace %s/7z.trace\n", dir);
	cr_expect(strstr(t, want) != NULL, "%s", t);
	cr_expect_eq(count_lines(t), 2, "%s", t);
	free(t);
}

Test(run_report, two_images_of_one_pid, .init = setup, .fini = teardown)
{
	/* The script wrote before it exec'd: its file and the program's. The
	 * program's is the command's own (the pid's last image). */
	put("a.trace", 100, "/bin/sh ./run.sh", 0);
	put("a.trace.100", 100, "/opt/app --fast", 1);
	put("a.trace.200", 200, "/bin/true", 0);
	char *t = report("a.trace", 100, 0);
	cr_expect(strstr(line(t, "a.trace.100"), "gotrace: *     100  app --fast") != NULL, "%s", t);
	cr_expect(strstr(line(t, "run.sh"), "gotrace:       100  sh ./run.sh") != NULL, "%s", t);
	cr_expect(strstr(line(t, "a.trace.200"), "gotrace:       200  true") != NULL, "%s", t);
	cr_expect(strstr(t, "go tool trace ") != NULL && strstr(line(t, "go tool trace"), "/a.trace.100") != NULL,
		  "%s", t);
	cr_expect(strstr(t, "most of the run") == NULL, "%s", t);
	free(t);
}

Test(run_report, pid_pattern, .init = setup, .fini = teardown)
{
	put("job.100.trace", 100, "make -j2", 0);
	put("job.100.trace.1", 100, "/usr/bin/make -j2 all", 0);  /* a later image */
	put("job.101.trace", 101, "cc -c a.c", 0);
	put("job.102.trace", 102, "cc -c b.c", 0);
	put("job.100.trace.1.snap1", 100, "/usr/bin/make -j2 all", 0); /* the later image's snapshot */
	put("job.100.trace.snap1", 100, "make -j2", 0);                /* the first image's */
	put("job.x.trace", 103, "nope", 0);
	char *t = report("job.%p.trace", 100, 0);
	cr_expect(strncmp(t, "gotrace: this run wrote 6 files", 31) == 0, "%s", t);
	cr_expect(line(t, "job.100.trace.1\n")[9] == '*', "%s", t);
	cr_expect(line(t, "job.100.trace.1.snap1")[9] == '*', "%s", t);
	cr_expect(line(t, "job.100.trace.snap1")[9] == ' ', "%s", t);
	cr_expect(line(t, "job.100.trace\n")[9] == ' ', "%s", t);
	char want[128];
	snprintf(want, sizeof want, "go tool trace %s/job.100.trace.1", dir);
	cr_expect_str_eq(strstr(line(t, "open it with"), "go tool trace"), want);
	free(t);
}

Test(run_report, killed_before_the_first_generation, .init = setup, .fini = teardown)
{
	char *t = report("k.trace", 100, SIGKILL); /* a wait status: killed by SIGKILL */
	char want[256];
	snprintf(want, sizeof want, "gotrace: no trace written to %s/k.trace: the program was killed (SIGKILL) "
				    "before its first generation was written", dir);
	cr_expect(strncmp(t, want, strlen(want)) == 0, "%s", t);
	cr_expect_eq(count_lines(t), 1, "%s", t);
	free(t);
	t = report("k.%p.trace", 100, 0); /* exited */
	snprintf(want, sizeof want, "gotrace: no trace written to %s/k.100.trace: no traced process", dir);
	cr_expect(strncmp(t, want, strlen(want)) == 0, "%s", t);
	cr_expect_eq(count_lines(t), 1, "%s", t);
	free(t);
}

Test(run_report, a_header_only_file_is_no_trace, .init = setup, .fini = teardown)
{
	put_bytes("k.trace", HEADER, 16);
	char *t = report("k.trace", 100, SIGKILL);
	char want[256];
	snprintf(want, sizeof want, "gotrace: no trace written: %s/k.trace (pid 100, 16 B) is header only: "
				    "the process ended before its first generation was written\n", dir);
	cr_expect_str_eq(t, want);
	free(t);
	/* Empty, and cut inside the first generation. */
	put_bytes("k.trace", "", 0);
	t = report("k.trace", 100, 0);
	cr_expect(strstr(t, "(pid 100, 0 B) is empty: the process ended before") != NULL, "%s", t);
	free(t);
	size_t len = rx_trace(mem, sizeof mem, 23, 1, 100, 1, "prog", 0);
	put_bytes("k.trace", mem, len - 3);
	t = report("k.trace", 100, 0);
	cr_expect(strstr(t, "is truncated: the file ends inside its first generation\n") != NULL, "%s", t);
	cr_expect(strstr(t, "go tool trace") == NULL, "%s", t);
	free(t);
}

Test(run_report, only_other_processes_left_traces, .init = setup, .fini = teardown)
{
	put_bytes("s.trace", HEADER, 16);         /* the command's own: killed early */
	put("s.trace.201", 201, "worker one", 2);
	put("s.trace.202", 202, "worker two", 1);
	char *t = report("s.trace", 200, 0);
	const char *l = line(t, "left no trace");
	cr_expect(strstr(l, "the command's own process (pid 200) left no trace (its file is header only); "
			    "the biggest trace is that of pid 201 (worker one, ") != NULL, "%s", l);
	cr_expect(strstr(line(t, "open it with"), "/s.trace.201") != NULL, "%s", t);
	free(t);

	/* No file of the command at all. */
	char path[128];
	snprintf(path, sizeof path, "%s/s.trace", dir);
	cr_assert_eq(unlink(path), 0);
	t = report("s.trace", 200, 0);
	cr_expect(strstr(t, "the command's own process (pid 200) left no file; the biggest trace is that of pid 201")
		  != NULL, "%s", t);
	cr_expect(strstr(t, "* marks") == NULL, "%s", t);
	free(t);
}

Test(run_report, none_is_a_trace, .init = setup, .fini = teardown)
{
	put_bytes("n.trace", HEADER, 16);
	put_bytes("n.trace.4194005", "", 0);
	put_bytes("n.trace.6", "not a trace at all", 18);
	char *t = report("n.trace", 4, 0);
	line(t, "gotrace: none of these files is a trace (empty or header only: the process ended before "
		"its first generation was written; not a trace: it does not start with a Go trace header)");
	cr_expect(strstr(t, "go tool trace") == NULL, "%s", t);
	cr_expect(strstr(t, "trace written") == NULL, "%s", t);
	free(t);
}

Test(run_report, a_process_still_running, .init = setup, .fini = teardown)
{
	/* A background process that outlived the command (this test process
	 * stands for it) has not written its first generation yet. */
	char name[64];
	put("r.trace", 100, "sh -c sleep 9 &", 0);
	snprintf(name, sizeof name, "r.trace.%d", (int)getpid());
	put_bytes(name, HEADER, 16);
	char *t = report("r.trace", 100, 0);
	cr_expect(strstr(line(t, name), "    16 B  running      ") != NULL, "%s", t);
	line(t, "gotrace: 1 of these files is no trace (running: the process still runs and has not written "
		"its first generation yet)");
	free(t);
	/* The command's own process is over: its header-only file is just that. */
	put_bytes("r.trace", HEADER, 16);
	t = report("r.trace", 100, 0);
	cr_expect(strstr(line(t, " 100  "), "header only") != NULL, "%s", t);
	free(t);
}

Test(run_report, old_files_and_links_are_not_the_runs, .init = setup, .fini = teardown)
{
	put("o.trace", 100, "prog", 0);
	put("o.trace.7", 7, "an earlier run", 0);
	char path[128], target[128];
	snprintf(path, sizeof path, "%s/o.trace.7", dir);
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	cr_assert_eq(utimensat(AT_FDCWD, path, old, 0), 0);
	snprintf(target, sizeof target, "%s/o.trace", dir);
	snprintf(path, sizeof path, "%s/o.trace.8", dir);
	cr_assert_eq(symlink(target, path), 0);
	/* start: now, so the fresh file counts and the one of 2001 does not. */
	static char pattern[256];
	snprintf(pattern, sizeof pattern, "%s/o.trace", dir);
	struct tool_run_result run = { pattern, 100, { 0, 0 }, 0, true };
	clock_gettime(CLOCK_REALTIME_COARSE, &run.start);
	run.start.tv_sec -= 5;
	char *t = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&t, &len);
	tool_run_report(out, &run);
	fclose(out);
	cr_expect(strncmp(t, "gotrace: trace written to ", 26) == 0, "%s", t);
	cr_expect_eq(count_lines(t), 2, "%s", t);
	free(t);
}

Test(run_report, many_files_are_summed_up, .init = setup, .fini = teardown)
{
	put("m.trace", 100, "make", 0);
	for (int i = 0; i < 30; i++) {
		char name[32], cmd[32];
		snprintf(name, sizeof name, "m.trace.%d", 1000 + i);
		snprintf(cmd, sizeof cmd, "cc -c f%d.c", i);
		put(name, 1000 + i, cmd, i % 3);
	}
	char *t = report("m.trace", 100, 0);
	cr_expect(strncmp(t, "gotrace: this run wrote 31 files", 32) == 0, "%s", t);
	/* head, column names, 20 rows, the rest in one line, open it. */
	cr_expect_eq(count_lines(t), 24, "%s", t);
	line(t, "gotrace:   ... and 11 smaller files (");
	cr_expect(ends_with(line(t, "open it with"), "/m.trace"), "%s", t);
	free(t);
}

Test(run_report, relative_pattern_and_quoting, .init = setup, .fini = teardown)
{
	char old[4096];
	cr_assert_not_null(getcwd(old, sizeof old));
	cr_assert_eq(chdir(dir), 0);
	put("it's.trace", 100, "prog", 0);
	struct tool_run_result run = { "it's.trace", 100, { 0, 0 }, 0, true };
	char *t = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&t, &len);
	tool_run_report(out, &run);
	fclose(out);
	cr_assert_eq(chdir(old), 0);
	cr_expect_str_eq(t, "gotrace: trace written to it's.trace (pid 100, prog, 218 B)\n"
			    "gotrace: open it with: go tool trace 'it'\\''s.trace'\n");
	free(t);
}

Test(run_report, shell_quote)
{
	char buf[64];
	tool_shell_quote("/tmp/a.trace", buf, sizeof buf);
	cr_expect_str_eq(buf, "/tmp/a.trace");
	tool_shell_quote("a b", buf, sizeof buf);
	cr_expect_str_eq(buf, "'a b'");
	tool_shell_quote("", buf, sizeof buf);
	cr_expect_str_eq(buf, "''");
}
