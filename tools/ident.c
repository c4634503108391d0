/* ident.c — reads the gotrace.process string of a trace (ident.h). */
#include "tools/ident.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* field reads the decimal value at s[*i..len) up to a space or the end:
 * 0, or -1 when it is not a number of at most 10 digits. */
static int field_number(const char *s, size_t len, size_t *i, long *v)
{
	size_t start = *i;
	long x = 0;
	while (*i < len && s[*i] >= '0' && s[*i] <= '9' && *i - start < 10)
		x = x * 10 + (s[(*i)++] - '0');
	if (*i == start || (*i < len && s[*i] != ' ') || x > INT_MAX)
		return -1;
	*v = x;
	return 0;
}

int tool_ident_parse(const void *data, size_t len, struct tool_ident *id)
{
	const char *s = data;
	const size_t plen = sizeof TOOL_IDENT_PREFIX - 1;
	if (len < plen || memcmp(s, TOOL_IDENT_PREFIX, plen) != 0)
		return 0;
	long pid = 0, ppid = -1;
	size_t i = plen;
	for (;;) {
		if (len - i >= 4 && memcmp(s + i, "cmd=", 4) == 0) {
			i += 4;
			break;
		}
		if (len - i >= 4 && memcmp(s + i, "pid=", 4) == 0) {
			i += 4;
			if (field_number(s, len, &i, &pid))
				return 0;
		} else if (len - i >= 5 && memcmp(s + i, "ppid=", 5) == 0) {
			i += 5;
			if (field_number(s, len, &i, &ppid))
				return 0;
		} else {
			/* A field we do not know: skip it. */
			const char *eq = memchr(s + i, '=', len - i);
			const char *sp = memchr(s + i, ' ', len - i);
			if (!eq || (sp && sp < eq))
				return 0;
			i = sp ? (size_t)(sp - s) : len;
		}
		if (i == len)
			break; /* no cmd= */
		if (s[i] != ' ')
			return 0;
		i++;
	}
	if (pid <= 0)
		return 0;
	size_t n = len - i;
	id->cmd_cut = n > TOOL_IDENT_CMD_MAX;
	if (id->cmd_cut)
		n = TOOL_IDENT_CMD_MAX;
	memcpy(id->cmd, s + i, n);
	id->cmd[n] = '\0';
	/* A NUL inside would end the text early; show it as the library would escape it. */
	for (size_t k = 0; k < n; k++)
		if (id->cmd[k] == '\0')
			id->cmd[k] = '?';
	id->pid = pid;
	id->ppid = ppid;
	return 1;
}

/* put copies the character (UTF-8 sequence or byte) at s to buf, returning
 * the bytes of s it used; control bytes become '?'. */
static size_t put(const unsigned char *s, char *buf, size_t *n)
{
	size_t len = 1;
	if (s[0] >= 0xc0) /* the sequence's continuation bytes travel with it */
		while (len < 4 && (s[len] & 0xc0) == 0x80)
			len++;
	if (s[0] < 0x20 || s[0] == 0x7f || (s[0] >= 0x80 && s[0] < 0xc0)) {
		buf[(*n)++] = '?';
		return 1;
	}
	memcpy(buf + *n, s, len);
	*n += len;
	return len;
}

/* chars counts the characters of s (UTF-8 sequences count one). */
static size_t chars(const unsigned char *s)
{
	size_t c = 0;
	for (; *s; s++)
		if ((*s & 0xc0) != 0x80)
			c++;
	return c;
}

void tool_ident_sanitize(const char *cmd, char *buf, size_t len, size_t width)
{
	const unsigned char *s = (const unsigned char *)cmd;
	size_t n = 0, shown = 0;
	if (len == 0)
		return;
	bool cut = chars(s) > width;
	size_t keep = cut ? (width > 3 ? width - 3 : 0) : width;
	while (*s && shown < keep && n + 5 < len) {
		s += put(s, buf, &n);
		shown++;
	}
	if (cut)
		for (size_t i = 0; i < 3 && n + 1 < len; i++)
			buf[n++] = '.';
	buf[n] = '\0';
}

void tool_ident_program(const char *cmd, char *buf, size_t width)
{
	char tmp[TOOL_IDENT_CMD_MAX + 1];
	size_t first = strcspn(cmd, " ");
	const char *base = cmd;
	/* The base name of the executable, unless the word ends in '/'. */
	for (const char *p = cmd; p < cmd + first; p++)
		if (*p == '/' && p + 1 < cmd + first)
			base = p + 1;
	snprintf(tmp, sizeof tmp, "%s", base);
	if (tmp[0] == '\0' || tmp[0] == ' ')
		snprintf(tmp, sizeof tmp, "?%s", base);
	tool_ident_sanitize(tmp, buf, 4 * width + 1, width);
}
