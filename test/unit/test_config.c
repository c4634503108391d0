/* test_config.c — GOTRACE_* option parsing: defaults, valid and invalid forms, %p expansion. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/config.h"

/* A fake environment: up to 8 NAME=VALUE pairs set by each test (each
 * Criterion test runs in its own process, so statics are per test). */
static const char *env_names[8], *env_values[8];
static int env_count;

static void env_set(const char *name, const char *value)
{
	env_names[env_count] = name;
	env_values[env_count] = value;
	env_count++;
}

static char *env_lookup(const char *name)
{
	for (int i = 0; i < env_count; i++)
		if (strcmp(env_names[i], name) == 0)
			return (char *)env_values[i];
	return NULL;
}

static int warn_count;
static char warn_last[GT_CONFIG_LINE_MAX];

static void warn_record(const char *line, void *arg)
{
	int *calls = arg;
	(*calls)++;
	warn_count++;
	strncpy(warn_last, line, sizeof warn_last - 1);
}

/* load_one loads a config with one variable set and returns the warnings. */
static int load_one(struct gt_config *c, const char *name, const char *value)
{
	int calls = 0;
	env_count = 0;
	warn_count = 0;
	warn_last[0] = '\0';
	if (name)
		env_set(name, value);
	int bad = gt_config_load(c, env_lookup, warn_record, &calls);
	cr_assert_eq(bad, calls, "return value %d vs %d warn calls", bad, calls);
	return calls;
}

static void assert_defaults(const struct gt_config *c)
{
	cr_assert_str_eq(c->out, "gotrace.%p.trace");
	cr_assert_eq(c->stacks, 32);
	cr_assert_eq(c->period_ns, 1000000000ull);
	cr_assert_eq(c->format, 23);
	cr_assert_eq(c->malloc_events, true);
	cr_assert_eq(c->malloc_sample, 2048);
	cr_assert_eq(c->flight_ns, 0);
	cr_assert_eq(c->flight_bytes, 0);
	cr_assert_eq(c->flight_signal, 12);
	cr_assert_eq(c->buffer_bytes, 64ull << 20);
	cr_assert_eq(c->clock_monotonic, false);
	cr_assert_eq(c->deadlock_ns, 10000000000ull);
	cr_assert_eq(c->deadlock_abort, false);
	cr_assert_eq(c->cpu_period_ns, 10000000ull);
}

Test(config, defaults)
{
	struct gt_config c;
	gt_config_defaults(&c);
	assert_defaults(&c);
	cr_assert_eq(load_one(&c, NULL, NULL), 0);
	assert_defaults(&c);
}

Test(config, table_describes_every_option)
{
	struct gt_config c;
	for (int i = 0; i < GT_OPT_COUNT; i++) {
		const struct gt_option_desc *d = &gt_config_options[i];
		cr_assert_not_null(d->name, "option %d", i);
		cr_assert_eq(strncmp(d->name, "GOTRACE_", 8), 0, "%s", d->name);
		cr_assert_not_null(d->help, "%s", d->name);
		cr_assert_not_null(d->expect, "%s", d->name);
		cr_assert_eq(gt_config_set(&c, (enum gt_opt)i, d->def), 0,
			     "default of %s does not parse", d->name);
	}
}

Test(config, empty_value_is_unset)
{
	struct gt_config c;
	for (int i = 0; i < GT_OPT_COUNT; i++) {
		cr_assert_eq(load_one(&c, gt_config_options[i].name, ""), 0);
		assert_defaults(&c);
	}
}

Test(config, out_valid)
{
	struct gt_config c;
	const char *ok[] = { "app.trace", "/tmp/x.%p.trace", "100%%.trace", "%p", "a b/%p-%p" };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cr_assert_eq(load_one(&c, "GOTRACE_OUT", ok[i]), 0, "%s", ok[i]);
		cr_assert_str_eq(c.out, ok[i]);
	}
}

Test(config, stacks_valid)
{
	struct gt_config c;
	cr_assert_eq(load_one(&c, "GOTRACE_STACKS", "0"), 0);
	cr_assert_eq(c.stacks, 0);
	cr_assert_eq(load_one(&c, "GOTRACE_STACKS", "128"), 0);
	cr_assert_eq(c.stacks, 128);
	cr_assert_eq(load_one(&c, "GOTRACE_STACKS", "007"), 0);
	cr_assert_eq(c.stacks, 7);
}

