/* test_stat_fixture.h — what the synthetic-trace tests of stat's
 * accounting (test_cpu_trace.c, test_mutex_trace.c) share: a finished
 * batch appended, the stack table written from a table of function
 * symbols, and the trace read into a fresh struct tool_stat. The traces
 * are test_heap_fixture.h's. */
#ifndef TEST_STAT_FIXTURE_H
#define TEST_STAT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "test_heap_fixture.h"
#include "tools/stat_acct.h"

/* SX_STACK_BASE: stack k (a K_ symbol of a test) has id SX_STACK_BASE + k. */
#define SX_STACK_BASE 1000

/* sx_append appends len bytes of a finished batch to t (asserting room). */
void sx_append(struct hx *t, const uint8_t *batch, size_t len);

/* sx_stacks writes the stacks k = 1 .. n-1: frame i of stack k is the
 * function string funcs[k][i] (0 ends it) in string file, PC 0x1000*k+i,
 * line 10*k+i. */
void sx_stacks(struct hx *t, const int (*funcs)[4], int n, uint64_t file);

/* sx_read reads the trace t holds into a fresh stat, asserting that it
 * reads; sx_done frees the stat. */
struct tool_stat *sx_read(struct hx *t);
void sx_done(struct tool_stat *s);

#endif
