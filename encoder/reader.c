/* reader.c — reads a trace file batch by batch: header, batch framing, generation order. */
#include "reader.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "varint.h"

typedef unsigned long long ull;

static int fail(struct gt_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct gt_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
	r->failed = true;
	return -1;
}

/* getbyte returns the next byte or EOF, keeping r->off in step. */
static int getbyte(struct gt_reader *r)
{
	int c = getc(r->f);
	if (c != EOF)
		r->off++;
	return c;
}

static int read_error(struct gt_reader *r)
{
	return fail(r, "read error at offset %llu: %s", (ull)r->off, strerror(errno));
}

static bool version_supported(int v)
{
	return v == GT_FORMAT_22 || v == GT_FORMAT_23 || v == GT_FORMAT_25 || v == GT_FORMAT_26;
}

/* Go parses the header with Fscanf("go 1.%d trace\0\0\0"); every version we
 * read has two digits, so a good header is exactly these 16 bytes. */
int gt_reader_init(struct gt_reader *r, FILE *f)
{
	memset(r, 0, offsetof(struct gt_reader, buf));
	r->f = f;
	uint8_t h[GT_HEADER_LEN];
	size_t n = fread(h, 1, sizeof h, f);
	r->off = n;
	if (n < sizeof h && ferror(f))
		return read_error(r);

	/* "go 1." digits " trace": the pattern up to the NULs. */
	size_t d = 5, v = 0;
	if (n < d || memcmp(h, "go 1.", d) != 0)
		goto bad;
	while (d < n && d < 9 && h[d] >= '0' && h[d] <= '9')
		v = v * 10 + (size_t)(h[d++] - '0');
	if (d == 5 || n - d < 6 || memcmp(h + d, " trace", 6) != 0)
		goto bad;
	if (!version_supported((int)v))
		return fail(r, "unknown or unsupported trace version go 1.%zu", v);
	if (n < sizeof h || memcmp(h + 13, "\0\0\0", 3) != 0)
		goto bad;
	r->version = (int)v;
	return 0;
bad:
	return fail(r, "bad file format: not a Go execution trace? (16-byte header at offset 0)");
}

/* truncated reports a file that ends inside the batch starting at `start`. */
static int truncated(struct gt_reader *r, uint64_t start, const char *where)
{
	if (ferror(r->f))
		return read_error(r);
	return fail(r, "truncated batch at offset %llu: the file ends in its %s at offset %llu",
		    (ull)start, where, (ull)r->off);
}

/* read_field reads one uvarint field of the batch header at `start`. */
static int read_field(struct gt_reader *r, uint64_t start, const char *what, uint64_t *v)
{
	uint64_t at = r->off;
	/* gt_uvarint_step fails by the 10th byte, so this ends. */
	for (unsigned i = 0;; i++) {
		int c = getbyte(r);
		if (c == EOF)
			return truncated(r, start, what);
		int more = gt_uvarint_step(v, i, (uint8_t)c);
		if (more < 0)
			return fail(r, "invalid uvarint (over 64 bits) for the %s of the batch at offset %llu, field at offset %llu",
				    what, (ull)start, (ull)at);
		if (!more)
			return 0;
	}
}

/* check_gen applies Go's generation rules to a batch of generation gen. */
static int check_gen(struct gt_reader *r, uint64_t gen, uint64_t start)
{
	if (gen == 0)
		return fail(r, "invalid generation number 0 in the batch at offset %llu", (ull)start);
	if (r->version >= GT_FORMAT_26) {
		/* Any order, but a generation ends only at EndOfGeneration. */
		if (r->gen_open && gen != r->gen)
			return fail(r, "batch of generation %llu at offset %llu inside generation %llu: missing EndOfGeneration, or generations are interleaved",
				    (ull)gen, (ull)start, (ull)r->gen);
	} else if (r->gen != 0 && gen != r->gen && gen != r->gen + 1) {
		/* Before 1.26 the next generation starts with its first batch. */
		return fail(r, "generations out of order: batch of generation %llu at offset %llu after generation %llu",
			    (ull)gen, (ull)start, (ull)r->gen);
	}
	r->gen = gen;
	r->gen_open = true;
	return 0;
}