Test(config, period_valid)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {
		{ "1s", 1000000000ull },
		{ "250ms", 250000000ull },
		{ "1500us", 1500000ull },
		{ "10ms", 10000000ull },
		{ "2m", 120000000000ull },
		{ "2", 2000000000ull },
		{ "0.5", 500000000ull },
		{ "1.5s", 1500000000ull },
		{ "1m30s", 90000000000ull },
		{ "1ms", 1000000ull },
		{ "1000000ns", 1000000ull },
		{ "1h", 3600000000000ull },
		{ "2000\xc2\xb5s", 2000000ull },
		{ ".25s", 250000000ull },
	};
	struct gt_config c;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		const char *s = ok[i].s;
		cr_assert_eq(load_one(&c, "GOTRACE_PERIOD", s), 0, "%s: %s", s, warn_last);
		cr_assert_eq(c.period_ns, ok[i].ns, "%s gave %llu", s,
			     (unsigned long long)c.period_ns);
	}
}

Test(config, format_and_malloc_valid)
{
	struct gt_config c;
	cr_assert_eq(load_one(&c, "GOTRACE_FORMAT", "26"), 0);
	cr_assert_eq(c.format, 26);
	cr_assert_eq(load_one(&c, "GOTRACE_FORMAT", "23"), 0);
	cr_assert_eq(c.format, 23);
	static const struct {
		const char *s;
		bool events;
		uint64_t sample;
	} ok[] = {
		{ "0", false, 0 },        { "off", false, 0 },          { "1", true, 0 },
		{ "all", true, 0 },       { "sample", true, 2048 },     { "64KB", true, 64 << 10 },
		{ "1MB", true, 1 << 20 }, { "128", true, 128 },         { "4k", true, 4096 },
		{ "1GB", true, 1 << 30 }, { "0.5MiB", true, 512 << 10 },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cr_assert_eq(load_one(&c, "GOTRACE_MALLOC", ok[i].s), 0, "%s: %s", ok[i].s, warn_last);
		cr_assert_eq(c.malloc_events, ok[i].events, "%s", ok[i].s);
		cr_assert_eq(c.malloc_sample, ok[i].sample, "%s gave %llu", ok[i].s,
			     (unsigned long long)c.malloc_sample);
	}
}

/* Every bad form: exactly one line, naming the variable and the value, the
 * default in force afterwards. */
Test(config, flight_valid)
{
	static const struct {
		const char *s;
		uint64_t ns, bytes;
	} ok[] = {
		{ "10s", 10000000000ull, 256ull << 20 },
		{ "2", 2000000000ull, 256ull << 20 },
		{ "1m30s", 90000000000ull, 256ull << 20 },
		{ "64MB", 0, 64ull << 20 },
		{ "1.5GiB", 0, 3ull << 29 },
		{ "512M", 0, 512ull << 20 },
		{ "30s,100MB", 30000000000ull, 100ull << 20 },
		{ "8MiB,500ms", 500000000ull, 8ull << 20 },
		{ "0", 0, 0 },
	};
	struct gt_config c;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cr_assert_eq(load_one(&c, "GOTRACE_FLIGHT", ok[i].s), 0, "%s: %s", ok[i].s, warn_last);
		cr_assert_eq(c.flight_ns, ok[i].ns, "%s", ok[i].s);
		cr_assert_eq(c.flight_bytes, ok[i].bytes, "%s", ok[i].s);
	}
	const char *bad[] = { "x", "10x", "10s,", ",10s", "10s,20s", "1MB,2MB", "100KB", "65GB", "10q",
			      "-1s", "10s,,1MB", "0s" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(load_one(&c, "GOTRACE_FLIGHT", bad[i]), 1, "%s accepted", bad[i]);
		cr_assert_eq(c.flight_bytes, 0, "%s", bad[i]);
	}
}

