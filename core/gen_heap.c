/* gen_heap.c — a closed generation's heap tables (gen_heap.h). */
#include "gen_heap.h"

#include "heapid.h"
#include "tracer.h"

struct type_dump {
	struct gt_gen_out *o;
	struct gt_batch b;
	int open;
	uint64_t gen, ts;
};

#define TYPE_ENTRY_MAX (5 * GT_UVARINT_MAX + 32)

static int type_room(struct type_dump *d)
{
	if (d->open && gt_batch_room(&d->b) >= TYPE_ENTRY_MAX)
		return 0;
	if (d->open)
		gt_gen_out_add(d->o, d->b.mem, gt_batch_finish(&d->b));
	uint8_t *mem = gt_gen_alloc(GT_GEN_BATCH_CAP);
	if (!mem)
		return -1;
	gt_batch_begin_exp(&d->b, mem, GT_GEN_BATCH_CAP, GT_EXP_ALLOCFREE, d->gen, GT_NO_THREAD, d->ts);
	gt_batch_byte(&d->b, GT_ALLOCFREE_TYPES);
	d->open = 1;
	return 0;
}

static void dump_type(void *ctx, uint64_t id, uint64_t size, uint64_t stack)
{
	struct type_dump *d = ctx;
	if (type_room(d) != 0)
		return;
	/* The name, "malloc <size>", without snprintf: node's pbkdf2 script
	 * recording every allocation writes 82,000 types, and snprintf was 64 of
	 * the table dump's 70 M instructions. */
	char name[32] = "malloc ";
	char digits[20];
	int nd = 0;
	uint64_t v = size;
	do
		digits[nd++] = (char)('0' + v % 10);
	while ((v /= 10) != 0 && nd < 20);
	int n = 7;
	while (nd > 0)
		name[n++] = digits[--nd];
	gt_batch_uvarint(&d->b, id);
	gt_batch_uvarint(&d->b, stack);
	gt_batch_uvarint(&d->b, size);
	gt_batch_uvarint(&d->b, 0);
	gt_batch_uvarint(&d->b, (uint64_t)n);
	gt_batch_bytes(&d->b, name, (size_t)n);
}

void gt_gen_heap_write(struct gt_gen_out *o, uint64_t old, uint64_t ts)
{
	if (!gt.malloc_events)
		return;
	uint8_t *mem = gt_gen_alloc(128);
	if (mem) {
		struct gt_batch b;
		gt_batch_begin_exp(&b, mem, 128, GT_EXP_ALLOCFREE, old, GT_NO_THREAD, ts);
		gt_batch_byte(&b, GT_ALLOCFREE_INFO);
		gt_batch_uvarint(&b, GT_HEAP_MIN_ADDR);
		gt_batch_uvarint(&b, 4096);
		gt_batch_uvarint(&b, GT_HEAP_ALIGN);
		gt_batch_uvarint(&b, GT_SPAN_PAGE); /* fixed_stack: GoroutineStack ids are base / page (core/spans.h) */
		gt_gen_out_add(o, b.mem, gt_batch_finish(&b));
	}
	struct type_dump d = { .o = o, .gen = old, .ts = ts };
	gt_typetab_each(&gt.types[old & 1], dump_type, &d);
	if (d.open)
		gt_gen_out_add(o, d.b.mem, gt_batch_finish(&d.b));
}