static enum gt_batch_kind classify(int version, const uint8_t *d, size_t len)
{
	if (len == 0)
		return GT_BATCH_EVENTS;
	switch (d[0]) {
	case GT_EV_STRINGS: return GT_BATCH_STRINGS;
	case GT_EV_STACKS: return GT_BATCH_STACKS;
	case GT_EV_CPU_SAMPLES: return GT_BATCH_CPU_SAMPLES;
	case GT_EV_FREQUENCY: return version < GT_FORMAT_25 ? GT_BATCH_SYNC : GT_BATCH_EVENTS;
	case GT_EV_SYNC: return version >= GT_FORMAT_25 ? GT_BATCH_SYNC : GT_BATCH_EVENTS;
	default: return GT_BATCH_EVENTS;
	}
}

/* end_of_gen turns a 1.26 EndOfGeneration byte at `start` into a batch. */
static int end_of_gen(struct gt_reader *r, struct gt_rbatch *b, uint64_t start)
{
	if (!r->gen_open)
		return fail(r, "EndOfGeneration at offset %llu ends an empty generation", (ull)start);
	r->gen_open = false;
	b->kind = GT_BATCH_END_OF_GEN;
	b->gen = r->gen;
	b->m = GT_NO_THREAD;
	b->data = r->buf;
	b->data_offset = r->off;
	return 1;
}

int gt_reader_next(struct gt_reader *r, struct gt_rbatch *b)
{
	if (r->failed)
		return -1;
	memset(b, 0, sizeof *b);
	uint64_t start = b->offset = r->off;
	int c = getbyte(r);
	if (c == EOF) {
		if (ferror(r->f))
			return read_error(r);
		if (r->version >= GT_FORMAT_26 && r->gen_open)
			return fail(r, "incomplete generation %llu: no EndOfGeneration before the end of the file at offset %llu (trace likely truncated)",
				    (ull)r->gen, (ull)start);
		return 0;
	}
	if (c == GT_EV_END_OF_GENERATION && r->version >= GT_FORMAT_26)
		return end_of_gen(r, b, start);
	if (c != GT_EV_BATCH && c != GT_EV_EXPERIMENTAL_BATCH)
		return fail(r, "expected batch event, got event %d at offset %llu", c, (ull)start);

	if (c == GT_EV_EXPERIMENTAL_BATCH) {
		int e = getbyte(r);
		if (e == EOF)
			return truncated(r, start, "experiment id");
		b->exp = (uint8_t)e;
	}
	uint64_t size;
	if (read_field(r, start, "generation", &b->gen) || read_field(r, start, "thread (M)", &b->m) ||
	    read_field(r, start, "base timestamp", &b->base_ts) || read_field(r, start, "size", &size))
		return -1;
	if (size > GT_MAX_BATCH)
		return fail(r, "invalid batch size %llu, maximum is %d (batch at offset %llu)",
			    (ull)size, GT_MAX_BATCH, (ull)start);
	if (check_gen(r, b->gen, start))
		return -1;

	b->data = r->buf;
	b->len = (size_t)size;
	b->data_offset = r->off;
	size_t got = fread(r->buf, 1, b->len, r->f);
	r->off += got;
	if (got < b->len) {
		if (ferror(r->f))
			return read_error(r);
		return fail(r, "truncated batch at offset %llu: the file ends after %zu of its %zu payload bytes",
			    (ull)start, got, b->len);
	}
	b->kind = c == GT_EV_EXPERIMENTAL_BATCH ? GT_BATCH_EXPERIMENTAL
						: classify(r->version, b->data, b->len);
	return 1;
}

const char *gt_batch_kind_name(enum gt_batch_kind kind)
{
	switch (kind) {
	case GT_BATCH_EVENTS: return "events";
	case GT_BATCH_STRINGS: return "strings";
	case GT_BATCH_STACKS: return "stacks";
	case GT_BATCH_CPU_SAMPLES: return "cpu samples";
	case GT_BATCH_SYNC: return "sync";
	case GT_BATCH_EXPERIMENTAL: return "experimental";
	case GT_BATCH_END_OF_GEN: return "end of generation";
	}
	return "?";
}
