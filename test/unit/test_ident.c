/* test_ident.c — the process identity in a trace (tools/ident.h), the
 * probe that tells a trace from a file that is none (tools/probe.h), and
 * `gotrace stat` printing the identity. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_heap_fixture.h"
#include "test_run_fixture.h"
#include "tools/ident.h"
#include "tools/probe.h"
#include "tools/stat_acct.h"
#include "tools/stat_report.h"

static int parse(const char *s, struct tool_ident *id)
{
	return tool_ident_parse(s, strlen(s), id);
}

Test(ident, parses_the_library_string)
{
	struct tool_ident id;
	cr_assert_eq(parse("gotrace.process pid=4243 ppid=4242 cmd=/usr/lib/p7zip/7z a out.7z in", &id), 1);
	cr_expect_eq(id.pid, 4243);
	cr_expect_eq(id.ppid, 4242);
	cr_expect_str_eq(id.cmd, "/usr/lib/p7zip/7z a out.7z in");
	cr_expect(!id.cmd_cut);

	/* Escapes stay as written; an empty cmd and a missing one are fine. */
	cr_assert_eq(parse("gotrace.process pid=1 ppid=0 cmd=printf a\\tb\\x01 \\\"q\\\"", &id), 1);
	cr_expect_str_eq(id.cmd, "printf a\\tb\\x01 \\\"q\\\"");
	cr_assert_eq(parse("gotrace.process pid=7 ppid=1 cmd=", &id), 1);
	cr_expect_str_eq(id.cmd, "");
	cr_assert_eq(parse("gotrace.process pid=7 ppid=1", &id), 1);
	cr_expect_str_eq(id.cmd, "");
	/* Fields the parser does not know (the CPU sampling rate) are skipped. */
	cr_assert_eq(parse("gotrace.process pid=9 ppid=8 cpu_hz=100 cmd=./app -x", &id), 1);
	cr_expect_eq(id.pid, 9);
	cr_expect_eq(id.ppid, 8);
	cr_expect_str_eq(id.cmd, "./app -x");
	cr_assert_eq(parse("gotrace.process pid=7", &id), 1);
	cr_expect_eq(id.ppid, -1);
	/* Fields added later are skipped; cmd= takes the rest, '=' and all. */
	cr_assert_eq(parse("gotrace.process pid=9 tid=11 ppid=3 image=2 cmd=env A=1 B=2", &id), 1);
	cr_expect_eq(id.pid, 9);
	cr_expect_eq(id.ppid, 3);
	cr_expect_str_eq(id.cmd, "env A=1 B=2");
}

Test(ident, refuses_other_strings)
{
	static const char *const bad[] = {
		"", "main", "gotrace.process", "gotrace.process ", "gotrace.processpid=1 cmd=x",
		"gotrace.process ppid=3 cmd=x",         /* no pid */
		"gotrace.process pid=abc cmd=x", "gotrace.process pid=0 cmd=x", "gotrace.process pid= cmd=x",
		"gotrace.process pid=12345678901 cmd=x", "gotrace.process pid=1x cmd=x",
		"gotrace.process pid=1  cmd=x",         /* two spaces */
		"gotrace.process pid=1 junk cmd=x",     /* a field without '=' */
		"GOTRACE.PROCESS pid=1 cmd=x", " gotrace.process pid=1 cmd=x",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct tool_ident id;
		cr_expect_eq(parse(bad[i], &id), 0, "\"%s\" parsed", bad[i]);
	}
}

