/* sample.h — the arithmetic of sampled heap recording (docs/heap.md): a
 * per-thread random generator, exponential intervals, and the weight of a
 * sample. Pure: no globals, no libm (the library links no libm; these run
 * once per sample, so a few hundred instructions each are nothing).
 *
 * Sampling is a Poisson process over the bytes a thread allocates, with
 * mean interval M: a thread counts down the requested bytes of its
 * allocations; the allocation during which the count goes below zero is
 * recorded, and a new count is drawn from an exponential distribution of
 * mean M. By memorylessness an allocation of s bytes is recorded with
 * probability p(s) = 1 - exp(-s/M) whatever came before it, so each
 * recorded one stands for 1/p(s) allocations and s/p(s) bytes. */
#ifndef GT_SAMPLE_H
#define GT_SAMPLE_H

#include <stdint.h>

/* gt_sample_seed: the generator state of the thread with goroutine id g
 * (never 0, so 0 can mean "not seeded"). */
uint64_t gt_sample_seed(uint64_t g);

/* gt_sample_next: 64 random bits; advances *state (splitmix64). */
static inline uint64_t gt_sample_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* gt_sample_interval: bytes until the next sample, drawn from an
 * exponential distribution with mean `mean` (-mean * ln U, U uniform in
 * (0, 1], from 53 random bits); at most ~37 * mean. */
uint64_t gt_sample_interval(uint64_t *state, uint64_t mean);

/* gt_sample_weight: s / p(s), the bytes a sample of s requested bytes
 * stands for (s / (1 - exp(-s/mean))), rounded; 0 for s = 0. */
uint64_t gt_sample_weight(uint64_t s, uint64_t mean);

/* The two functions under them, exposed for the unit tests: ln(x) for
 * 0 < x <= 1 and 1 - exp(-x) for x >= 0, to ~1e-15 relative. */
double gt_sample_ln(double x);
double gt_sample_one_minus_exp_neg(double x);

#endif
