/* gzip.h — gzip-compresses a buffer into a file (zlib, gzip framing). */
#ifndef TOOLS_GZIP_H
#define TOOLS_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* tool_gzip compresses in[0..n) into a malloc'd buffer (*out, *outlen).
 * Returns 0, or -1 (out of memory or a zlib error). */
int tool_gzip(const void *in, size_t n, uint8_t **out, size_t *outlen);

/* tool_gzip_write compresses in[0..n) and writes the result to f. Returns 0,
 * or -1 with a message in err. */
int tool_gzip_write(FILE *f, const void *in, size_t n, char *err, size_t errlen);

/* tool_gzip_save creates the file path holding in[0..n) compressed (a
 * profile). Returns 0, or -1 after one line on stderr naming the command
 * ("gotrace CMD: ...") and what went wrong. */
int tool_gzip_save(const char *cmd, const char *path, const void *in, size_t n);

#endif