Test(ident, reads_only_len_bytes)
{
	/* Trace strings are not NUL-terminated: the bytes after len are not its. */
	const char buf[] = "gotrace.process pid=42 ppid=1 cmd=abcGARBAGE";
	struct tool_ident id;
	cr_assert_eq(tool_ident_parse(buf, sizeof buf - 1 - 7, &id), 1);
	cr_expect_str_eq(id.cmd, "abc");
	cr_expect_eq(tool_ident_parse(buf, 22, &id), 1, "\"...pid=42\" is complete");
	cr_expect_eq(id.pid, 42);
	cr_expect_eq(tool_ident_parse(buf, 21, &id), 1, "\"...pid=4\" is pid 4");
	cr_expect_eq(id.pid, 4);
	cr_expect_eq(tool_ident_parse(buf, 19, &id), 0, "\"...pid\" has no value");
	/* A NUL byte inside the command does not end it. */
	const char nul[] = "gotrace.process pid=5 cmd=a\0b";
	cr_assert_eq(tool_ident_parse(nul, sizeof nul - 1, &id), 1);
	cr_expect_str_eq(id.cmd, "a?b");
}

Test(ident, long_command_lines_are_cut)
{
	char *s = malloc(4000);
	int n = snprintf(s, 4000, "gotrace.process pid=5 ppid=4 cmd=");
	memset(s + n, 'a', 3000);
	struct tool_ident id;
	cr_assert_eq(tool_ident_parse(s, (size_t)n + 3000, &id), 1);
	cr_expect(id.cmd_cut);
	cr_expect_eq(strlen(id.cmd), TOOL_IDENT_CMD_MAX);
	free(s);
}

static void expect_program(const char *cmd, size_t width, const char *want)
{
	char buf[4 * 64 + 1];
	tool_ident_program(cmd, buf, width);
	cr_expect_str_eq(buf, want, "program(\"%s\", %zu)", cmd, width);
}

Test(ident, program_column)
{
	expect_program("/usr/lib/p7zip/7z a out.7z in", 28, "7z a out.7z in");
	expect_program("/bin/sh /usr/bin/7z a out.7z in", 28, "sh /usr/bin/7z a out.7z in");
	expect_program("python3 -c import sys; print(sys.argv)", 20, "python3 -c import...");
	expect_program("/usr/bin/chromium", 28, "chromium");
	expect_program("./a.out", 5, "a.out");
	expect_program("./a.outx", 5, "a....");
	expect_program("tool/ x", 28, "tool/ x");   /* a word ending in '/' stays */
	expect_program("", 28, "?");
	expect_program(" -x", 28, "? -x");          /* an empty argv[0] */
	expect_program("a\x01\x1b[2Jb", 28, "a??[2Jb"); /* no terminal control */
	/* Characters, not bytes: UTF-8 is counted and never cut in half. */
	expect_program("/opt/\xc3\xa9t\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 7,
		       "\xc3\xa9t\xc3\xa9 ...");
	expect_program("\xc3\xa9t\xc3\xa9", 3, "\xc3\xa9t\xc3\xa9");
}

Test(ident, sanitize)
{
	char buf[64];
	tool_ident_sanitize("abc\ndef", buf, sizeof buf, 10);
	cr_expect_str_eq(buf, "abc?def");
	tool_ident_sanitize("abcdefghijk", buf, sizeof buf, 10);
	cr_expect_str_eq(buf, "abcdefg...");
	tool_ident_sanitize("abcdefghij", buf, sizeof buf, 10);
	cr_expect_str_eq(buf, "abcdefghij");
	tool_ident_sanitize("abcdefghijk", buf, 6, 100); /* the buffer is the limit */
	cr_expect_eq(strlen(buf) < 6, 1);
}

/* ---- the probe ---- */

static uint8_t mem[1 << 20];

static struct tool_probe probe_bytes(const void *bytes, size_t n)
{
	struct tool_probe p;
	FILE *f = tmpfile();
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(bytes, 1, n, f), n);
	rewind(f);
	tool_probe_stream(f, &p);
	fclose(f);
	return p;
}

