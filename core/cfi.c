/* cfi.c — reading .eh_frame_hdr, FDEs and CIEs, and running their CFA
 * programs up to one address (x86-64, what gcc and clang emit).
 *
 * Every read goes through struct rd, which refuses to leave the range it
 * was given: a bad table, a truncated FDE or a pointer out of the module
 * gives GT_RULE_STOP (or GT_RULE_NOCFI when no FDE covers the address),
 * never a fault. Stack use: one CFA state (~40 bytes) plus a
 * remember_state stack of RS_DEPTH copies. */
#include "cfi.h"

#include <string.h>

/* DWARF registers (x86-64 psABI numbering). */
#define REG_RBP 6
#define REG_RSP 7

/* Pointer encodings (DW_EH_PE_*). */
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_DATAREL 0x30
#define PE_ALIGNED 0x50
#define PE_INDIRECT 0x80
#define PE_OMIT 0xff

/* A bounded reader: bad is set (and stays set) by any read past end. */
struct rd {
	uintptr_t p, end;
	int bad;
};

static inline int rd_has(struct rd *r, uintptr_t n)
{
	if (r->bad || r->p > r->end || r->end - r->p < n) {
		r->bad = 1;
		return 0;
	}
	return 1;
}

static uint64_t rd_fixed(struct rd *r, unsigned n)
{
	if (!rd_has(r, n))
		return 0;
	uint64_t v = 0;
	switch (n) {
	case 1: v = *(const uint8_t *)r->p; break;
	case 2: { uint16_t x; memcpy(&x, (const void *)r->p, 2); v = x; break; }
	case 4: { uint32_t x; memcpy(&x, (const void *)r->p, 4); v = x; break; }
	case 8: memcpy(&v, (const void *)r->p, 8); break;
	}
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		if (!rd_has(r, 1))
			return 0;
		uint8_t b = *(const uint8_t *)r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift > 70) { /* absurdly long: treat as corrupt */
			r->bad = 1;
			return 0;
		}
	}
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		if (!rd_has(r, 1))
			return 0;
		b = *(const uint8_t *)r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (shift > 77) {
			r->bad = 1;
			return 0;
		}
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* rd_ptr reads a pointer in encoding enc. datarel is the base for
 * DW_EH_PE_datarel (the .eh_frame_hdr); indirect pointers must point
 * inside [ind_lo, ind_hi). */
static uintptr_t rd_ptr(struct rd *r, uint8_t enc, uintptr_t datarel, uintptr_t ind_lo, uintptr_t ind_hi)
{
	if (enc == PE_OMIT) {
		r->bad = 1;
		return 0;
	}
	if ((enc & 0x70) == PE_ALIGNED) {
		uintptr_t a = (r->p + 7) & ~(uintptr_t)7;
		if (a < r->p || a > r->end) {
			r->bad = 1;
			return 0;
		}
		r->p = a;
	}
	uintptr_t at = r->p;
	uint64_t v;
	switch (enc & 0x0f) {
	case PE_ABSPTR: v = rd_fixed(r, 8); break;
	case PE_ULEB128: v = rd_uleb(r); break;
	case PE_UDATA2: v = rd_fixed(r, 2); break;
	case PE_UDATA4: v = rd_fixed(r, 4); break;
	case PE_UDATA8: v = rd_fixed(r, 8); break;
	case PE_SLEB128: v = (uint64_t)rd_sleb(r); break;
	case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)rd_fixed(r, 2); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)rd_fixed(r, 4); break;
	case PE_SDATA8: v = rd_fixed(r, 8); break;
	default: r->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case PE_ABSPTR: case PE_ALIGNED: break;
	case PE_PCREL: v += at; break;
	case PE_DATAREL: v += datarel; break;
	default: r->bad = 1; return 0; /* textrel, funcrel: not on x86-64 */
	}
	if (enc & PE_INDIRECT) {
		if (v < ind_lo || v > ind_hi || ind_hi - v < 8) {
			r->bad = 1;
			return 0;
		}
		memcpy(&v, (const void *)(uintptr_t)v, 8);
	}
	return (uintptr_t)v;
}

