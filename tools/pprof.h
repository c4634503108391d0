/* pprof.h — writes pprof profiles (profile.proto, uncompressed protobuf).
 *
 * Two layers: gt_pb appends protobuf fields to a growing buffer; gt_pprof
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
#ifndef GT_PPROF_H
#define GT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- protobuf ---- */

#define GT_PB_VARINT 0
#define GT_PB_LEN 2

struct gt_pb {
	uint8_t *buf;
	size_t len, cap;
	bool failed; /* an allocation failed; the content is incomplete */
};

static inline void gt_pb_init(struct gt_pb *b)
{
	b->buf = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}
void gt_pb_free(struct gt_pb *b);
static inline void gt_pb_reset(struct gt_pb *b) { b->len = 0; }

void gt_pb_raw(struct gt_pb *b, const void *p, size_t n);
void gt_pb_varint(struct gt_pb *b, uint64_t v);
void gt_pb_key(struct gt_pb *b, unsigned field, unsigned wire_type);
/* gt_pb_uint / gt_pb_int write a varint field; a 0 is left out (the proto3
 * default). Negative ints take 10 bytes (int64, not sint64). */
void gt_pb_uint(struct gt_pb *b, unsigned field, uint64_t v);
void gt_pb_int(struct gt_pb *b, unsigned field, int64_t v);
/* gt_pb_bytes writes a length-delimited field (always, even when empty). */
void gt_pb_bytes(struct gt_pb *b, unsigned field, const void *p, size_t n);
/* gt_pb_packed writes a packed repeated varint field; nothing when n = 0. */
void gt_pb_packed(struct gt_pb *b, unsigned field, const uint64_t *v, size_t n);
void gt_pb_packed_int(struct gt_pb *b, unsigned field, const int64_t *v, size_t n);

/* ---- profile.proto ---- */

struct gt_pprof {
	struct gt_pb out;   /* the Profile message so far */
	struct gt_pb msg;   /* scratch: the entry being built */
	struct gt_pb sub;   /* scratch: a message inside that entry */
	int64_t nstrings;   /* string_table entries written */
};

struct gt_pprof_label {
	int64_t key;        /* string index */
	int64_t str;        /* string index, or 0 */
	int64_t num;        /* numeric value when str = 0 */
	int64_t num_unit;   /* string index, or 0 */
};

/* gt_pprof_init starts a profile whose string table holds "" (index 0). */
void gt_pprof_init(struct gt_pprof *p);
void gt_pprof_free(struct gt_pprof *p);

/* gt_pprof_string appends a string_table entry and returns its index. */
int64_t gt_pprof_string(struct gt_pprof *p, const char *s, size_t len);
int64_t gt_pprof_cstring(struct gt_pprof *p, const char *s);

/* gt_pprof_sample_type appends a sample_type (one per value of a sample). */
void gt_pprof_sample_type(struct gt_pprof *p, int64_t type, int64_t unit);
/* gt_pprof_period sets period_type and period. */
void gt_pprof_period(struct gt_pprof *p, int64_t type, int64_t unit, int64_t period);
void gt_pprof_default_sample_type(struct gt_pprof *p, int64_t type);
void gt_pprof_time(struct gt_pprof *p, int64_t time_nanos, int64_t duration_nanos);
void gt_pprof_comment(struct gt_pprof *p, int64_t str);

/* gt_pprof_mapping appends a mapping whose locations are all symbolized
 * (functions, file names, lines and inline frames present), so pprof does
 * not look for the binary. */
void gt_pprof_mapping(struct gt_pprof *p, uint64_t id, uint64_t start, uint64_t limit, int64_t filename);

void gt_pprof_function(struct gt_pprof *p, uint64_t id, int64_t name, int64_t system_name,
		       int64_t filename, int64_t start_line);
/* gt_pprof_location appends a location with one line (function_id, line). */
void gt_pprof_location(struct gt_pprof *p, uint64_t id, uint64_t mapping_id, uint64_t address,
		       uint64_t function_id, int64_t line);
/* gt_pprof_sample appends a sample: locations leaf first, one value per
 * sample_type, optional labels. */
void gt_pprof_sample(struct gt_pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values,
		     size_t nvalues, const struct gt_pprof_label *labels, size_t nlabels);

/* gt_pprof_failed tells whether an allocation failed on the way. */
static inline bool gt_pprof_failed(const struct gt_pprof *p)
{
	return p->out.failed || p->msg.failed || p->sub.failed;
}

#endif
