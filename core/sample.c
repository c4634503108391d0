/* sample.c — random intervals and sample weights without libm (sample.h). */
#include "sample.h"

#include <string.h>

#define LN2 0.693147180559945309417232121458176568

uint64_t gt_sample_seed(uint64_t g)
{
	uint64_t s = g * 0x2545f4914f6cdd1dull + 0x6a09e667f3bcc909ull;
	(void)gt_sample_next(&s);
	return s ? s : 1;
}

/* ln(x) = e ln 2 + ln m with x = m 2^e, m in [sqrt(1/2), sqrt(2)), and
 * ln m = 2 atanh(z), z = (m - 1) / (m + 1), |z| < 0.172: the odd series
 * converges by a factor z^2 < 0.03 a term. */
double gt_sample_ln(double x)
{
	if (!(x > 0))
		return -745.2; /* ln of the smallest double: never asked for */
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	int e = (int)((bits >> 52) & 0x7ff);
	if (e == 0) { /* subnormal: scale up by 2^64 first */
		x *= 18446744073709551616.0;
		memcpy(&bits, &x, sizeof bits);
		e = (int)((bits >> 52) & 0x7ff) - 64;
	}
	e -= 1023;
	bits = (bits & ((1ull << 52) - 1)) | (1023ull << 52); /* m in [1, 2) */
	double m;
	memcpy(&m, &bits, sizeof m);
	if (m > 1.41421356237309504880) {
		m *= 0.5;
		e++;
	}
	double z = (m - 1) / (m + 1), z2 = z * z, term = z, sum = 0;
	for (int k = 1; k < 40; k += 2) {
		double add = term / k;
		sum += add;
		if (add <= 1e-17 * sum && add >= -1e-17 * sum)
			break;
		term *= z2;
	}
	return e * LN2 + 2 * sum;
}

/* exp(y) for 0 <= y <= 64: y = k ln 2 + r, 0 <= r < ln 2, e^r by its
 * series, then times 2^k. */
static double exp_small(double y)
{
	int k = (int)(y / LN2);
	double r = y - k * LN2, term = 1, sum = 1;
	for (int i = 1; i < 30; i++) {
		term *= r / i;
		sum += term;
		if (term < 1e-17 * sum)
			break;
	}
	uint64_t bits = (uint64_t)(1023 + k) << 52;
	double p2;
	memcpy(&p2, &bits, sizeof p2);
	return sum * p2;
}

/* 1 - e^-x: by its alternating series below 0.5 (no cancellation), else
 * from e^x. */
double gt_sample_one_minus_exp_neg(double x)
{
	if (x <= 0)
		return 0;
	if (x >= 64)
		return 1;
	if (x < 0.5) {
		double term = x, sum = 0;
		for (int i = 1; i < 40; i++) {
			sum += term;
			term *= -x / (i + 1);
			if (term < 1e-17 * sum && term > -1e-17 * sum)
				break;
		}
		return sum;
	}
	return 1 - 1 / exp_small(x);
}

uint64_t gt_sample_interval(uint64_t *state, uint64_t mean)
{
	/* U = (k + 1) / 2^53, k uniform in [0, 2^53): never 0. */
	double u = (double)((gt_sample_next(state) >> 11) + 1) * (1.0 / 9007199254740992.0);
	double v = -gt_sample_ln(u) * (double)mean;
	return (uint64_t)v;
}

uint64_t gt_sample_weight(uint64_t s, uint64_t mean)
{
	if (s == 0 || mean == 0)
		return s;
	double x = (double)s / (double)mean;
	double p = gt_sample_one_minus_exp_neg(x);
	if (p <= 0)
		return s;
	return (uint64_t)((double)s / p + 0.5);
}