/* Size of a fixed-size encoding, 0 for variable or unknown ones. */
static unsigned enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case PE_ABSPTR: case PE_UDATA8: case PE_SDATA8: return 8;
	case PE_UDATA4: case PE_SDATA4: return 4;
	case PE_UDATA2: case PE_SDATA2: return 2;
	default: return 0;
	}
}

int gt_cfi_src_init(struct gt_cfi_src *s, uintptr_t hdr, size_t len)
{
	memset(s, 0, sizeof *s);
	struct rd r = { hdr, hdr + len, 0 };
	if (hdr + len < hdr)
		return -1;
	uint8_t version = (uint8_t)rd_fixed(&r, 1);
	uint8_t ptr_enc = (uint8_t)rd_fixed(&r, 1);
	uint8_t count_enc = (uint8_t)rd_fixed(&r, 1);
	uint8_t tenc = (uint8_t)rd_fixed(&r, 1);
	if (r.bad || version != 1 || count_enc == PE_OMIT || tenc == PE_OMIT)
		return -1;
	uintptr_t eh = rd_ptr(&r, ptr_enc, hdr, 0, 0);
	uint64_t count = rd_ptr(&r, count_enc, hdr, 0, 0);
	if (r.bad || count == 0 || count > UINT32_MAX)
		return -1;
	/* Binary search needs fixed-size entries, absolute or datarel. */
	unsigned size = enc_size(tenc);
	if ((size != 4 && size != 8) || (tenc & PE_INDIRECT) ||
	    ((tenc & 0x70) != PE_DATAREL && (tenc & 0x70) != PE_ABSPTR))
		return -1;
	if ((r.end - r.p) / (2 * size) < count)
		return -1;
	s->hdr = hdr;
	s->hdr_end = hdr + len;
	s->table = r.p;
	s->count = (uint32_t)count;
	s->tenc = tenc;
	s->tsize = (uint8_t)size;
	s->eh = eh;
	return 0;
}

/* Field i (0: initial location, 1: FDE address) of table entry k. */
static uintptr_t table_field(const struct gt_cfi_src *s, uint32_t k, int i)
{
	struct rd r = { s->table + ((uintptr_t)k * 2 + (uintptr_t)i) * s->tsize, s->hdr_end, 0 };
	return rd_ptr(&r, s->tenc, s->hdr, 0, 0);
}

/* find_fde: the address of the table's last FDE starting at or before pc,
 * or 0. */
