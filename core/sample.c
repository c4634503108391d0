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
 * z + z^3/3 + ... to z^23/23 (the next term is below 2^-60 of the sum),
 * by Horner, with one division (z) in all. */
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
	double z = (m - 1) / (m + 1), z2 = z * z;
	double p = 1.0 / 23;
	p = p * z2 + 1.0 / 21;
	p = p * z2 + 1.0 / 19;
	p = p * z2 + 1.0 / 17;
	p = p * z2 + 1.0 / 15;
	p = p * z2 + 1.0 / 13;
	p = p * z2 + 1.0 / 11;
	p = p * z2 + 1.0 / 9;
	p = p * z2 + 1.0 / 7;
	p = p * z2 + 1.0 / 5;
	p = p * z2 + 1.0 / 3;
	p = p * z2 + 1.0;
	return e * LN2 + 2 * z * p;
}

/* e^r - 1 for |r| <= 0.5: its Taylor series to r^17/17! (the rest is
 * below 2^-60 of it), by Horner. */
static double expm1_small(double r)
{
	static const double c[] = {
		1.0 / 17, 1.0 / 16, 1.0 / 15, 1.0 / 14, 1.0 / 13, 1.0 / 12, 1.0 / 11, 1.0 / 10,
		1.0 / 9,  1.0 / 8,  1.0 / 7,  1.0 / 6,  1.0 / 5,  1.0 / 4,  1.0 / 3,  1.0 / 2,
	};
	/* r (1 + r/2 (1 + r/3 (1 + ... (1 + r/17)))) */
	double p = 1.0;
	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++)
		p = 1.0 + r * c[i] * p;
	return r * p;
}

/* 1 - e^-x: -expm1(-x) directly below 0.5 (no cancellation), else
 * 1 - 2^-k e^-r with x = k ln 2 + r, |r| <= ln 2 / 2. */
double gt_sample_one_minus_exp_neg(double x)
{
	if (x <= 0)
		return 0;
	if (x >= 64)
		return 1;
	if (x < 0.5)
		return -expm1_small(-x);
	int k = (int)(x / LN2 + 0.5);
	double r = x - k * LN2;
	uint64_t bits = (uint64_t)(1023 - k) << 52; /* 2^-k, k <= 93 */
	double p2;
	memcpy(&p2, &bits, sizeof p2);
	return 1 - p2 * (1 + expm1_small(-r));
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
