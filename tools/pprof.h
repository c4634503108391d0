/* pprof.h — writes pprof profiles (profile.proto, uncompressed protobuf).
 *
 * Two layers: tool_pb appends protobuf fields to a growing buffer; tool_pprof
 * appends the fields of the top-level Profile message, one repeated entry
 * at a time, in the order the caller chooses (protobuf allows repeated
 * fields of different numbers to interleave; entries of one field keep their
 * order, which matters only for string_table). The caller deduplicates
 * strings, functions and locations; ids are the caller's (>= 1).
 *
 * Field numbers used (profile.proto):
 *   Profile: sample_type 1, sample 2, mapping 3, location 4, function 5,
 *            string_table 6, time_nanos 9, duration_nanos 10,
 *            period_type 11, period 12, comment 13, default_sample_type 14
 *   ValueType: type 1, unit 2          Sample: location_id 1, value 2, label 3
 *   Label: key 1, str 2, num 3, num_unit 4
 *   Mapping: id 1, memory_start 2, memory_limit 3, filename 5,
 *            has_functions 7, has_filenames 8, has_line_numbers 9, has_inline_frames 10
 *   Location: id 1, mapping_id 2, address 3, line 4
 *   Line: function_id 1, line 2        Function: id 1, name 2, system_name 3,
 *                                                filename 4, start_line 5
 * Strings are indices into string_table, whose entry 0 is "". */
#ifndef TOOLS_PPROF_H
#define TOOLS_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- protobuf ---- */

#define TOOL_PB_VARINT 0
#define TOOL_PB_LEN 2

struct tool_pb {
	uint8_t *buf;
	size_t len, cap;
	bool failed; /* an allocation failed; the content is incomplete */
};

static inline void tool_pb_init(struct tool_pb *b)
{
	b->buf = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}
void tool_pb_free(struct tool_pb *b);
static inline void tool_pb_reset(struct tool_pb *b) { b->len = 0; }

void tool_pb_raw(struct tool_pb *b, const void *p, size_t n);
void tool_pb_varint(struct tool_pb *b, uint64_t v);
void tool_pb_key(struct tool_pb *b, unsigned field, unsigned wire_type);
/* tool_pb_uint / tool_pb_int write a varint field; a 0 is left out (the proto3
 * default). Negative ints take 10 bytes (int64, not sint64). */
void tool_pb_uint(struct tool_pb *b, unsigned field, uint64_t v);
void tool_pb_int(struct tool_pb *b, unsigned field, int64_t v);
/* tool_pb_bytes writes a length-delimited field (always, even when empty). */
void tool_pb_bytes(struct tool_pb *b, unsigned field, const void *p, size_t n);
/* tool_pb_packed writes a packed repeated varint field; nothing when n = 0. */
void tool_pb_packed(struct tool_pb *b, unsigned field, const uint64_t *v, size_t n);
void tool_pb_packed_int(struct tool_pb *b, unsigned field, const int64_t *v, size_t n);

/* ---- profile.proto ---- */

struct tool_pprof {
	struct tool_pb out; /* the Profile message so far */
	struct tool_pb msg; /* scratch: the entry being built */
	struct tool_pb sub; /* scratch: a message inside that entry */
	int64_t nstrings;   /* string_table entries written */
};

struct tool_pprof_label {
	int64_t key;        /* string index */
	int64_t str;        /* string index, or 0 */
	int64_t num;        /* numeric value when str = 0 */
	int64_t num_unit;   /* string index, or 0 */
};

/* tool_pprof_init starts a profile whose string table holds "" (index 0). */
void tool_pprof_init(struct tool_pprof *p);
void tool_pprof_free(struct tool_pprof *p);

/* tool_pprof_string appends a string_table entry and returns its index. */
int64_t tool_pprof_string(struct tool_pprof *p, const char *s, size_t len);
int64_t tool_pprof_cstring(struct tool_pprof *p, const char *s);

/* tool_pprof_sample_type appends a sample_type (one per value of a sample). */
void tool_pprof_sample_type(struct tool_pprof *p, int64_t type, int64_t unit);
/* tool_pprof_period sets period_type and period. */
void tool_pprof_period(struct tool_pprof *p, int64_t type, int64_t unit, int64_t period);
void tool_pprof_default_sample_type(struct tool_pprof *p, int64_t type);
/* tool_pprof_sample_types appends n sample types, each {name, unit}, and makes
 * the one at index dflt the default. */
void tool_pprof_sample_types(struct tool_pprof *p, const char *const types[][2], int n, int dflt);
void tool_pprof_time(struct tool_pprof *p, int64_t time_nanos, int64_t duration_nanos);
void tool_pprof_comment(struct tool_pprof *p, int64_t str);

/* tool_pprof_mapping appends a mapping whose locations are all symbolized
 * (functions, file names, lines and inline frames present), so pprof does
 * not look for the binary. */
void tool_pprof_mapping(struct tool_pprof *p, uint64_t id, uint64_t start, uint64_t limit, int64_t filename);

void tool_pprof_function(struct tool_pprof *p, uint64_t id, int64_t name, int64_t system_name,
		         int64_t filename, int64_t start_line);
/* tool_pprof_location appends a location with one line (function_id, line). */
void tool_pprof_location(struct tool_pprof *p, uint64_t id, uint64_t mapping_id, uint64_t address,
		         uint64_t function_id, int64_t line);
/* tool_pprof_sample appends a sample: locations leaf first, one value per
 * sample_type, optional labels. */
void tool_pprof_sample(struct tool_pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values,
		       size_t nvalues, const struct tool_pprof_label *labels, size_t nlabels);

/* tool_pprof_failed tells whether an allocation failed on the way. */
static inline bool tool_pprof_failed(const struct tool_pprof *p)
{
	return p->out.failed || p->msg.failed || p->sub.failed;
}

#endif
