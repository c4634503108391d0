/* config.c — parses and validates the GOTRACE_* options from one descriptor table.
 *
 * Everything here is plain string work on the caller's memory (no snprintf,
 * no locale, no malloc), so the library can run it in its constructor. */
#include "core/config.h"

#include <string.h>

/* ---- small string builder that never overflows ---- */

struct line {
	char *buf;
	size_t len, cap; /* cap includes the NUL; buf holds "" to start with */
	bool cut;        /* a character did not fit */
};

static void line_putc(struct line *l, char ch)
{
	if (l->len + 1 < l->cap) {
		l->buf[l->len++] = ch;
		l->buf[l->len] = '\0';
	} else {
		l->cut = true;
	}
}

static void line_puts(struct line *l, const char *s)
{
	while (*s)
		line_putc(l, *s++);
}

/* ---- parsers: each returns 0, or -1 and leaves c untouched ---- */

/* parse_uint reads a plain decimal number (digits only) no larger than max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

static int parse_out(struct gt_config *c, const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof c->out)
		return -1;
	for (const char *p = s; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] != 'p' && p[1] != '%')
			return -1;
		p++;
	}
	memcpy(c->out, s, n + 1);
	return 0;
}

static int parse_stacks(struct gt_config *c, const char *s)
{
	uint64_t v;
	if (parse_uint(s, GT_CONFIG_STACKS_MAX, &v) < 0)
		return -1;
	c->stacks = (uint32_t)v;
	return 0;
}

/* unit_ns maps a duration unit spelled like Go's time.ParseDuration to ns. */
static uint64_t unit_ns(const char *u, size_t n)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "\xc2\xb5s", 1000 }, /* U+00B5 micro sign */
		{ "\xce\xbcs", 1000 }, /* U+03BC Greek mu */
		{ "ms", 1000000 },
		{ "s", 1000000000ull },
		{ "m", 60000000000ull },
		{ "h", 3600000000000ull },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0)
			return units[i].ns;
	return 0;
}

/* parse_decimal reads "12", "12.5", ".5" or "12." at *sp and advances it.
 * The fraction keeps up to 18 digits; more are read and ignored. */
static int parse_decimal(const char **sp, uint64_t *whole, uint64_t *frac, uint64_t *scale)
{
	const char *s = *sp;
	int digits = 0;
	*whole = 0;
	*frac = 0;
	*scale = 1;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (*whole > (UINT64_MAX - 9) / 10)
			return -1;
		*whole = *whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (*scale < 1000000000000000000ull) {
				*frac = *frac * 10 + (uint64_t)(*s - '0');
				*scale *= 10;
			}
		}
	}
	if (digits == 0)
		return -1;
	*sp = s;
	return 0;
}

/* parse_duration accepts Go durations ("1s", "250ms", "1m30s", "1.5s") and a
 * plain number of seconds ("2", "0.5"), between min_ns and max_ns. */
static int parse_duration(const char *s, uint64_t min_ns, uint64_t max_ns, uint64_t *out)
{
	uint64_t total = 0;
	int terms = 0;

	if (*s == '\0')
		return -1;
	while (*s) {
		uint64_t whole, frac, scale, unit;
		if (parse_decimal(&s, &whole, &frac, &scale) < 0)
			return -1;
		const char *u = s;
		while (*s && *s != '.' && (*s < '0' || *s > '9'))
			s++;
		if (s == u) {
			/* A bare number is seconds, but only as the whole value. */
			if (terms > 0 || *s != '\0')
				return -1;
			unit = 1000000000ull;
		} else if ((unit = unit_ns(u, (size_t)(s - u))) == 0) {
			return -1;
		}
		if (whole > max_ns / unit)
			return -1;
		uint64_t term = whole * unit;
		/* frac/scale < 1, so this part is below one unit (<= 1h in ns). */
		term += (uint64_t)((long double)frac * (long double)unit / (long double)scale + 0.5L);
		total += term;
		if (total > max_ns)
			return -1;
		terms++;
	}
	if (total < min_ns)
		return -1;
	*out = total;
	return 0;
}

static int parse_period(struct gt_config *c, const char *s)
{
	return parse_duration(s, GT_CONFIG_PERIOD_MIN_NS, GT_CONFIG_PERIOD_MAX_NS, &c->period_ns);
}

