/* test_outname.c — the trace file names `gotrace run` recognises as the
 * library's (tools/outname.h), and the ones it must not. */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/outname.h"

struct want {
	const char *name;
	long pid;
	unsigned image, snap;
};

static void check_all(const char *base, const struct want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct tool_outname m = { -1, 99, 99 };
		cr_assert_eq(tool_outname_match(base, w[i].name, &m), 1, "%s / %s: no match", base, w[i].name);
		cr_expect_eq(m.pid, w[i].pid, "%s / %s: pid %ld", base, w[i].name, m.pid);
		cr_expect_eq(m.image, w[i].image, "%s / %s: image %u", base, w[i].name, m.image);
		cr_expect_eq(m.snap, w[i].snap, "%s / %s: snap %u", base, w[i].name, m.snap);
	}
}

static void check_none(const char *base, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct tool_outname m;
		cr_expect_eq(tool_outname_match(base, names[i], &m), 0, "%s / %s matched", base, names[i]);
	}
}

#define N(a) (sizeof a / sizeof a[0])

Test(outname, without_pid_pattern)
{
	static const struct want w[] = {
		{ "app.trace", 0, 0, 0 },            /* the run's first image */
		{ "app.trace.4242", 4242, 1, 0 },    /* a later process or image */
		{ "app.trace.4242.1", 4242, 2, 0 },  /* ... when app.trace.4242 was taken */
		{ "app.trace.4242.17", 4242, 18, 0 },
		{ "app.trace.snap1", 0, 0, 1 },      /* flight-recorder snapshots */
		{ "app.trace.snap12", 0, 0, 12 },
		{ "app.trace.4242.snap3", 4242, 1, 3 },
		{ "app.trace.4242.2.snap1", 4242, 3, 1 },
	};
	check_all("app.trace", w, N(w));
	static const char *const bad[] = {
		"app.trace.", "app.trace.01", "app.trace.0", "app.trace.12x", "app.trace.snap",
		"app.trace.snap0", "app.trace.snap1x", "app.traceX", "app.trac", "xapp.trace",
		"app.trace.1.2.3", "app.trace.abc", "app.trace.4242.snap1.pb.gz", "app.trace.pb.gz",
		"app.trace.99999999999", "app.trace.4242.", "app.trace..4242", "", "app.trace/x",
	};
	check_none("app.trace", bad, N(bad));
}

Test(outname, with_pid_pattern)
{
	static const struct want w[] = {
		{ "job.42.trace", 42, 0, 0 },
		{ "job.42.trace.1", 42, 1, 0 },      /* a later image of pid 42 */
		{ "job.42.trace.3", 42, 3, 0 },
		{ "job.42.trace.snap2", 42, 0, 2 },
		{ "job.42.trace.2.snap1", 42, 2, 1 },
		{ "job.2147483647.trace", 2147483647, 0, 0 },
	};
	check_all("job.%p.trace", w, N(w));
	static const char *const bad[] = {
		"job..trace", "job.042.trace", "job.0.trace", "job.x.trace", "job.42.trace.42.1",
		"job.42.trace.0", "job.42.trac", "job.42", "job.2147483648.trace", "job.4 2.trace",
	};
	check_none("job.%p.trace", bad, N(bad));
}

Test(outname, pid_in_awkward_places)
{
	/* %p alone, at the end, twice, and followed by a digit. */
	check_all("%p", (const struct want[]){ { "123", 123, 0, 0 }, { "123.4", 123, 4, 0 } }, 2);
	check_all("t.%p", (const struct want[]){ { "t.5.snap1", 5, 0, 1 } }, 1);
	check_all("a%pb%p", (const struct want[]){ { "a12b12", 12, 0, 0 } }, 1);
	check_none("a%pb%p", (const char *const[]){ "a12b13", "a12b" }, 2);
	check_all("t%p1", (const struct want[]){ { "t1231", 123, 0, 0 }, { "t11", 1, 0, 0 } }, 2);
	check_none("t%p1", (const char *const[]){ "t1", "t123" }, 2);
	/* %% is a literal '%'. */
	check_all("100%%.%p", (const struct want[]){ { "100%.7", 7, 0, 0 } }, 1);
	check_none("100%%.%p", (const char *const[]){ "100%%.7", "100.7" }, 2);
	check_all("a%%p", (const struct want[]){ { "a%p", 0, 0, 0 }, { "a%p.9", 9, 1, 0 } }, 2);
	/* A pattern the library would refuse matches nothing. */
	check_none("x.%d", (const char *const[]){ "x.%d", "x.5" }, 2);
	check_none("", (const char *const[]){ "", "5" }, 2);
}

Test(outname, split)
{
	char dir[256];
	const char *base;
	cr_assert_eq(tool_outname_split("dir/sub/x.%p", 5, dir, sizeof dir, &base), 0);
	cr_expect_str_eq(dir, "dir/sub");
	cr_expect_str_eq(base, "x.%p");
	cr_assert_eq(tool_outname_split("x.trace", 5, dir, sizeof dir, &base), 0);
	cr_expect_str_eq(dir, ".");
	cr_expect_str_eq(base, "x.trace");
	cr_assert_eq(tool_outname_split("/x", 5, dir, sizeof dir, &base), 0);
	cr_expect_str_eq(dir, "/");
	cr_expect_str_eq(base, "x");
	cr_assert_eq(tool_outname_split("a%%b/x", 5, dir, sizeof dir, &base), 0);
	cr_expect_str_eq(dir, "a%b");
	/* %p in the directory: only the given pid's directory. */
	cr_assert_eq(tool_outname_split("/t/%p/x.trace", 77, dir, sizeof dir, &base), 1);
	cr_expect_str_eq(dir, "/t/77");
	cr_expect_str_eq(base, "x.trace");
	cr_expect_eq(tool_outname_split("dir/", 5, dir, sizeof dir, &base), -1);
	cr_expect_eq(tool_outname_split("longdirectoryname/x", 5, dir, 8, &base), -1);
}