Test(probe, files_that_are_no_traces)
{
	struct tool_probe p = probe_bytes("", 0);
	cr_expect_eq(p.kind, TOOL_PROBE_EMPTY);
	p = probe_bytes("go 1.23 trace\0\0\0", 16);
	cr_expect_eq(p.kind, TOOL_PROBE_HEADER_ONLY, "%d: %s", p.kind, p.err);
	cr_expect_eq(p.version, 23);
	p = probe_bytes("hello, this is not a trace\n", 27);
	cr_expect_eq(p.kind, TOOL_PROBE_NOT_TRACE);
	cr_expect(strstr(p.err, "not a Go execution trace") != NULL, "%s", p.err);
	p = probe_bytes("go 1.23 tr", 10);
	cr_expect_eq(p.kind, TOOL_PROBE_NOT_TRACE);
	p = probe_bytes("go 1.23 trace\0\0\0\x42", 17);
	cr_expect_eq(p.kind, TOOL_PROBE_MALFORMED, "%d: %s", p.kind, p.err);
	cr_expect_str_eq(tool_probe_kind_word(TOOL_PROBE_HEADER_ONLY), "header only");
	cr_expect_null(tool_probe_kind_why(TOOL_PROBE_TRACE));
	cr_expect_not_null(tool_probe_kind_why(TOOL_PROBE_EMPTY));
}

Test(probe, a_complete_first_generation_is_a_trace)
{
	for (int format = 23; format <= 26; format += 3) {
		size_t len = rx_trace(mem, sizeof mem, format, 2, 4243, 4242, "/usr/lib/p7zip/7z a x.7z", 0);
		struct tool_probe p = probe_bytes(mem, len);
		cr_expect_eq(p.kind, TOOL_PROBE_TRACE, "format %d: %d %s", format, p.kind, p.err);
		cr_expect_eq(p.version, format);
		cr_assert(p.has_ident, "format %d", format);
		cr_expect_eq(p.ident.pid, 4243);
		cr_expect_eq(p.ident.ppid, 4242);
		cr_expect_str_eq(p.ident.cmd, "/usr/lib/p7zip/7z a x.7z");

		/* One generation alone, without an identity (an older library). */
		len = rx_trace(mem, sizeof mem, format, 1, 0, 0, NULL, 0);
		p = probe_bytes(mem, len);
		cr_expect_eq(p.kind, TOOL_PROBE_TRACE, "format %d: %s", format, p.err);
		cr_expect(!p.has_ident);
	}
}

Test(probe, every_cut_of_the_first_generation_is_no_trace)
{
	for (int format = 23; format <= 26; format += 3) {
		size_t one = rx_trace(mem, sizeof mem, format, 1, 7, 1, "prog", 1);
		size_t len = rx_trace(mem, sizeof mem, format, 2, 7, 1, "prog", 1);
		/* Where the batches of generation 1 end: a cut there looks whole in
		 * format 23 (Go's readers accept it too when the sync batch came). */
		FILE *f = fmemopen(mem, len, "rb");
		struct gt_reader *r = malloc(sizeof *r);
		struct gt_rbatch b;
		size_t ends[16], nends = 0;
		cr_assert_eq(gt_reader_init(r, f), 0);
		while (gt_reader_next(r, &b) > 0 && b.gen == 1 && nends < 16)
			ends[nends++] = (size_t)r->off;
		free(r);
		fclose(f);
		for (size_t cut = 17; cut < one; cut++) {
			bool boundary = false;
			for (size_t i = 0; i < nends; i++)
				boundary |= ends[i] == cut;
			struct tool_probe p = probe_bytes(mem, cut);
			if (boundary && format < 26)
				cr_expect_eq(p.kind, TOOL_PROBE_TRACE, "format %d cut %zu: %d %s", format, cut, p.kind, p.err);
			else
				cr_expect_eq(p.kind, TOOL_PROBE_TRUNCATED, "format %d cut %zu: %d %s", format, cut, p.kind, p.err);
		}
		/* A cut in the second generation: the first is whole (in format
		 * 23 once the next batch's generation field is there). */
		for (size_t cut = one + (format < 26 ? 2 : 1); cut < len; cut += 37) {
			struct tool_probe p = probe_bytes(mem, cut);
			cr_expect_eq(p.kind, TOOL_PROBE_TRACE, "format %d cut %zu: %s", format, cut, p.err);
		}
	}
}

