/* heap_sample.c — the sampling statement and the weights of sampled heap
 * events (heap_sample.h). */
#include "tools/heap_sample.h"

#include <math.h>
#include <stdio.h>

#include "core/sample.h"
#include <string.h>

/* A mean above this is nonsense (and would lose precision in doubles). */
#define MAX_MEAN (1ull << 52)

int tool_heap_sample_parse(const void *s, size_t len, uint64_t *mean)
{
	const char *p = s, *end = p + len;
	size_t plen = sizeof TOOL_HEAP_SAMPLE_PREFIX - 1;
	if (len < plen || memcmp(p, TOOL_HEAP_SAMPLE_PREFIX, plen) != 0)
		return 0;
	static const char key[] = "sample_bytes=";
	const size_t klen = sizeof key - 1;
	for (p += plen; p < end;) {
		const char *f = p, *sp = memchr(p, ' ', (size_t)(end - p));
		const char *fend = sp ? sp : end;
		p = sp ? sp + 1 : end;
		if ((size_t)(fend - f) <= klen || memcmp(f, key, klen) != 0)
			continue; /* another field */
		uint64_t v = 0;
		for (f += klen; f < fend; f++) {
			if (*f < '0' || *f > '9')
				return 0;
			v = v * 10 + (uint64_t)(*f - '0');
			if (v > MAX_MEAN)
				return 0;
		}
		*mean = v;
		return 1;
	}
	return 0;
}

int tool_heap_note_parse(const void *s, size_t len, char *out, size_t cap)
{
	static const char own[] = TOOL_HEAP_SAMPLE_PREFIX "not_recorded=own_malloc by=";
	static const char order[] = TOOL_HEAP_SAMPLE_PREFIX "not_recorded=preload_order by=";
	const char *p = s;
	int is_own = len > sizeof own - 1 && memcmp(p, own, sizeof own - 1) == 0;
	int is_order = len > sizeof order - 1 && memcmp(p, order, sizeof order - 1) == 0;
	if ((!is_own && !is_order) || cap == 0)
		return 0;
	size_t skip = is_own ? sizeof own - 1 : sizeof order - 1;
	int n = (int)(len - skip);
	if (is_own)
		snprintf(out, cap, "the program has its own malloc (%.*s)", n, p + skip);
	else
		snprintf(out, cap, "malloc comes from %.*s, ahead of libgotrace.so in LD_PRELOAD "
				   "(put libgotrace.so first to record them)", n, p + skip);
	return 1;
}

double tool_heap_sample_p(uint64_t size, uint64_t mean)
{
	if (mean == 0)
		return 1;
	/* -expm1(-x) keeps its precision for small x = size/mean */
	return -expm1(-(double)size / (double)mean);
}

double tool_heap_sample_weight(uint64_t size, uint64_t mean)
{
	if (mean == 0 || size == 0)
		return 1;
	return 1 / tool_heap_sample_p(size, mean);
}

uint64_t tool_heap_sample_bytes(uint64_t size, uint64_t mean)
{
	return gt_sample_weight(size, mean);
}

double tool_heap_sample_var(uint64_t size, uint64_t mean, double x)
{
	if (mean == 0 || size == 0)
		return 0;
	double p = tool_heap_sample_p(size, mean);
	return x * x * exp(-(double)size / (double)mean) / (p * p);
}

double tool_heap_sample_rse(uint64_t size, double n, uint64_t mean)
{
	if (mean == 0 || size == 0 || !(n > 0))
		return 0;
	double p = tool_heap_sample_p(size, mean);
	return sqrt(exp(-(double)size / (double)mean) / (n * p));
}

double tool_heap_sample_seen(double bytes, uint64_t mean)
{
	if (mean == 0)
		return 1;
	if (!(bytes > 0))
		return 0;
	return -expm1(-bytes / (double)mean);
}
