/* gzip.c — one-shot gzip compression with zlib (gzip.h). */
#include "tools/gzip.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GZIP_WINDOW (15 + 16) /* 32 KiB window, gzip header and trailer */

int tool_gzip(const void *in, size_t n, uint8_t **out, size_t *outlen)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	*out = NULL;
	*outlen = 0;
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	/* Feed and drain in pieces that fit zlib's 32-bit counters. */
	const uint8_t *src = in;
	size_t left = n, cap = 0, len = 0;
	uint8_t *buf = NULL;
	int rc;
	do {
		if (z.avail_in == 0 && left) {
			z.next_in = (Bytef *)(uintptr_t)src;
			z.avail_in = left > UINT_MAX / 2 ? UINT_MAX / 2 : (uInt)left;
			src += z.avail_in;
			left -= z.avail_in;
		}
		if (cap - len < 4096) {
			size_t c = cap ? cap * 2 : (n / 2 + 4096);
			uint8_t *p = c > cap ? realloc(buf, c) : NULL;
			if (!p) {
				free(buf);
				deflateEnd(&z);
				return -1;
			}
			buf = p;
			cap = c;
		}
		size_t room = cap - len > UINT_MAX / 2 ? UINT_MAX / 2 : cap - len;
		z.next_out = buf + len;
		z.avail_out = (uInt)room;
		rc = deflate(&z, left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		len += room - z.avail_out;
		if (rc == Z_STREAM_ERROR) {
			free(buf);
			deflateEnd(&z);
			return -1;
		}
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	*out = buf;
	*outlen = len;
	return 0;
}

int tool_gzip_write(FILE *f, const void *in, size_t n, char *err, size_t errlen)
{
	uint8_t *gz;
	size_t len;
	if (tool_gzip(in, n, &gz, &len)) {
		snprintf(err, errlen, "gzip compression failed (out of memory?)");
		return -1;
	}
	size_t w = fwrite(gz, 1, len, f);
	free(gz);
	if (w != len || fflush(f) != 0) {
		snprintf(err, errlen, "write error: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int tool_gzip_save(const char *cmd, const char *path, const void *in, size_t n)
{
	char err[256];
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "gotrace %s: cannot create %s: %s\n", cmd, path, strerror(errno));
		return -1;
	}
	int rc = tool_gzip_write(f, in, n, err, sizeof err);
	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, sizeof err, "write error: %s", strerror(errno));
		rc = -1;
	}
	if (rc)
		fprintf(stderr, "gotrace %s: %s: %s\n", cmd, path, err);
	return rc;
}