/* parse_size accepts "64MB", "512k", "1.5GiB", "4096" (bytes): units are
 * binary whatever their spelling (k = K = KB = KiB = 1024), between min and
 * max bytes. */
static int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	static const struct {
		const char *name;
		uint64_t bytes;
	} units[] = {
		{ "", 1 }, { "B", 1 },
		{ "k", 1ull << 10 }, { "K", 1ull << 10 }, { "KB", 1ull << 10 }, { "KiB", 1ull << 10 },
		{ "M", 1ull << 20 }, { "MB", 1ull << 20 }, { "MiB", 1ull << 20 },
		{ "G", 1ull << 30 }, { "GB", 1ull << 30 }, { "GiB", 1ull << 30 },
	};
	uint64_t whole, frac, scale;
	if (parse_decimal(&s, &whole, &frac, &scale) < 0)
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(s, units[i].name) != 0)
			continue;
		uint64_t u = units[i].bytes;
		if (whole > max / u)
			return -1;
		uint64_t v = whole * u + (uint64_t)((long double)frac * (long double)u / (long double)scale);
		if (v < min || v > max)
			return -1;
		*out = v;
		return 0;
	}
	return -1;
}

/* parse_flight: "0" (off), a window ("10s", "2m", plain seconds), a size
 * ("64MB"), or both separated by a comma ("30s,256MB"). A window alone
 * keeps at most GT_CONFIG_FLIGHT_DEFAULT_BYTES. */
static int parse_flight(struct gt_config *c, const char *s)
{
	if (strcmp(s, "0") == 0) {
		c->flight_ns = 0;
		c->flight_bytes = 0;
		return 0;
	}
	uint64_t ns = 0, bytes = 0;
	char part[64];
	while (*s) {
		size_t n = strcspn(s, ",");
		if (n == 0 || n >= sizeof part)
			return -1;
		memcpy(part, s, n);
		part[n] = '\0';
		s += n;
		if (*s == ',' && *++s == '\0')
			return -1;
		uint64_t v;
		if (parse_duration(part, GT_CONFIG_PERIOD_MIN_NS, GT_CONFIG_PERIOD_MAX_NS, &v) == 0) {
			if (ns)
				return -1;
			ns = v;
		} else if (parse_size(part, GT_CONFIG_FLIGHT_MIN_BYTES, GT_CONFIG_FLIGHT_MAX_BYTES, &v) == 0) {
			if (bytes)
				return -1;
			bytes = v;
		} else {
			return -1;
		}
	}
	if (!ns && !bytes)
		return -1;
	c->flight_ns = ns;
	c->flight_bytes = bytes ? bytes : GT_CONFIG_FLIGHT_DEFAULT_BYTES;
	return 0;
}

/* ascii_eq compares two strings ignoring ASCII case (no locale). */
static int ascii_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'a' && *a <= 'z' ? (char)(*a - 32) : *a;
		char y = *b >= 'a' && *b <= 'z' ? (char)(*b - 32) : *b;
		if (x != y)
			return 0;
	}
	return *a == *b;
}

static int ascii_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	char head[16];
	if (n >= sizeof head || strlen(s) < n)
		return 0;
	memcpy(head, s, n);
	head[n] = '\0';
	return ascii_eq(head, prefix);
}

/* parse_signal: the flight recorder's snapshot signal. Only signals the
 * kernel never sends on its own: USR1, USR2 and the real-time signals
 * (RTMIN+N, RTMAX-N as glibc numbers them: 34 to 64), with or without SIG,
 * in any case, or their numbers; "none" for no snapshot signal. A signal
 * the kernel sends (PIPE, ALRM, CHLD, ...) would change what the program
 * sees when it comes: it would no longer end the program, or no longer be
 * ignored. */
