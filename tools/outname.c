/* outname.c — matches file names against the names libgotrace.so writes (outname.h). */
#include "tools/outname.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"

/* number reads the decimal number at s (no sign, no leading zero, > 0,
 * <= INT_MAX) of at most maxlen digits: its length, or 0. */
static size_t number(const char *s, size_t maxlen, long *v)
{
	size_t n = 0;
	long x = 0;
	if (s[0] < '1' || s[0] > '9')
		return 0;
	while (n < maxlen && s[n] >= '0' && s[n] <= '9') {
		x = x * 10 + (s[n] - '0');
		if (x > INT_MAX)
			return 0;
		n++;
	}
	*v = x;
	return n;
}

/* dot_number reads ".N" at s: its length, or 0. */
static size_t dot_number(const char *s, long *v)
{
	if (s[0] != '.')
		return 0;
	size_t n = number(s + 1, SIZE_MAX, v);
	/* ".12x" is not ".12" followed by something else we know. */
	return n && (s[1 + n] == '\0' || s[1 + n] == '.') ? 1 + n : 0;
}

/* suffix checks what follows the expanded base: [.k] [.snapN] with %p in
 * the pattern, [.pid [.k]] [.snapN] without. */
static bool suffix(const char *s, bool has_p, struct tool_outname *m)
{
	long v;
	size_t n;
	if (has_p) {
		if ((n = dot_number(s, &v)) != 0) {
			m->image = (unsigned)v;
			s += n;
		}
	} else if ((n = dot_number(s, &v)) != 0) {
		m->pid = v;
		m->image = 1;
		s += n;
		if ((n = dot_number(s, &v)) != 0) {
			m->image = 1 + (unsigned)v;
			s += n;
		}
	}
	if (strncmp(s, ".snap", 5) == 0) {
		n = number(s + 5, SIZE_MAX, &v);
		if (n == 0)
			return false;
		m->snap = (unsigned)v;
		s += 5 + n;
	}
	return *s == '\0';
}

/* match walks the pattern p against s; every %p must stand for one pid.
 * Backtracks over the length of each %p's digits ("t%p1" and "t1231"). */
static bool match(const char *p, const char *s, bool has_p, long pid, struct tool_outname *m)
{
	for (;;) {
		if (*p == '\0') {
			struct tool_outname t = { .pid = pid };
			if (!suffix(s, has_p, &t))
				return false;
			*m = t;
			return true;
		}
		if (p[0] == '%' && p[1] == 'p') {
			long v;
			size_t most = number(s, SIZE_MAX, &v);
			for (size_t len = most; len > 0; len--) {
				if (number(s, len, &v) != len || (pid && v != pid))
					continue;
				if (match(p + 2, s + len, has_p, v, m))
					return true;
			}
			return false;
		}
		char c = *p;
		if (c == '%') {
			if (p[1] != '%')
				return false; /* not a pattern the library accepts */
			p++;
		}
		if (*s != c)
			return false;
		p++;
		s++;
	}
}

int tool_outname_match(const char *base, const char *name, struct tool_outname *m)
{
	bool has_p = false;
	for (const char *p = base; *p; p++) {
		if (p[0] == '%' && p[1] == 'p')
			has_p = true;
		if (p[0] == '%' && p[1] != '\0')
			p++;
	}
	if (*base == '\0' || strchr(name, '/'))
		return 0;
	return match(base, name, has_p, 0, m) ? 1 : 0;
}

int tool_outname_split(const char *pattern, long pid, char *dir, size_t dirlen, const char **base)
{
	const char *slash = strrchr(pattern, '/');
	*base = slash ? slash + 1 : pattern;
	if (**base == '\0' || dirlen == 0)
		return -1;
	if (!slash)
		return snprintf(dir, dirlen, ".") < (int)dirlen ? 0 : -1;
	size_t n = (size_t)(slash - pattern);
	char head[GT_CONFIG_OUT_MAX];
	if (n == 0)
		n = 1; /* "/name": the root */
	if (n >= sizeof head)
		return -1;
	memcpy(head, pattern, n);
	head[n] = '\0';
	bool has_p = false;
	for (const char *p = head; *p; p++) {
		if (p[0] == '%' && p[1] == 'p')
			has_p = true;
		if (p[0] == '%' && p[1] != '\0')
			p++;
	}
	if (gt_config_expand_out(head, (pid_t)pid, dir, dirlen) != 0)
		return -1;
	return has_p ? 1 : 0;
}