Test(probe, a_first_generation_without_sync_is_malformed)
{
	struct hx t;
	hx_begin(&t, mem, sizeof mem, GT_FORMAT_23);
	const char *s[] = { "main" };
	hx_strings(&t, 1, 1, s, 1);
	hx_sync(&t, 2, 2000);
	struct tool_probe p = probe_bytes(mem, t.len);
	cr_expect_eq(p.kind, TOOL_PROBE_MALFORMED, "%d %s", p.kind, p.err);
	cr_expect(strstr(p.err, "frequency") != NULL, "%s", p.err);
}

Test(probe, unreadable_file)
{
	struct tool_probe p;
	tool_probe_file("/nonexistent/dir/x.trace", &p);
	cr_expect_eq(p.kind, TOOL_PROBE_UNREADABLE);
	cr_expect(strstr(p.err, "No such file") != NULL, "%s", p.err);
}

/* ---- gotrace stat shows who wrote the trace ---- */

/* stat_text reads a trace with gotrace stat's accounting and returns its
 * text summary or JSON object. */
static char *stat_text(const void *bytes, size_t n, bool json)
{
	struct tool_stat *s = malloc(sizeof *s);
	FILE *f = fmemopen((void *)bytes, n, "rb");
	cr_assert_eq(tool_stat_init(s), 0);
	cr_assert_eq(tool_stat_read(s, f), 0, "%s", s->err);
	fclose(f);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (json)
		cr_assert_eq(tool_stat_json(out, s, "t.trace", 5, NULL), 0);
	else
		cr_assert_eq(tool_stat_report(out, s, "t.trace", 5), 0);
	fclose(out);
	tool_stat_free(s);
	free(s);
	return text;
}

Test(stat_ident, the_report_names_the_process)
{
	size_t len = rx_trace(mem, sizeof mem, GT_FORMAT_23, 2, 4243, 4242, "/usr/lib/p7zip/7z a \\\"x y\\\".7z", 0);
	char *text = stat_text(mem, len, false);
	const char *want = "gotrace stat: t.trace\n  process 4243 (parent 4242): "
			   "/usr/lib/p7zip/7z a \\\"x y\\\".7z\n  go 1.23 trace: 2 generations";
	cr_expect(strncmp(text, want, strlen(want)) == 0, "%s", text);
	free(text);
	text = stat_text(mem, len, true);
	cr_expect(strstr(text, "\"process\": {\"pid\": 4243, \"ppid\": 4242, \"cmd\": "
			       "\"/usr/lib/p7zip/7z a \\\\\\\"x y\\\\\\\".7z\"},") != NULL, "%s", text);
	free(text);

	/* Without an identity: no process line, "process": null. */
	len = rx_trace(mem, sizeof mem, GT_FORMAT_26, 1, 0, 0, NULL, 0);
	text = stat_text(mem, len, false);
	cr_expect(strstr(text, "process") == NULL, "%s", text);
	free(text);
	text = stat_text(mem, len, true);
	cr_expect(strstr(text, "\"process\": null,") != NULL, "%s", text);
	free(text);
}

Test(stat_ident, a_long_command_line_is_cut_in_text)
{
	char cmd[900];
	memset(cmd, 'c', sizeof cmd - 1);
	cmd[sizeof cmd - 1] = '\0';
	size_t len = rx_trace(mem, sizeof mem, GT_FORMAT_23, 1, 5, 1, cmd, 0);
	char *text = stat_text(mem, len, false);
	const char *line = strstr(text, "  process 5 (parent 1): ");
	cr_assert_not_null(line, "%s", text);
	size_t n = strcspn(line, "\n");
	cr_expect_eq(n, strlen("  process 5 (parent 1): ") + 200, "%zu", n);
	cr_expect(strncmp(line + n - 3, "...", 3) == 0);
	free(text);
}
