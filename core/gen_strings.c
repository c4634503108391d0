/* gen_strings.c — a closed generation's string table (gen_strings.h). */
#include "gen_strings.h"

#include <string.h>

#include "identity.h"
#include "stack.h"
#include "tracer.h"

static void put(struct gt_strtab *st, const char *s)
{
	if (s && *s)
		gt_strtab_put(st, s, strlen(s));
}

void gt_gen_strings_carried(uint64_t old)
{
	struct gt_strtab *st = &gt.strings[old & 1];
	put(st, GT_PC_MAIN_NAME);
	put(st, GT_PC_WAKE_NAME);
	gt_identity_refresh();
	put(st, gt.identity);
	put(st, gt.heap_sample_string);
	put(st, gt.heap_note);
}

static void dump_string(void *ctx, const struct gt_idmap_entry *e)
{
	struct gt_gen_batch *tb = ctx;
	if (gt_gen_batch_room(tb, GT_STRING_EVENT_MAX) != 0)
		return;
	gt_batch_string(&tb->b, e->id, (const char *)e->key, e->len);
}

void gt_gen_strings_write(struct gt_gen_out *o, uint64_t old, uint64_t ts)
{
	struct gt_gen_batch tb = { .o = o, .section = GT_EV_STRINGS, .gen = old, .m = GT_NO_THREAD, .ts = ts };
	if (gt_gen_batch_room(&tb, GT_STRING_EVENT_MAX) == 0) {
		for (int id = 1; id < GT_STR_FIRST_DYNAMIC; id++)
			gt_batch_string(&tb.b, (uint64_t)id, gt_fixed_strings[id], strlen(gt_fixed_strings[id]));
	}
	gt_idmap_each(&gt.strings[old & 1].map, dump_string, &tb);
	gt_gen_batch_close(&tb);
}