static int parse_signal(struct gt_config *c, const char *s)
{
	uint64_t v;
	if (ascii_eq(s, "none")) {
		c->flight_signal = 0;
		return 0;
	}
	if (ascii_prefix(s, "SIG"))
		s += 3;
	if (ascii_eq(s, "USR1") || ascii_eq(s, "USR2")) {
		c->flight_signal = s[3] == '1' ? 10 : 12;
		return 0;
	}
	if (ascii_prefix(s, "RTMIN") || ascii_prefix(s, "RTMAX")) {
		int max = s[3] == 'a' || s[3] == 'A';
		const char *n = s + 5;
		v = 0;
		if (*n != '\0') {
			if (*n != (max ? '-' : '+') || parse_uint(n + 1, 30, &v) < 0)
				return -1;
		}
		c->flight_signal = max ? 64 - (int)v : 34 + (int)v; /* glibc's SIGRTMIN is 34 */
		return 0;
	}
	if (parse_uint(s, 64, &v) < 0 || (v != 10 && v != 12 && v < 34))
		return -1;
	c->flight_signal = (int)v;
	return 0;
}

static int parse_clock(struct gt_config *c, const char *s)
{
	if (strcmp(s, "auto") == 0)
		c->clock_monotonic = false;
	else if (strcmp(s, "monotonic") == 0)
		c->clock_monotonic = true;
	else
		return -1;
	return 0;
}

static int parse_buffer(struct gt_config *c, const char *s)
{
	return parse_size(s, GT_CONFIG_BUFFER_MIN_BYTES, GT_CONFIG_BUFFER_MAX_BYTES, &c->buffer_bytes);
}

static int parse_format(struct gt_config *c, const char *s)
{
	if (strcmp(s, "23") == 0)
		c->format = 23;
	else if (strcmp(s, "26") == 0)
		c->format = 26;
	else
		return -1;
	return 0;
}

/* parse_malloc: 0/off, 1/all, sample (the default mean) or a mean size
 * ("64KB"; GT_CONFIG_MALLOC_MIN_BYTES to _MAX_BYTES). */
static int parse_malloc(struct gt_config *c, const char *s)
{
	uint64_t mean;
	if (strcmp(s, "0") == 0 || strcmp(s, "off") == 0) {
		c->malloc_events = false;
		c->malloc_sample = 0;
		return 0;
	}
	if (strcmp(s, "1") == 0 || strcmp(s, "all") == 0) {
		c->malloc_events = true;
		c->malloc_sample = 0;
		return 0;
	}
	if (strcmp(s, "sample") == 0)
		mean = GT_CONFIG_MALLOC_DEFAULT_BYTES;
	else if (parse_size(s, GT_CONFIG_MALLOC_MIN_BYTES, GT_CONFIG_MALLOC_MAX_BYTES, &mean) < 0)
		return -1;
	c->malloc_events = true;
	c->malloc_sample = mean;
	return 0;
}

/* parse_deadlock: 0/off, or a duration (the deadlock detector's threshold,
 * core/deadlock.h) optionally followed by ",abort" (abort with a core dump
 * once the report is printed and the trace written). */
static int parse_deadlock(struct gt_config *c, const char *s)
{
	if (strcmp(s, "0") == 0 || strcmp(s, "off") == 0) {
		c->deadlock_ns = 0;
		c->deadlock_abort = false;
		return 0;
	}
	char buf[64];
	size_t n = strlen(s);
	bool abort_after = false;
	const char *comma = strchr(s, ',');
	if (comma) {
		if (strcmp(comma + 1, "abort") != 0)
			return -1;
		abort_after = true;
		n = (size_t)(comma - s);
	}
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	uint64_t ns;
	if (parse_duration(buf, GT_CONFIG_DEADLOCK_MIN_NS, GT_CONFIG_DEADLOCK_MAX_NS, &ns) < 0)
		return -1;
	c->deadlock_ns = ns;
	c->deadlock_abort = abort_after;
	return 0;
}

/* parse_cpu: 0/off, a rate ("100", "100Hz", "1kHz": samples per second
 * of a thread's CPU time) or the CPU time between samples ("10ms"). */
