/* heap_sample.h — sampled heap events, as `gotrace heap` and `gotrace stat`
 * read them (docs/heap.md, "Sampled heap events").
 *
 * By default libgotrace.so records allocations sampled by bytes: each thread
 * counts down the bytes it allocates and records the allocation that takes
 * the count below zero, then draws a new count from an exponential
 * distribution of mean M. The points where counts run out form a Poisson
 * process of rate 1/M over the bytes allocated, so an allocation of s bytes
 * is recorded when its s bytes hold a point, with probability
 *
 *     p(s) = 1 - exp(-s/M),
 *
 * independently of every other allocation. Counting each recorded
 * allocation w(s) = 1/p(s) times (w objects, s·w bytes) gives unbiased
 * estimates (Horvitz-Thompson) of what was allocated, and, since the frees
 * of recorded objects are recorded, of what is live. The frees of objects
 * not recorded are not in the trace.
 *
 * A sampled trace says so in every generation's string table:
 *
 *     gotrace.heap sample_bytes=<M>
 *
 * (M in bytes, decimal; fields are "key=value" separated by one space, and
 * keys this reader does not know are skipped). Without that string every
 * allocation was recorded (w = 1). */
#ifndef TOOLS_HEAP_SAMPLE_H
#define TOOLS_HEAP_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#define TOOL_HEAP_SAMPLE_PREFIX "gotrace.heap "

/* tool_heap_sample_parse returns 1 when the len bytes at s (not NUL-terminated)
 * are the sampling statement with a valid sample_bytes, setting *mean (0
 * means every allocation is recorded); 0 otherwise. */
int tool_heap_sample_parse(const void *s, size_t len, uint64_t *mean);

/* When the program's malloc is not the library's, no heap event is
 * recorded, and every generation's string table says why:
 *
 *     gotrace.heap not_recorded=own_malloc by=<file>     (the program's own)
 *     gotrace.heap not_recorded=preload_order by=<file>  (preloaded ahead)
 *
 * tool_heap_note_parse writes the reason as a phrase into out (cap bytes,
 * NUL-terminated) and returns 1 for that statement; 0 otherwise. */
int tool_heap_note_parse(const void *s, size_t len, char *out, size_t cap);

/* tool_heap_sample_p is p(s), the probability that an allocation of `size`
 * bytes is recorded with mean `mean` (1 when mean = 0: every allocation). */
double tool_heap_sample_p(uint64_t size, uint64_t mean);

/* tool_heap_sample_weight is w(s) = 1/p(s), what one recorded allocation
 * counts for; 1 when mean = 0, and 1 for size 0 (a countdown of bytes never
 * records one, so a recorded one stands for itself). */
double tool_heap_sample_weight(uint64_t size, uint64_t mean);

/* tool_heap_sample_bytes is s·w(s) as the library adds it to the live
 * figure of its HeapAlloc metric (core/sample.h, gt_sample_weight: rounded
 * to an integer; s when mean = 0), so that the peaks of `gotrace heap`,
 * `gotrace stat` and the metric are the same number. */
uint64_t tool_heap_sample_bytes(uint64_t size, uint64_t mean);

/* tool_heap_sample_var is what one recorded allocation adds to the estimated
 * variance of a count estimate (objects: x = 1; bytes: x = size): x²(1-p)/p²,
 * whose sum over the recorded allocations is an unbiased estimate of the
 * variance of the sum of x·w. 0 when every allocation is recorded. */
double tool_heap_sample_var(uint64_t size, uint64_t mean, double x);

/* tool_heap_sample_rse is the relative standard error of the byte estimate of
 * n objects of `size` bytes: sqrt((1-p)/(n·p)); 0 for mean 0, n = 0 or
 * size 0. */
double tool_heap_sample_rse(uint64_t size, double n, uint64_t mean);

/* tool_heap_sample_seen is the probability that at least one of the objects
 * making up `bytes` bytes is recorded: 1-(1-p(s))^n for n objects of s
 * bytes, which is 1-exp(-bytes/M) whatever the sizes. 1 for mean 0. */
double tool_heap_sample_seen(double bytes, uint64_t mean);

#endif
