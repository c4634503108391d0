/* cfi.h — x86-64 call frame information (.eh_frame_hdr / .eh_frame) read
 * into one compact rule per code address: how to find the caller's frame.
 *
 * Pure: no global state, no system call, no allocation. Every byte read
 * lies inside the ranges the caller vouches for (struct gt_cfi_src): the
 * module's mapped .eh_frame_hdr and the readable segment that holds its
 * .eh_frame. Anything this reader does not understand gives a rule that
 * stops the walk (GT_RULE_STOP), never a guess. */
#ifndef GT_CFI_H
#define GT_CFI_H

#include <stddef.h>
#include <stdint.h>

/* Where one module's CFI lies, from its PT_GNU_EH_FRAME segment. */
struct gt_cfi_src {
	uintptr_t hdr, hdr_end; /* .eh_frame_hdr */
	uintptr_t table;        /* its sorted (initial location, FDE) pairs */
	uint32_t count;         /* pairs */
	uint8_t tenc;           /* their pointer encoding (fixed size) */
	uint8_t tsize;          /* bytes of one field: 4 or 8 */
	uintptr_t eh;           /* .eh_frame, as the header says */
	uintptr_t eh_lo, eh_hi; /* readable bytes holding .eh_frame: FDEs and
	                         * CIEs are read only there (set by the caller) */
};

/* gt_cfi_src_init reads the .eh_frame_hdr at [hdr, hdr + len) (readable):
 * 0 when it has a binary search table this reader can use, -1 otherwise.
 * The caller then sets eh_lo and eh_hi: the readable segment holding eh. */
int gt_cfi_src_init(struct gt_cfi_src *s, uintptr_t hdr, size_t len);

/* A rule, 64 bits:
 *
 *   bits  0-2   kind (enum gt_rule_kind)
 *   bits  3-6   CFA register: 6 (rbp) or 7 (rsp), DWARF numbering
 *   bit   7     CFA = *(register + offset) (gcc's realigned frames:
 *               DW_OP_breg6 off; DW_OP_deref) instead of register + offset
 *   bits  8-10  rbp of the caller: 0 same value, 1 unknown, 2 saved at
 *               CFA + rbp_off * 8, 3 equal to CFA + rbp_off * 8, 4 saved
 *               at rbp + rbp_off * 8 (gcc's realigned frames)
 *   bits 11-25  rbp_off (signed)
 *   bits 26-33  ra_off (signed): the return address is saved at
 *               CFA + ra_off * 8
 *   bits 34-63  CFA offset in bytes (signed)
 *
 * 0 is no rule at all (a cache uses it for empty). */
typedef uint64_t gt_rule_t;

enum gt_rule_kind {
	GT_RULE_CFI = 1,       /* the fields above say how to step */
	GT_RULE_NOCFI = 2,     /* no FDE covers the address: frame pointer, maybe */
	GT_RULE_STOP = 3,      /* the outermost frame (return address undefined),
	                        * or CFI this reader does not follow */
	GT_RULE_SIGRETURN = 4, /* the rt_sigreturn trampoline: a signal frame */
};

enum { GT_RBP_SAME = 0, GT_RBP_UNKNOWN = 1, GT_RBP_AT = 2, GT_RBP_VAL = 3, GT_RBP_AT_RBP = 4 };

static inline unsigned gt_rule_kind(gt_rule_t r) { return (unsigned)(r & 7); }
static inline unsigned gt_rule_cfa_reg(gt_rule_t r) { return (unsigned)(r >> 3) & 15; }
static inline int gt_rule_cfa_deref(gt_rule_t r) { return (int)(r >> 7) & 1; }
static inline unsigned gt_rule_rbp(gt_rule_t r) { return (unsigned)(r >> 8) & 7; }
static inline int64_t gt_rule_rbp_off(gt_rule_t r) { return (int64_t)((int16_t)(uint16_t)(r >> 10) >> 1) * 8; }
static inline int64_t gt_rule_ra_off(gt_rule_t r) { return (int64_t)(int8_t)(uint8_t)(r >> 26) * 8; }
static inline int64_t gt_rule_cfa_off(gt_rule_t r) { return (int64_t)r >> 34; }

static inline gt_rule_t gt_rule_simple(unsigned kind) { return kind; }

/* Working memory of gt_cfi_rule (the FDE and the interpreter's states),
 * given by the caller so that it need not be on the program's stack. */
struct gt_cfi_work {
	uint64_t space[32];
};

/* gt_cfi_rule returns the rule in effect at code address pc of the module
 * s describes: pc is an exact instruction address (the interrupted
 * instruction of a signal frame) or a return address minus 1. Never
 * GT_RULE_SIGRETURN (the caller recognizes the trampoline by its code).
 * Stack: 96 bytes here and at most 288 below (-fstack-usage, gcc 12). */
gt_rule_t gt_cfi_rule(const struct gt_cfi_src *s, uintptr_t pc, struct gt_cfi_work *work);

/* gt_cfi_fde finds the FDE that covers pc: 0 and its range [*lo, *hi), or
 * -1 (for tests and diagnostics). */
int gt_cfi_fde(const struct gt_cfi_src *s, uintptr_t pc, uintptr_t *lo, uintptr_t *hi);

/* The bytes of glibc's x86-64 __restore_rt: mov $15, %rax; syscall. */
#define GT_SIGRETURN_CODE "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05"
#define GT_SIGRETURN_LEN 9

#endif
