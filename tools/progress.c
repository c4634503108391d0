/* progress.c — see progress.h. */
#include "tools/progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/units.h"

#define DELAY_NS 1000000000ull /* show nothing during the first second */
#define REDRAW_NS 100000000ull /* then redraw at most ten times a second */

static struct {
	bool on;       /* a line may be shown */
	bool drawn;    /* a line is on the terminal */
	uint64_t total, start, next;
	char what[96];
} p;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tool_progress_begin(const char *what, uint64_t total)
{
	const char *mode = getenv("GOTRACE_PROGRESS");
	bool tty = isatty(STDERR_FILENO) == 1;
	uint64_t delay = DELAY_NS;
	memset(&p, 0, sizeof p);
	if (mode && strcmp(mode, "never") == 0)
		return;
	if (mode && (strcmp(mode, "always") == 0 || strcmp(mode, "force") == 0))
		delay = 0;
	p.on = tty || (mode && strcmp(mode, "force") == 0);
	p.total = total;
	p.start = now_ns();
	p.next = p.start + delay;
	snprintf(p.what, sizeof p.what, "%s", what);
}

void tool_progress_at(uint64_t done)
{
	if (!p.on)
		return;
	uint64_t t = now_ns();
	if (t < p.next)
		return;
	p.next = t + REDRAW_NS;
	char d[32], tot[32];
	tool_human_bytes(done, d, sizeof d);
	if (p.total) {
		tool_human_bytes(p.total, tot, sizeof tot);
		unsigned pct = (unsigned)(done >= p.total ? 100 : done * 100 / p.total);
		fprintf(stderr, "\rgotrace: %s: %s of %s (%u %%)\033[K", p.what, d, tot, pct);
	} else {
		fprintf(stderr, "\rgotrace: %s: %s\033[K", p.what, d);
	}
	fflush(stderr);
	p.drawn = true;
}

void tool_progress_end(void)
{
	if (p.drawn) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	p.on = p.drawn = false;
}
