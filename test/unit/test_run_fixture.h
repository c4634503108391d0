/* test_run_fixture.h — small traces that carry a process identity, as
 * libgotrace.so writes them (tools/ident.h), for the tests of the tools
 * that read it. Built with test_heap_fixture.h's writer. */
#ifndef TEST_RUN_FIXTURE_H
#define TEST_RUN_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/* rx_trace writes a trace of `gens` complete generations in `format` (23
 * or 26) into buf and returns its length. Every generation has a sync
 * batch, a string table with "gotrace.process pid=<pid> ppid=<ppid>
 * cmd=<cmd>" (none when cmd is NULL) and `pad` more strings of 1000 bytes
 * (to make a file bigger), and an event batch. */
size_t rx_trace(uint8_t *buf, size_t cap, int format, unsigned gens, long pid, long ppid, const char *cmd,
		unsigned pad);

/* rx_write writes n bytes to dir/name (replacing it); asserts success. */
void rx_write(const char *dir, const char *name, const void *bytes, size_t n);

#endif
