/* config.h — the GOTRACE_* option table: defaults, parsing, validation, help text.
 *
 * Pure: no globals, no getenv, no allocation, no stdio. The library reads the
 * options once in its constructor (gt_config_load with secure_getenv); the
 * gotrace tool validates its flags with gt_config_set and prints `gotrace
 * help` from gt_config_options, so the documentation and the parser share one
 * table. A bad value is named in exactly one warning line and the option keeps
 * its default. An empty value counts as unset. */
#ifndef GT_CONFIG_H
#define GT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum gt_opt {
	GT_OPT_OUT,     /* GOTRACE_OUT */
	GT_OPT_STACKS,  /* GOTRACE_STACKS */
	GT_OPT_PERIOD,  /* GOTRACE_PERIOD */
	GT_OPT_FORMAT,  /* GOTRACE_FORMAT */
	GT_OPT_MALLOC,  /* GOTRACE_MALLOC */
	GT_OPT_FLIGHT,  /* GOTRACE_FLIGHT */
	GT_OPT_FLIGHT_SIGNAL, /* GOTRACE_FLIGHT_SIGNAL */
	GT_OPT_BUFFER,  /* GOTRACE_BUFFER */
	GT_OPT_CLOCK,   /* GOTRACE_CLOCK */
	GT_OPT_DEADLOCK, /* GOTRACE_DEADLOCK */
	GT_OPT_CPU,     /* GOTRACE_CPU */
	GT_OPT_COUNT
};

#define GT_CONFIG_OUT_MAX   4096                   /* bytes of GOTRACE_OUT, NUL included */
#define GT_CONFIG_STACKS_MAX 128                   /* frames; Go's own limit */
#define GT_CONFIG_PERIOD_MIN_NS 1000000ull          /* 1ms */
#define GT_CONFIG_PERIOD_MAX_NS 3600000000000ull    /* 1h */
#define GT_CONFIG_FLIGHT_MIN_BYTES (1ull << 20)        /* 1 MiB */
#define GT_CONFIG_FLIGHT_MAX_BYTES (64ull << 30)       /* 64 GiB */
#define GT_CONFIG_FLIGHT_DEFAULT_BYTES (256ull << 20)  /* cap of a window given alone */
#define GT_CONFIG_BUFFER_MIN_BYTES (1ull << 20)        /* 1 MiB */
#define GT_CONFIG_BUFFER_MAX_BYTES (64ull << 30)       /* 64 GiB */
#define GT_CONFIG_MALLOC_MIN_BYTES 128ull            /* mean of sampled heap recording */
#define GT_CONFIG_MALLOC_MAX_BYTES (1ull << 30)       /* 1 GiB */
#define GT_CONFIG_MALLOC_DEFAULT_BYTES 2048ull        /* GOTRACE_MALLOC=sample */
#define GT_CONFIG_DEADLOCK_MIN_NS 1000000ull        /* 1ms */
#define GT_CONFIG_DEADLOCK_MAX_NS 3600000000000ull  /* 1h */
#define GT_CONFIG_CPU_MIN_NS 100000ull            /* 10 kHz */
#define GT_CONFIG_CPU_MAX_NS 1000000000ull         /* 1 Hz */
#define GT_CONFIG_LINE_MAX  256                    /* longest warning line, NUL included */

/* gt_config holds every option's effective value. */
struct gt_config {
	char out[GT_CONFIG_OUT_MAX]; /* output path pattern; %p not expanded yet */
	uint32_t stacks;             /* max frames per stack, 0 = no stacks */
	uint64_t period_ns;          /* generation length */
	uint32_t format;             /* trace header version: 23 or 26 */
	bool malloc_events;          /* heap alloc/free events on */
	uint64_t malloc_sample;      /* mean bytes between samples; 0 = every allocation */
	uint64_t flight_ns;          /* flight recorder window, 0 = none */
	uint64_t flight_bytes;       /* flight recorder size cap, 0 = recorder off */
	int flight_signal;           /* snapshot signal: 10, 12 or 34..64; 0 = none */
	uint64_t buffer_bytes;       /* unwritten-event memory before threads wait */
	bool clock_monotonic;        /* GOTRACE_CLOCK=monotonic: never the TSC */
	uint64_t deadlock_ns;        /* GOTRACE_DEADLOCK threshold, 0 = off */
	bool deadlock_abort;         /* GOTRACE_DEADLOCK=...,abort: abort() after the report */
	uint64_t cpu_period_ns;      /* GOTRACE_CPU: CPU time between samples, 0 = off */
};

/* gt_option_desc describes one option: what `gotrace help` prints and what a
 * warning says. Parse through gt_config_set, not through .parse directly. */
struct gt_option_desc {
	const char *name;   /* environment variable, e.g. "GOTRACE_STACKS" */
	const char *def;    /* default as a user would write it, e.g. "32" */
	const char *help;   /* one line, no trailing period */
	const char *expect; /* completes `is not ...`, e.g. "a number from 0 to 128" */
	int (*parse)(struct gt_config *c, const char *value); /* 0, or -1 with c untouched */
};

/* gt_config_options is indexed by enum gt_opt. */
extern const struct gt_option_desc gt_config_options[GT_OPT_COUNT];

/* Same shape as getenv and secure_getenv: NULL when the variable is unset. */
typedef char *(*gt_config_lookup_fn)(const char *name);
/* Receives one complete line, "gotrace: ...\n", ready for a single write(2). */
typedef void (*gt_config_warn_fn)(const char *line, void *arg);

/* gt_config_defaults fills c with every option's default. */
void gt_config_defaults(struct gt_config *c);

/* gt_config_set parses value as option opt into c. Returns 0, or -1 when the
 * value is bad (c is then unchanged). An empty value is bad here. */
int gt_config_set(struct gt_config *c, enum gt_opt opt, const char *value);

/* gt_config_load fills c with defaults, then looks up every option's variable.
 * Each bad value produces exactly one warn line, e.g.
 *   gotrace: GOTRACE_STACKS="abc" is not a number from 0 to 128; using 32
 * and leaves that option at its default. Unset or empty variables are skipped
 * silently. warn may be NULL. Returns the number of bad values. */
int gt_config_load(struct gt_config *c, gt_config_lookup_fn lookup,
		   gt_config_warn_fn warn, void *warn_arg);

/* gt_config_expand_out writes pattern into buf with "%p" replaced by pid and
 * "%%" by "%". Returns 0, or -1 when buf is too small or the pattern has any
 * other '%' sequence (buf then holds "" if buflen > 0). */
int gt_config_expand_out(const char *pattern, pid_t pid, char *buf, size_t buflen);

/* gt_config_quote writes value as a double-quoted string for a message:
 * '"' and '\\' escaped, control bytes as \xNN, at most 64 characters between
 * the quotes, then "..." if cut. Always NUL-terminates when len > 0 (96 bytes
 * always suffice); returns the length written, not counting the NUL. */
size_t gt_config_quote(const char *value, char *buf, size_t len);

#endif