static int parse_cpu(struct gt_config *c, const char *s)
{
	if (strcmp(s, "0") == 0 || strcmp(s, "off") == 0) {
		c->cpu_period_ns = 0;
		return 0;
	}
	size_t n = strlen(s);
	uint64_t mult = 1;
	if (n > 3 && (strcmp(s + n - 3, "kHz") == 0 || strcmp(s + n - 3, "khz") == 0)) {
		mult = 1000;
		n -= 3;
	} else if (n > 2 && (strcmp(s + n - 2, "Hz") == 0 || strcmp(s + n - 2, "hz") == 0)) {
		n -= 2;
	} else {
		size_t i = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i != n) { /* not a plain number: a duration */
			uint64_t ns;
			if (parse_duration(s, GT_CONFIG_CPU_MIN_NS, GT_CONFIG_CPU_MAX_NS, &ns) < 0)
				return -1;
			c->cpu_period_ns = ns;
			return 0;
		}
	}
	if (n == 0 || n > 9)
		return -1;
	uint64_t hz = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		hz = hz * 10 + (uint64_t)(s[i] - '0');
	}
	hz *= mult;
	if (hz == 0)
		return -1;
	uint64_t ns = 1000000000ull / hz;
	if (ns < GT_CONFIG_CPU_MIN_NS || ns > GT_CONFIG_CPU_MAX_NS)
		return -1;
	c->cpu_period_ns = ns;
	return 0;
}

const struct gt_option_desc gt_config_options[GT_OPT_COUNT] = {
	[GT_OPT_OUT] = {
		.name = "GOTRACE_OUT",
		.def = "gotrace.%p.trace",
		.help = "output file; %p becomes the process id, %% a literal %",
		.expect = "a path of at most 4095 bytes where % is followed only by p or %",
		.parse = parse_out,
	},
	[GT_OPT_STACKS] = {
		.name = "GOTRACE_STACKS",
		.def = "32",
		.help = "max frames per captured stack; 0 = no stacks",
		.expect = "a number from 0 to 128",
		.parse = parse_stacks,
	},
	[GT_OPT_PERIOD] = {
		.name = "GOTRACE_PERIOD",
		.def = "1s",
		.help = "generation length: 250ms, 2s, 1m, or plain seconds (0.5)",
		.expect = "a duration from 1ms to 1h such as 250ms, 2s or 0.5",
		.parse = parse_period,
	},
	[GT_OPT_FORMAT] = {
		.name = "GOTRACE_FORMAT",
		.def = "23",
		.help = "trace version: 23 (read by Go >= 1.23) or 26 (Go >= 1.26)",
		.expect = "23 or 26",
		.parse = parse_format,
	},
	[GT_OPT_MALLOC] = {
		.name = "GOTRACE_MALLOC",
		.def = "sample",
		.help = "heap events for malloc/free and friends: sample (by bytes, one allocation per 2 KiB on average: "
			"gotrace heap scales them to estimates), a mean such as 64KB, all (every allocation), or 0/off",
		.expect = "0, off, 1, all, sample, or a mean size from 128 to 1GB such as 64KB",
		.parse = parse_malloc,
	},
	[GT_OPT_FLIGHT] = {
		.name = "GOTRACE_FLIGHT",
		.def = "0",
		.help = "flight recorder: keep only the last 10s / 64MB / 30s,256MB in memory and write them on GOTRACE_FLIGHT_SIGNAL, a crash and at exit; 0 = off",
		.expect = "0, a duration from 1ms to 1h, a size from 1MB to 64GB, or both as 30s,256MB",
		.parse = parse_flight,
	},
	[GT_OPT_FLIGHT_SIGNAL] = {
		.name = "GOTRACE_FLIGHT_SIGNAL",
		.def = "USR2",
		.help = "signal that makes the flight recorder write a snapshot: USR1, USR2, RTMIN+N, RTMAX-N, their number, or none",
		.expect = "USR1, USR2, RTMIN+N or RTMAX-N (N from 0 to 30), their number (10, 12, 34 to 64), or none",
		.parse = parse_signal,
	},
	[GT_OPT_BUFFER] = {
		.name = "GOTRACE_BUFFER",
		.def = "64MB",
		.help = "memory for events not yet written; when the writer falls behind, threads wait for it",
		.expect = "a size from 1MB to 64GB such as 64MB",
		.parse = parse_buffer,
	},
	[GT_OPT_CLOCK] = {
		.name = "GOTRACE_CLOCK",
		.def = "auto",
		.help = "trace clock: auto (the TSC where the kernel keeps time with it, else CLOCK_MONOTONIC) or monotonic (always CLOCK_MONOTONIC)",
		.expect = "auto or monotonic",
		.parse = parse_clock,
	},
	[GT_OPT_DEADLOCK] = {
		.name = "GOTRACE_DEADLOCK",
		.def = "10s",
		.help = "report threads that wait on each other (a lock cycle, a join in one, or every thread asleep) for longer "
			"than this, then write the trace so far; add ,abort to abort with a core dump after it (CI); 0 = off",
		.expect = "0, off, or a duration from 1ms to 1h such as 10s, optionally followed by ,abort",
		.parse = parse_deadlock,
	},
	[GT_OPT_CPU] = {
		.name = "GOTRACE_CPU",
		.def = "100Hz",
		.help = "CPU samples: each thread's stack every 1/rate of its own CPU time, as a rate (100Hz, 1kHz, plain 250) "
			"or a period (10ms); 0 = off",
		.expect = "0, off, a rate from 1Hz to 10kHz such as 100Hz, or a period from 100us to 1s such as 10ms",
		.parse = parse_cpu,
	},
};