Test(config, flight_signal_and_buffer_valid)
{
	static const struct {
		const char *s;
		int sig;
	} ok[] = { { "USR1", 10 },     { "SIGUSR2", 12 },    { "usr2", 12 },     { "RTMIN+3", 37 },
		   { "SIGRTMIN+0", 34 }, { "RTMIN", 34 },      { "RTMAX", 64 },    { "RTMAX-2", 62 },
		   { "sigrtmax-30", 34 }, { "RTMIN+30", 64 },  { "10", 10 },       { "12", 12 },
		   { "34", 34 },         { "64", 64 },         { "none", 0 },      { "NONE", 0 } };
	struct gt_config c;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cr_assert_eq(load_one(&c, "GOTRACE_FLIGHT_SIGNAL", ok[i].s), 0, "%s", ok[i].s);
		cr_assert_eq(c.flight_signal, ok[i].sig, "%s", ok[i].s);
	}
	/* Signals the kernel sends on its own, uncatchable ones, glibc's own
	 * (32, 33) and malformed names are refused. */
	const char *bad[] = { "KILL", "9", "SEGV", "11", "19", "65", "PIPE", "SIGPIPE", "13", "ALRM", "14",
			      "TERM", "15", "HUP", "INT", "WINCH", "28", "CHLD", "0", "1", "32", "33",
			      "RTMIN+31", "RTMIN-1", "RTMAX+1", "RTMIN+", "RTMAX-", "USR3", "SIG", "010x" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(load_one(&c, "GOTRACE_FLIGHT_SIGNAL", bad[i]), 1, "%s accepted", bad[i]);
		cr_assert_eq(c.flight_signal, 12, "%s", bad[i]);
	}
	cr_assert_eq(load_one(&c, "GOTRACE_FLIGHT_SIGNAL", "PIPE"), 1);
	cr_assert_str_eq(warn_last, "gotrace: GOTRACE_FLIGHT_SIGNAL=\"PIPE\" is not USR1, USR2, RTMIN+N or RTMAX-N "
				    "(N from 0 to 30), their number (10, 12, 34 to 64), or none; using USR2\n");
	cr_assert_eq(load_one(&c, "GOTRACE_BUFFER", "4MB"), 0);
	cr_assert_eq(c.buffer_bytes, 4ull << 20);
	cr_assert_eq(load_one(&c, "GOTRACE_BUFFER", "1048576"), 0);
	cr_assert_eq(c.buffer_bytes, 1ull << 20);
	cr_assert_eq(load_one(&c, "GOTRACE_BUFFER", "1000"), 1);
	cr_assert_eq(c.buffer_bytes, 64ull << 20);
	cr_assert_str_eq(warn_last, "gotrace: GOTRACE_BUFFER=\"1000\" is not a size from 1MB to 64GB such as 64MB; using 64MB\n");
}

Test(config, deadlock)
{
	struct gt_config c;
	cr_assert_eq(load_one(&c, "GOTRACE_DEADLOCK", "0"), 0);
	cr_assert_eq(c.deadlock_ns, 0);
	cr_assert_eq(load_one(&c, "GOTRACE_DEADLOCK", "off"), 0);
	cr_assert_eq(c.deadlock_ns, 0);
	cr_assert_eq(load_one(&c, "GOTRACE_DEADLOCK", "250ms"), 0);
	cr_assert_eq(c.deadlock_ns, 250000000ull);
	cr_assert_eq(c.deadlock_abort, false);
	cr_assert_eq(load_one(&c, "GOTRACE_DEADLOCK", "1m30s,abort"), 0);
	cr_assert_eq(c.deadlock_ns, 90000000000ull);
	cr_assert_eq(c.deadlock_abort, true);
	cr_assert_eq(load_one(&c, "GOTRACE_DEADLOCK", "2"), 0);
	cr_assert_eq(c.deadlock_ns, 2000000000ull);
	const char *bad[] = { "abc", "1s,", ",abort", "1s,stop", "500us", "2h", "0,abort", "1s,abort,abort" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(load_one(&c, "GOTRACE_DEADLOCK", bad[i]), 1, "%s accepted", bad[i]);
		cr_assert_eq(c.deadlock_ns, 10000000000ull, "%s", bad[i]);
		cr_assert_eq(c.deadlock_abort, false, "%s", bad[i]);
	}
}