static uintptr_t find_fde(const struct gt_cfi_src *s, uintptr_t pc)
{
	if (!s->count)
		return 0;
	uint32_t lo = 0, hi = s->count; /* answer in [lo, hi) */
	if (table_field(s, 0, 0) > pc)
		return 0;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (table_field(s, mid, 0) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return table_field(s, lo, 1);
}

/* One CIE, as far as an FDE needs it. */
struct cie {
	uintptr_t insns, insns_end;
	uint32_t code_align;
	int32_t data_align;
	uint8_t ra_reg;
	uint8_t fde_enc;
	uint8_t has_z;
};

/* One FDE: the code it covers and its CFA program. */
struct fde {
	uintptr_t lo, hi, insns, insns_end;
	struct cie cie;
};

/* entry_header reads an entry's length at r->p: sets *end to its end and
 * returns 0, -1 on a bad or terminating entry. */
static int entry_header(struct rd *r, uintptr_t *end)
{
	uint64_t len = rd_fixed(r, 4);
	if (len == 0xffffffffu)
		len = rd_fixed(r, 8);
	if (r->bad || len == 0 || len > r->end - r->p)
		return -1;
	*end = r->p + len;
	return 0;
}

static int parse_cie(const struct gt_cfi_src *s, uintptr_t at, struct cie *c)
{
	struct rd r = { at, s->eh_hi, 0 };
	if (at < s->eh_lo)
		return -1;
	uintptr_t end;
	if (entry_header(&r, &end) != 0)
		return -1;
	r.end = end;
	if (rd_fixed(&r, 4) != 0) /* the CIE id in .eh_frame */
		return -1;
	uint8_t version = (uint8_t)rd_fixed(&r, 1);
	if (version != 1 && version != 3)
		return -1;
	const char *aug = (const char *)r.p;
	size_t alen = 0;
	while (rd_has(&r, 1) && *(const uint8_t *)r.p != 0) {
		r.p++;
		alen++;
	}
	if (!rd_has(&r, 1))
		return -1;
	r.p++; /* the NUL */
	if (alen >= 2 && aug[0] == 'e' && aug[1] == 'h')
		return -1; /* an ancient gcc's extra pointer: not emitted any more */
	uint64_t code_align = rd_uleb(&r);
	int64_t data_align = rd_sleb(&r);
	uint64_t ra_reg = version == 1 ? rd_fixed(&r, 1) : rd_uleb(&r);
	if (code_align == 0 || code_align > UINT32_MAX || data_align < INT32_MIN || data_align > INT32_MAX ||
	    ra_reg > 255)
		return -1;
	c->code_align = (uint32_t)code_align;
	c->data_align = (int32_t)data_align;
	c->ra_reg = (uint8_t)ra_reg;
	c->fde_enc = PE_ABSPTR;
	c->has_z = alen > 0 && aug[0] == 'z';
	if (c->has_z) {
		uint64_t dlen = rd_uleb(&r);
		if (r.bad || dlen > r.end - r.p)
			return -1;
		uintptr_t dend = r.p + dlen;
		struct rd d = { r.p, dend, 0 };
		for (size_t i = 1; i < alen && !d.bad; i++) {
			char ch = aug[i];
			if (ch == 'R') {
				c->fde_enc = (uint8_t)rd_fixed(&d, 1);
			} else if (ch == 'P') {
				uint8_t penc = (uint8_t)rd_fixed(&d, 1);
				rd_ptr(&d, (uint8_t)(penc & 0x7f), 0, 0, 0); /* skipped, never followed */
			} else if (ch == 'L') {
				rd_fixed(&d, 1);
			} else if (ch == 'S' || ch == 'B' || ch == 'G') {
				/* signal frame / AArch64 keys / MTE: no data */
			} else {
				break; /* unknown: the rest of the data is skipped */
			}
		}
		if (d.bad)
			return -1;
		r.p = dend;
	} else if (alen > 0) {
		return -1; /* augmentation data of unknown length */
	}
	if (r.bad)
		return -1;
	c->insns = r.p;
	c->insns_end = end;
	return 0;
}

/* A register's rule while interpreting. */
enum { R_SAME, R_UNDEF, R_AT, R_VAL, R_OTHER, R_AT_RBP };

struct reg_rule {
	int32_t off; /* bytes from the CFA for R_AT / R_VAL */
	uint8_t how;
};

/* Kept small: the interpreter runs on the program's stack. */
struct state {
	int64_t cfa_off;
	struct reg_rule rbp, ra;
	uint8_t cfa_reg;
	uint8_t cfa_how; /* 0 reg + off, 1 *(reg + off), 2 unsupported */
};

#define RS_DEPTH 2 /* gcc and clang nest remember_state once */

struct interp {
	struct state cur, init;
	struct state saved[RS_DEPTH];
	unsigned depth;
	int failed;
	const struct cie *cie;
};

/* set_rule: a register saved at (or equal to, R_VAL) CFA + n * align;
 * offsets that do not fit make the register unknown. */
static void set_rule(struct reg_rule *rr, uint8_t how, int64_t n, int64_t align)
{
	int64_t off;
	if (__builtin_mul_overflow(n, align, &off) || off < INT32_MIN || off > INT32_MAX) {
		rr->how = R_OTHER;
		return;
	}
	rr->how = how;
	rr->off = (int32_t)off;
}

/* set_cfa_off: the CFA offset n * align (unsupported when absurd). */
static void set_cfa_off(struct state *st, int64_t n, int64_t align)
{
	if (__builtin_mul_overflow(n, align, &st->cfa_off))
		st->cfa_how = 2;
}

static struct reg_rule *reg_of(struct interp *in, uint64_t reg)
{
	if (reg == REG_RBP)
		return &in->cur.rbp;
	if (reg == in->cie->ra_reg)
		return &in->cur.ra;
	return NULL; /* a register the walk does not track */
}

/* run interprets the CFA program [p, end) from code address loc, stopping
 * before the first row that starts after pc. */
static void run(struct interp *in, const struct gt_cfi_src *s, uintptr_t p, uintptr_t end, uintptr_t loc,
		uintptr_t pc)
{
	struct rd r = { p, end, 0 };
	const struct cie *c = in->cie;
	while (!in->failed && r.p < r.end) {
		uint8_t op = (uint8_t)rd_fixed(&r, 1);
		uint64_t delta = 0, reg, off;
		int64_t soff;
		struct reg_rule *rr;
		int advance = 0;
		switch (op >> 6) {
		case 1: /* DW_CFA_advance_loc */
			delta = op & 0x3f;
			advance = 1;
			break;
		case 2: /* DW_CFA_offset */
			off = rd_uleb(&r);
			if ((rr = reg_of(in, op & 0x3f)) != NULL)
				set_rule(rr, R_AT, (int64_t)off, c->data_align);
			break;
		case 3: /* DW_CFA_restore */
			if ((op & 0x3f) == REG_RBP)
				in->cur.rbp = in->init.rbp;
			else if ((op & 0x3f) == c->ra_reg)
				in->cur.ra = in->init.ra;
			break;
		default:
			switch (op) {
			case 0x00: /* nop */
				break;
			case 0x01: { /* set_loc */
				uintptr_t nl = rd_ptr(&r, c->fde_enc, 0, s->eh_lo, s->eh_hi);
				if (r.bad)
					break;
				if (nl > pc)
					return;
				loc = nl;
				break;
			}
			case 0x02: delta = rd_fixed(&r, 1); advance = 1; break;
			case 0x03: delta = rd_fixed(&r, 2); advance = 1; break;
			case 0x04: delta = rd_fixed(&r, 4); advance = 1; break;
			case 0x05: /* offset_extended */
				reg = rd_uleb(&r);
				off = rd_uleb(&r);
				if ((rr = reg_of(in, reg)) != NULL)
					set_rule(rr, R_AT, (int64_t)off, c->data_align);
				break;
			case 0x06: /* restore_extended */
				reg = rd_uleb(&r);
				if (reg == REG_RBP)
					in->cur.rbp = in->init.rbp;
				else if (reg == c->ra_reg)
					in->cur.ra = in->init.ra;
				break;
			case 0x07: /* undefined */
				if ((rr = reg_of(in, rd_uleb(&r))) != NULL)
					rr->how = R_UNDEF;
				break;
			case 0x08: /* same_value */
				if ((rr = reg_of(in, rd_uleb(&r))) != NULL)
					rr->how = R_SAME;
				break;
			case 0x09: /* register */
				reg = rd_uleb(&r);
				rd_uleb(&r);
				if ((rr = reg_of(in, reg)) != NULL)
					rr->how = R_OTHER;
				break;
			case 0x0a: /* remember_state */
				if (in->depth >= RS_DEPTH) {
					in->failed = 1;
					break;
				}
				in->saved[in->depth++] = in->cur;
				break;
			case 0x0b: /* restore_state */
				if (in->depth == 0) {
					in->failed = 1;
					break;
				}
				in->cur = in->saved[--in->depth]; /* the CFA rule too, as gcc needs */
				break;
			case 0x0c: /* def_cfa */
				reg = rd_uleb(&r);
				in->cur.cfa_reg = reg < 16 ? (uint8_t)reg : 255;
				in->cur.cfa_off = (int64_t)rd_uleb(&r);
				in->cur.cfa_how = 0;
				break;
			case 0x0d: /* def_cfa_register */
				reg = rd_uleb(&r);
				in->cur.cfa_reg = reg < 16 ? (uint8_t)reg : 255;
				if (in->cur.cfa_how == 1)
					in->cur.cfa_how = 2; /* undefined by DWARF after an expression */
				break;
			case 0x0e: /* def_cfa_offset */
				in->cur.cfa_off = (int64_t)rd_uleb(&r);
				if (in->cur.cfa_how == 1)
					in->cur.cfa_how = 2;
				break;
			case 0x0f: { /* def_cfa_expression */
				uint64_t n = rd_uleb(&r);
				if (r.bad || n > r.end - r.p) {
					r.bad = 1;
					break;
				}
				/* gcc's realigned frames: DW_OP_breg6 (rbp) off;
				 * DW_OP_deref. Anything else stops the walk. */
				struct rd e = { r.p, r.p + n, 0 };
				r.p += n;
				in->cur.cfa_how = 2;
				if (rd_fixed(&e, 1) == 0x76) { /* DW_OP_breg6 */
					int64_t o = rd_sleb(&e);
					if (rd_fixed(&e, 1) == 0x06 && !e.bad && e.p == e.end) { /* DW_OP_deref */
						in->cur.cfa_reg = REG_RBP;
						in->cur.cfa_off = o;
						in->cur.cfa_how = 1;
					}
				}
				break;
			}
			case 0x10:   /* expression */
			case 0x16: { /* val_expression */
				reg = rd_uleb(&r);
				uint64_t n = rd_uleb(&r);
				if (r.bad || n > r.end - r.p) {
					r.bad = 1;
					break;
				}
				struct rd e = { r.p, r.p + n, 0 };
				r.p += n;
				if ((rr = reg_of(in, reg)) == NULL)
					break;
				rr->how = R_OTHER;
				/* gcc's realigned frames save rbp at rbp + off:
				 * DW_OP_breg6 off. */
				if (op == 0x10 && reg == REG_RBP && rd_fixed(&e, 1) == 0x76) {
					int64_t o = rd_sleb(&e);
					if (!e.bad && e.p == e.end)
						set_rule(rr, R_AT_RBP, o, 1);
				}
				break;
			}
			case 0x11: /* offset_extended_sf */
				reg = rd_uleb(&r);
				soff = rd_sleb(&r);
				if ((rr = reg_of(in, reg)) != NULL)
					set_rule(rr, R_AT, soff, c->data_align);
				break;
			case 0x12: /* def_cfa_sf */
				reg = rd_uleb(&r);
				in->cur.cfa_reg = reg < 16 ? (uint8_t)reg : 255;
				in->cur.cfa_how = 0;
				set_cfa_off(&in->cur, rd_sleb(&r), c->data_align);
				break;
			case 0x13: /* def_cfa_offset_sf */
				if (in->cur.cfa_how == 1)
					in->cur.cfa_how = 2;
				set_cfa_off(&in->cur, rd_sleb(&r), c->data_align);
				break;
			case 0x14: /* val_offset */
				reg = rd_uleb(&r);
				off = rd_uleb(&r);
				if ((rr = reg_of(in, reg)) != NULL)
					set_rule(rr, R_VAL, (int64_t)off, c->data_align);
				break;
			case 0x15: /* val_offset_sf */
				reg = rd_uleb(&r);
				soff = rd_sleb(&r);
				if ((rr = reg_of(in, reg)) != NULL)
					set_rule(rr, R_VAL, soff, c->data_align);
				break;
			case 0x2e: /* GNU_args_size: only landing pads care */
				rd_uleb(&r);
				break;
			case 0x2f: /* GNU_negative_offset_extended */
				reg = rd_uleb(&r);
				off = rd_uleb(&r);
				if ((rr = reg_of(in, reg)) != NULL)
					set_rule(rr, R_AT, -(int64_t)off, c->data_align);
				break;
			default:
				in->failed = 1; /* an op of another architecture or a newer DWARF */
				break;
			}
		}
		if (r.bad) {
			in->failed = 1;
			return;
		}
		if (advance) {
			uint64_t step = delta * c->code_align;
			if (step > pc - loc || loc > pc)
				return; /* the next row starts after pc */
			loc += step;
		}
	}
}

static gt_rule_t make_rule(const struct state *st)
{
	const gt_rule_t stop = GT_RULE_STOP;
	if (st->cfa_how == 2 || (st->cfa_reg != REG_RBP && st->cfa_reg != REG_RSP))
		return stop;
	if (st->cfa_off < -((int64_t)1 << 29) || st->cfa_off >= ((int64_t)1 << 29))
		return stop;
	if (st->ra.how != R_AT || st->ra.off % 8 != 0 || st->ra.off / 8 < -128 || st->ra.off / 8 > 127)
		return stop; /* undefined: the outermost frame; or unusual */
	unsigned rbp = GT_RBP_UNKNOWN;
	int64_t rbp_off = 0;
	switch (st->rbp.how) {
	case R_SAME: rbp = GT_RBP_SAME; break;
	case R_AT: rbp = GT_RBP_AT; rbp_off = st->rbp.off; break;
	case R_VAL: rbp = GT_RBP_VAL; rbp_off = st->rbp.off; break;
	case R_AT_RBP: rbp = GT_RBP_AT_RBP; rbp_off = st->rbp.off; break;
	default: break;
	}
	if (rbp >= GT_RBP_AT && (rbp_off % 8 != 0 || rbp_off / 8 < -(1 << 14) || rbp_off / 8 >= (1 << 14))) {
		rbp = GT_RBP_UNKNOWN;
		rbp_off = 0;
	}
	return (gt_rule_t)GT_RULE_CFI | (gt_rule_t)st->cfa_reg << 3 | (gt_rule_t)(st->cfa_how == 1) << 7 |
	       (gt_rule_t)rbp << 8 | ((gt_rule_t)(uint16_t)(int16_t)(rbp_off / 8) & 0x7fff) << 11 |
	       (gt_rule_t)(uint8_t)(int8_t)(st->ra.off / 8) << 26 | (gt_rule_t)st->cfa_off << 34;
}

/* fde_at parses the FDE at fde: its CIE, range and instructions. */
static int fde_at(const struct gt_cfi_src *s, uintptr_t fde, struct fde *f)
{
	if (fde < s->eh_lo || fde >= s->eh_hi)
		return -1;
	struct rd r = { fde, s->eh_hi, 0 };
	uintptr_t end;
	if (entry_header(&r, &end) != 0)
		return -1;
	r.end = end;
	uintptr_t idpos = r.p;
	uint32_t cie_off = (uint32_t)rd_fixed(&r, 4);
	if (r.bad || cie_off == 0 || cie_off > idpos)
		return -1;
	if (parse_cie(s, idpos - cie_off, &f->cie) != 0)
		return -1;
	uintptr_t begin = rd_ptr(&r, f->cie.fde_enc, 0, s->eh_lo, s->eh_hi);
	uintptr_t range = rd_ptr(&r, (uint8_t)(f->cie.fde_enc & 0x0f), 0, 0, 0);
	if (f->cie.has_z) {
		uint64_t n = rd_uleb(&r);
		if (!r.bad && n <= r.end - r.p)
			r.p += n;
		else
			r.bad = 1;
	}
	if (r.bad)
		return -1;
	f->lo = begin;
	f->hi = begin + range;
	f->insns = r.p;
	f->insns_end = end;
	return 0;
}

int gt_cfi_fde(const struct gt_cfi_src *s, uintptr_t pc, uintptr_t *lo, uintptr_t *hi)
{
	struct fde f;
	uintptr_t at = find_fde(s, pc);
	if (!at || fde_at(s, at, &f) != 0 || pc < f.lo || pc >= f.hi)
		return -1;
	*lo = f.lo;
	*hi = f.hi;
	return 0;
}

/* What struct gt_cfi_work holds. */
struct work {
	struct fde f;
	struct interp in;
};
_Static_assert(sizeof(struct work) <= sizeof(struct gt_cfi_work), "struct gt_cfi_work is too small");

gt_rule_t gt_cfi_rule(const struct gt_cfi_src *s, uintptr_t pc, struct gt_cfi_work *space)
{
	struct work *wk = (struct work *)(void *)space;
	struct fde *f = &wk->f;
	struct interp *in = &wk->in;
	uintptr_t at = find_fde(s, pc);
	if (!at)
		return GT_RULE_NOCFI;
	if (fde_at(s, at, f) != 0)
		return GT_RULE_STOP;
	if (pc < f->lo || pc >= f->hi)
		return GT_RULE_NOCFI; /* a gap between functions: code without CFI */
	memset(in, 0, sizeof *in);
	in->cie = &f->cie;
	in->cur.ra.how = R_SAME; /* until the CIE says where it is */
	run(in, s, f->cie.insns, f->cie.insns_end, f->lo, UINTPTR_MAX);
	in->init = in->cur;
	in->depth = 0;
	run(in, s, f->insns, f->insns_end, f->lo, pc);
	if (in->failed)
		return GT_RULE_STOP;
	return make_rule(&in->cur);
}