void gt_config_defaults(struct gt_config *c)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < GT_OPT_COUNT; i++) {
		/* The defaults are valid by construction; the unit tests check it. */
		(void)gt_config_options[i].parse(c, gt_config_options[i].def);
	}
}

int gt_config_set(struct gt_config *c, enum gt_opt opt, const char *value)
{
	if ((unsigned)opt >= GT_OPT_COUNT || value == NULL)
		return -1;
	return gt_config_options[opt].parse(c, value);
}

int gt_config_load(struct gt_config *c, gt_config_lookup_fn lookup,
		   gt_config_warn_fn warn, void *warn_arg)
{
	int bad = 0;
	gt_config_defaults(c);
	for (int i = 0; i < GT_OPT_COUNT; i++) {
		const struct gt_option_desc *d = &gt_config_options[i];
		const char *v = lookup(d->name);
		if (v == NULL || *v == '\0')
			continue;
		if (d->parse(c, v) == 0)
			continue;
		bad++;
		if (warn == NULL)
			continue;
		/* At most 9 + 21 + 1 + 71 + 8 + 90 + 8 + 16 + 1 bytes: it fits. */
		char buf[GT_CONFIG_LINE_MAX], q[96];
		struct line l = { buf, 0, sizeof buf, false };
		buf[0] = '\0';
		gt_config_quote(v, q, sizeof q);
		line_puts(&l, "gotrace: ");
		line_puts(&l, d->name);
		line_putc(&l, '=');
		line_puts(&l, q);
		line_puts(&l, " is not ");
		line_puts(&l, d->expect);
		line_puts(&l, "; using ");
		line_puts(&l, d->def);
		line_putc(&l, '\n');
		warn(buf, warn_arg);
	}
	return bad;
}

int gt_config_expand_out(const char *pattern, pid_t pid, char *buf, size_t buflen)
{
	struct line l = { buf, 0, buflen, false };
	char num[24];
	size_t nd = 0;
	unsigned long long v = pid < 0 ? 0 : (unsigned long long)pid;

	if (buflen == 0)
		return -1;
	buf[0] = '\0';
	do
		num[nd++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);

	for (const char *p = pattern; *p; p++) {
		if (*p != '%') {
			line_putc(&l, *p);
		} else if (p[1] == '%') {
			line_putc(&l, '%');
			p++;
		} else if (p[1] == 'p') {
			for (size_t i = nd; i > 0; i--)
				line_putc(&l, num[i - 1]);
			p++;
		} else {
			l.cut = true; /* not a pattern gt_config_set would accept */
		}
		if (l.cut) {
			buf[0] = '\0';
			return -1;
		}
	}
	return 0;
}

size_t gt_config_quote(const char *value, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const size_t max_out = 64; /* characters between the quotes */
	struct line l = { buf, 0, len, false };
	size_t out = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	line_putc(&l, '"');
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		char esc[5];
		size_t n = 0;
		if (*p == '"' || *p == '\\') {
			esc[n++] = '\\';
			esc[n++] = (char)*p;
		} else if (*p < 0x20 || *p == 0x7f) {
			esc[n++] = '\\';
			esc[n++] = 'x';
			esc[n++] = hex[*p >> 4];
			esc[n++] = hex[*p & 15];
		} else {
			esc[n++] = (char)*p; /* UTF-8 passes through */
		}
		if (out + n > max_out) {
			line_puts(&l, "...");
			break;
		}
		for (size_t i = 0; i < n; i++)
			line_putc(&l, esc[i]);
		out += n;
	}
	line_putc(&l, '"');
	return l.len;
}
