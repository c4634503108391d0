/* pprof.c — protobuf fields and the Profile message of profile.proto (pprof.h). */
#include "tools/pprof.h"

#include <stdlib.h>
#include <string.h>

/* Profile fields. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4 };
enum { MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILENAME = 5,
       MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
       MAPPING_HAS_INLINE_FRAMES = 10 };
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
       FUNCTION_START_LINE = 5 };

/* ---- protobuf ---- */

void tool_pb_free(struct tool_pb *b)
{
	free(b->buf);
	tool_pb_init(b);
}

static bool reserve(struct tool_pb *b, size_t n)
{
	if (b->failed)
		return false;
	if (n <= b->cap - b->len)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	uint8_t *p = realloc(b->buf, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->buf = p;
	b->cap = cap;
	return true;
}

void tool_pb_raw(struct tool_pb *b, const void *p, size_t n)
{
	if (n && reserve(b, n)) {
		memcpy(b->buf + b->len, p, n);
		b->len += n;
	}
}

void tool_pb_varint(struct tool_pb *b, uint64_t v)
{
	if (!reserve(b, 10))
		return;
	while (v >= 0x80) {
		b->buf[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->buf[b->len++] = (uint8_t)v;
}

void tool_pb_key(struct tool_pb *b, unsigned field, unsigned wire_type)
{
	tool_pb_varint(b, (uint64_t)field << 3 | wire_type);
}

void tool_pb_uint(struct tool_pb *b, unsigned field, uint64_t v)
{
	if (v == 0)
		return;
	tool_pb_key(b, field, TOOL_PB_VARINT);
	tool_pb_varint(b, v);
}

void tool_pb_int(struct tool_pb *b, unsigned field, int64_t v)
{
	tool_pb_uint(b, field, (uint64_t)v);
}

void tool_pb_bytes(struct tool_pb *b, unsigned field, const void *p, size_t n)
{
	tool_pb_key(b, field, TOOL_PB_LEN);
	tool_pb_varint(b, n);
	tool_pb_raw(b, p, n);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void tool_pb_packed(struct tool_pb *b, unsigned field, const uint64_t *v, size_t n)
{
	if (n == 0)
		return;
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += varint_len(v[i]);
	tool_pb_key(b, field, TOOL_PB_LEN);
	tool_pb_varint(b, len);
	for (size_t i = 0; i < n; i++)
		tool_pb_varint(b, v[i]);
}

void tool_pb_packed_int(struct tool_pb *b, unsigned field, const int64_t *v, size_t n)
{
	/* int64 values are varints of their two's complement. */
	if (n == 0)
		return;
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += varint_len((uint64_t)v[i]);
	tool_pb_key(b, field, TOOL_PB_LEN);
	tool_pb_varint(b, len);
	for (size_t i = 0; i < n; i++)
		tool_pb_varint(b, (uint64_t)v[i]);
}

/* message appends sub as the embedded message `field` of b. */
static void message(struct tool_pb *b, unsigned field, const struct tool_pb *sub)
{
	if (sub->failed) {
		b->failed = true;
		return;
	}
	tool_pb_bytes(b, field, sub->buf, sub->len);
}

/* ---- profile.proto ---- */

void tool_pprof_init(struct tool_pprof *p)
{
	tool_pb_init(&p->out);
	tool_pb_init(&p->msg);
	tool_pb_init(&p->sub);
	p->nstrings = 0;
	tool_pprof_string(p, "", 0);
}

void tool_pprof_free(struct tool_pprof *p)
{
	tool_pb_free(&p->out);
	tool_pb_free(&p->msg);
	tool_pb_free(&p->sub);
}

int64_t tool_pprof_string(struct tool_pprof *p, const char *s, size_t len)
{
	tool_pb_bytes(&p->out, PROFILE_STRING_TABLE, s, len);
	return p->nstrings++;
}

int64_t tool_pprof_cstring(struct tool_pprof *p, const char *s)
{
	return tool_pprof_string(p, s, strlen(s));
}

static void value_type(struct tool_pprof *p, unsigned field, int64_t type, int64_t unit)
{
	tool_pb_reset(&p->msg);
	tool_pb_int(&p->msg, VALUE_TYPE_TYPE, type);
	tool_pb_int(&p->msg, VALUE_TYPE_UNIT, unit);
	message(&p->out, field, &p->msg);
}

void tool_pprof_sample_type(struct tool_pprof *p, int64_t type, int64_t unit)
{
	value_type(p, PROFILE_SAMPLE_TYPE, type, unit);
}

void tool_pprof_sample_types(struct tool_pprof *p, const char *const types[][2], int n, int dflt)
{
	int64_t def = 0;
	for (int i = 0; i < n; i++) {
		int64_t type = tool_pprof_cstring(p, types[i][0]);
		tool_pprof_sample_type(p, type, tool_pprof_cstring(p, types[i][1]));
		if (i == dflt)
			def = type;
	}
	tool_pprof_default_sample_type(p, def);
}

void tool_pprof_period(struct tool_pprof *p, int64_t type, int64_t unit, int64_t period)
{
	value_type(p, PROFILE_PERIOD_TYPE, type, unit);
	tool_pb_int(&p->out, PROFILE_PERIOD, period);
}

void tool_pprof_default_sample_type(struct tool_pprof *p, int64_t type)
{
	tool_pb_int(&p->out, PROFILE_DEFAULT_SAMPLE_TYPE, type);
}

void tool_pprof_time(struct tool_pprof *p, int64_t time_nanos, int64_t duration_nanos)
{
	tool_pb_int(&p->out, PROFILE_TIME_NANOS, time_nanos);
	tool_pb_int(&p->out, PROFILE_DURATION_NANOS, duration_nanos);
}

void tool_pprof_comment(struct tool_pprof *p, int64_t str)
{
	/* repeated int64, written unpacked: one key per entry */
	tool_pb_key(&p->out, PROFILE_COMMENT, TOOL_PB_VARINT);
	tool_pb_varint(&p->out, (uint64_t)str);
}

void tool_pprof_mapping(struct tool_pprof *p, uint64_t id, uint64_t start, uint64_t limit, int64_t filename)
{
	tool_pb_reset(&p->msg);
	tool_pb_uint(&p->msg, MAPPING_ID, id);
	tool_pb_uint(&p->msg, MAPPING_MEMORY_START, start);
	tool_pb_uint(&p->msg, MAPPING_MEMORY_LIMIT, limit);
	tool_pb_int(&p->msg, MAPPING_FILENAME, filename);
	tool_pb_uint(&p->msg, MAPPING_HAS_FUNCTIONS, 1);
	tool_pb_uint(&p->msg, MAPPING_HAS_FILENAMES, 1);
	tool_pb_uint(&p->msg, MAPPING_HAS_LINE_NUMBERS, 1);
	tool_pb_uint(&p->msg, MAPPING_HAS_INLINE_FRAMES, 1);
	message(&p->out, PROFILE_MAPPING, &p->msg);
}

void tool_pprof_function(struct tool_pprof *p, uint64_t id, int64_t name, int64_t system_name,
		         int64_t filename, int64_t start_line)
{
	tool_pb_reset(&p->msg);
	tool_pb_uint(&p->msg, FUNCTION_ID, id);
	tool_pb_int(&p->msg, FUNCTION_NAME, name);
	tool_pb_int(&p->msg, FUNCTION_SYSTEM_NAME, system_name);
	tool_pb_int(&p->msg, FUNCTION_FILENAME, filename);
	tool_pb_int(&p->msg, FUNCTION_START_LINE, start_line);
	message(&p->out, PROFILE_FUNCTION, &p->msg);
}

void tool_pprof_location(struct tool_pprof *p, uint64_t id, uint64_t mapping_id, uint64_t address,
		         uint64_t function_id, int64_t line)
{
	tool_pb_reset(&p->sub);
	tool_pb_uint(&p->sub, LINE_FUNCTION_ID, function_id);
	tool_pb_int(&p->sub, LINE_LINE, line);
	tool_pb_reset(&p->msg);
	tool_pb_uint(&p->msg, LOCATION_ID, id);
	tool_pb_uint(&p->msg, LOCATION_MAPPING_ID, mapping_id);
	tool_pb_uint(&p->msg, LOCATION_ADDRESS, address);
	message(&p->msg, LOCATION_LINE, &p->sub);
	message(&p->out, PROFILE_LOCATION, &p->msg);
}

void tool_pprof_sample(struct tool_pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values,
		       size_t nvalues, const struct tool_pprof_label *labels, size_t nlabels)
{
	tool_pb_reset(&p->msg);
	tool_pb_packed(&p->msg, SAMPLE_LOCATION_ID, locs, nlocs);
	tool_pb_packed_int(&p->msg, SAMPLE_VALUE, values, nvalues);
	for (size_t i = 0; i < nlabels; i++) {
		const struct tool_pprof_label *l = &labels[i];
		tool_pb_reset(&p->sub);
		tool_pb_int(&p->sub, LABEL_KEY, l->key);
		tool_pb_int(&p->sub, LABEL_STR, l->str);
		tool_pb_int(&p->sub, LABEL_NUM, l->num);
		tool_pb_int(&p->sub, LABEL_NUM_UNIT, l->num_unit);
		message(&p->msg, SAMPLE_LABEL, &p->sub);
	}
	message(&p->out, PROFILE_SAMPLE, &p->msg);
}
