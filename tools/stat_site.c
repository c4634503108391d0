/* stat_site.c — how a wait site, a frame name, a duration and a JSON
 * string are printed: shared by `gotrace stat`'s report and `gotrace
 * mutex`'s (stat_site.h). */
#include "tools/stat_site.h"

#include <string.h>

typedef unsigned long long ull;

#define SITE_FRAMES 4          /* frames of a site shown in text and in "summary" */
#define ARROW " \xe2\x86\x90 " /* " ← " between a site's frames */

/* ---- text ---- */

const char *tool_stat_format_duration(uint64_t ns, char *buf, size_t len)
{
	double d = (double)ns;
	if (ns == 0)
		snprintf(buf, len, "0");
	else if (ns < 1000)
		snprintf(buf, len, "%lluns", (ull)ns);
	else if (ns < 999950)
		snprintf(buf, len, "%.1fus", d / 1e3);
	else if (ns < 999950000)
		snprintf(buf, len, "%.1fms", d / 1e6);
	else if (ns < 9999500000ull)
		snprintf(buf, len, "%.3fs", d / 1e9);
	else if (ns < 99995000000ull)
		snprintf(buf, len, "%.2fs", d / 1e9);
	else
		snprintf(buf, len, "%.1fs", d / 1e9);
	return buf;
}

const char *tool_clean(const char *s, size_t max, char *buf, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; s[i] && o + 4 < len; i++) {
		if (i == max) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		unsigned char c = (unsigned char)s[i];
		buf[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[o] = '\0';
	return buf;
}

/* frame_name is tool_frame_name of a site table. */
static const char *frame_name(const struct tool_sites *s, uint32_t frame, char *buf, size_t len)
{
	const struct tool_hframe *f = &s->frames[frame];
	if (tool_sites_strlen(s, f->func) == 0) {
		snprintf(buf, len, "0x%llx", (ull)f->pc);
		return buf;
	}
	return tool_sites_str(s, f->func);
}

const char *tool_frame_name(const struct tool_stat *s, uint32_t frame, char *buf, size_t len)
{
	return frame_name(&s->sites, frame, buf, len);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

void tool_sites_line(FILE *out, const struct tool_sites *s, uint32_t site, unsigned from)
{
	const struct tool_hsite *h = &s->sites[site];
	const uint32_t *fr = tool_sites_site_frames(s, site);
	if (from >= h->nframes) {
		fprintf(out, "(no stack)");
		return;
	}
	fr += from;
	uint32_t left = h->nframes - from;
	char buf[TOOL_NAME_MAX_WIDTH + 32], pc[32];
	uint32_t n = left < SITE_FRAMES ? left : SITE_FRAMES;
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? ARROW : "",
			tool_clean(frame_name(s, fr[i], pc, sizeof pc), TOOL_NAME_MAX_WIDTH, buf, sizeof buf));
	if (left > n)
		fprintf(out, ARROW "... (+%u)", left - n);
	/* Where: the caller of the leaf when the leaf is the call itself
	 * (from 0), else the first frame shown (the call's caller). */
	const struct tool_hframe *at = &s->frames[fr[from == 0 && left > 1 ? 1 : 0]];
	if (tool_sites_strlen(s, at->file))
		fprintf(out, "  (%s:%llu)",
			tool_clean(base_name(tool_sites_str(s, at->file)), TOOL_NAME_MAX_WIDTH, buf, sizeof buf),
			(ull)at->line);
}

void tool_site_print(FILE *out, const struct tool_stat *s, uint32_t site)
{
	tool_sites_line(out, &s->sites, site, 0);
}

/* ---- JSON ---- */

/* utf8_len returns the length of a valid UTF-8 sequence at p (n bytes
 * left), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t min, cp;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, min = 0x80, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, min = 0x800, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, min = 0x10000, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* json_body prints s escaped for the inside of a JSON string; invalid
 * UTF-8 becomes U+FFFD. */
static void json_body(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t len = 1;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else if ((len = utf8_len(p + i, n - i)) == 0)
			fputs("\\ufffd", out), len = 1;
		else
			fwrite(p + i, 1, len, out);
		i += len;
	}
}

void tool_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	json_body(out, s);
	fputc('"', out);
}

void tool_site_json(FILE *out, const struct tool_stat *s, uint32_t site)
{
	const struct tool_hsite *h = &s->sites.sites[site];
	const uint32_t *fr = tool_sites_site_frames(&s->sites, site);
	char pc[32];
	fprintf(out, "\"summary\": \"");
	for (uint32_t i = 0; i < h->nframes && i < SITE_FRAMES; i++) {
		if (i)
			fprintf(out, ARROW);
		json_body(out, tool_frame_name(s, fr[i], pc, sizeof pc));
	}
	if (h->nframes > SITE_FRAMES)
		fprintf(out, ARROW "... (+%u)", h->nframes - SITE_FRAMES);
	fprintf(out, "\", \"frames\": [");
	for (uint32_t i = 0; i < h->nframes; i++) {
		const struct tool_hframe *f = &s->sites.frames[fr[i]];
		fprintf(out, "%s{\"function\": ", i ? ", " : "");
		tool_json_string(out, tool_sites_str(&s->sites, f->func));
		fprintf(out, ", \"file\": ");
		tool_json_string(out, tool_sites_str(&s->sites, f->file));
		fprintf(out, ", \"line\": %llu, \"pc\": %llu}", (ull)f->line, (ull)f->pc);
	}
	fprintf(out, "]");
}