Test(config, cpu)
{
	struct gt_config c;
	cr_assert_eq(load_one(&c, "GOTRACE_CPU", "0"), 0);
	cr_assert_eq(c.cpu_period_ns, 0);
	cr_assert_eq(load_one(&c, "GOTRACE_CPU", "off"), 0);
	cr_assert_eq(c.cpu_period_ns, 0);
	cr_assert_eq(load_one(&c, "GOTRACE_CPU", "250"), 0);
	cr_assert_eq(c.cpu_period_ns, 4000000ull);
	cr_assert_eq(load_one(&c, "GOTRACE_CPU", "100Hz"), 0);
	cr_assert_eq(c.cpu_period_ns, 10000000ull);
	cr_assert_eq(load_one(&c, "GOTRACE_CPU", "1kHz"), 0);
	cr_assert_eq(c.cpu_period_ns, 1000000ull);
	cr_assert_eq(load_one(&c, "GOTRACE_CPU", "4ms"), 0);
	cr_assert_eq(c.cpu_period_ns, 4000000ull);
	cr_assert_eq(load_one(&c, "GOTRACE_CPU", "1s"), 0);
	cr_assert_eq(c.cpu_period_ns, 1000000000ull);
	const char *bad[] = { "abc", "Hz", "0Hz", "20kHz", "50us", "2s", "-5", "100 Hz", "1e3" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cr_assert_eq(load_one(&c, "GOTRACE_CPU", bad[i]), 1, "%s accepted", bad[i]);
		cr_assert_eq(c.cpu_period_ns, 10000000ull, "%s", bad[i]);
	}
}

Test(config, clock)
{
	struct gt_config c;
	cr_assert_eq(load_one(&c, "GOTRACE_CLOCK", "monotonic"), 0);
	cr_assert_eq(c.clock_monotonic, true);
	cr_assert_eq(load_one(&c, "GOTRACE_CLOCK", "auto"), 0);
	cr_assert_eq(c.clock_monotonic, false);
	cr_assert_eq(load_one(&c, "GOTRACE_CLOCK", "garbage"), 1);
	cr_assert_eq(c.clock_monotonic, false);
	cr_assert_str_eq(warn_last, "gotrace: GOTRACE_CLOCK=\"garbage\" is not auto or monotonic; using auto\n");
}

Test(config, invalid_values_warn_once_and_keep_default)
{
	static const struct {
		const char *name, *value;
	} bad[] = {
		{ "GOTRACE_OUT", "x.%d.trace" },
		{ "GOTRACE_OUT", "trailing%" },
		{ "GOTRACE_STACKS", "abc" },
		{ "GOTRACE_STACKS", "129" },
		{ "GOTRACE_STACKS", "-1" },
		{ "GOTRACE_STACKS", " 8" },
		{ "GOTRACE_STACKS", "8 " },
		{ "GOTRACE_STACKS", "99999999999999999999999" },
		{ "GOTRACE_PERIOD", "abc" },
		{ "GOTRACE_PERIOD", "500us" }, /* a valid form, below the 1ms minimum */
		{ "GOTRACE_PERIOD", "0" },
		{ "GOTRACE_PERIOD", "-1s" },
		{ "GOTRACE_PERIOD", "1x" },
		{ "GOTRACE_PERIOD", "1s2" },
		{ "GOTRACE_PERIOD", "2h" },
		{ "GOTRACE_PERIOD", "s" },
		{ "GOTRACE_PERIOD", "." },
		{ "GOTRACE_PERIOD", "99999999999999999999999h" },
		{ "GOTRACE_FORMAT", "24" },
		{ "GOTRACE_FORMAT", "go1.23" },
		{ "GOTRACE_MALLOC", "yes" },
		{ "GOTRACE_MALLOC", "2" },
		{ "GOTRACE_MALLOC", "127" },  /* below the smallest mean */
		{ "GOTRACE_MALLOC", "2GB" },  /* above the largest */
		{ "GOTRACE_MALLOC", "Sample" },
		{ "GOTRACE_MALLOC", "-64KB" },
		{ "GOTRACE_FLIGHT_SIGNAL", "PIPE" },
		{ "GOTRACE_FLIGHT_SIGNAL", "0" },
		{ "GOTRACE_CLOCK", "tsc" },
		{ "GOTRACE_CLOCK", "Monotonic" },
	};
	struct gt_config c;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *name = bad[i].name, *value = bad[i].value;
		cr_assert_eq(load_one(&c, name, value), 1, "%s=%s", name, value);
		assert_defaults(&c);
		cr_assert_eq(strncmp(warn_last, "gotrace: ", 9), 0, "%s", warn_last);
		cr_assert_not_null(strstr(warn_last, name), "%s", warn_last);
		cr_assert_not_null(strstr(warn_last, value), "%s", warn_last);
		cr_assert_not_null(strstr(warn_last, "; using "), "%s", warn_last);
		size_t n = strlen(warn_last);
		cr_assert(n > 0 && warn_last[n - 1] == '\n', "no newline: %s", warn_last);
		cr_assert_eq(strchr(warn_last, '\n'), warn_last + n - 1, "not one line: %s", warn_last);
	}
}

Test(config, warning_text_is_exact)
{
	struct gt_config c;
	load_one(&c, "GOTRACE_STACKS", "abc");
	cr_assert_str_eq(warn_last,
			 "gotrace: GOTRACE_STACKS=\"abc\" is not a number from 0 to 128; using 32\n");
}

Test(config, several_bad_values_warn_once_each)
{
	struct gt_config c;
	int calls = 0;
	env_count = 0;
	env_set("GOTRACE_STACKS", "many");
	env_set("GOTRACE_FORMAT", "99");
	env_set("GOTRACE_PERIOD", "250ms");
	cr_assert_eq(gt_config_load(&c, env_lookup, warn_record, &calls), 2);
	cr_assert_eq(calls, 2);
	cr_assert_eq(c.stacks, 32);
	cr_assert_eq(c.format, 23);
	cr_assert_eq(c.period_ns, 250000000ull);
}

Test(config, null_warn_is_allowed)
{
	struct gt_config c;
	env_count = 0;
	env_set("GOTRACE_MALLOC", "maybe");
	cr_assert_eq(gt_config_load(&c, env_lookup, NULL, NULL), 1);
	cr_assert_eq(c.malloc_events, true);
}

Test(config, set_rejects_without_change)
{
	struct gt_config c;
	gt_config_defaults(&c);
	cr_assert_eq(gt_config_set(&c, GT_OPT_STACKS, "12"), 0);
	cr_assert_eq(gt_config_set(&c, GT_OPT_STACKS, "x"), -1);
	cr_assert_eq(gt_config_set(&c, GT_OPT_STACKS, ""), -1);
	cr_assert_eq(c.stacks, 12);
	cr_assert_eq(gt_config_set(&c, GT_OPT_COUNT, "1"), -1);
}

Test(config, long_value_is_cut_in_the_warning)
{
	char value[300];
	memset(value, '7', sizeof value - 1);
	value[sizeof value - 1] = '\0';
	struct gt_config c;
	cr_assert_eq(load_one(&c, "GOTRACE_STACKS", value), 1);
	cr_assert_not_null(strstr(warn_last, "...\""), "%s", warn_last);
	cr_assert(strlen(warn_last) < 200, "%s", warn_last);
}

Test(config, quote_escapes)
{
	char q[96];
	gt_config_quote("a\"b\\c\n", q, sizeof q);
	cr_assert_str_eq(q, "\"a\\\"b\\\\c\\x0a\"");
}

Test(config, expand_pid)
{
	char buf[64];
	cr_assert_eq(gt_config_expand_out("gotrace.%p.trace", 4242, buf, sizeof buf), 0);
	cr_assert_str_eq(buf, "gotrace.4242.trace");
	cr_assert_eq(gt_config_expand_out("%p-%p", 7, buf, sizeof buf), 0);
	cr_assert_str_eq(buf, "7-7");
	cr_assert_eq(gt_config_expand_out("100%%_%p", 1, buf, sizeof buf), 0);
	cr_assert_str_eq(buf, "100%_1");
	cr_assert_eq(gt_config_expand_out("plain", 1, buf, sizeof buf), 0);
	cr_assert_str_eq(buf, "plain");
	cr_assert_eq(gt_config_expand_out("bad%x", 1, buf, sizeof buf), -1);
	cr_assert_str_eq(buf, "");
}

Test(config, expand_buffer_too_small)
{
	char buf[16];
	/* "x.12345.trace" is 13 bytes + NUL = 14: fits exactly in 14. */
	cr_assert_eq(gt_config_expand_out("x.%p.trace", 12345, buf, 14), 0);
	cr_assert_str_eq(buf, "x.12345.trace");
	cr_assert_eq(gt_config_expand_out("x.%p.trace", 12345, buf, 13), -1);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(gt_config_expand_out("x.%p", 123456, buf, 8), -1);
	cr_assert_eq(gt_config_expand_out("x", 1, buf, 0), -1);
	cr_assert_eq(gt_config_expand_out("", 1, buf, 1), 0);
	cr_assert_str_eq(buf, "");
}
