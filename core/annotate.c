/* annotate.c — UserTaskBegin/End, UserRegionBegin/End, UserLog.
 *
 * Each needs a running goroutine on the thread (M, P and G); a thread that
 * is not running one (inside a wait's signal handler) records nothing. */
#include "annotate.h"

#include <errno.h>
#include <string.h>

#include "event.h"

static _Atomic uint64_t next_task = 1;

static uint64_t str(uint64_t gen, const char *s)
{
	return s && *s ? gt_strtab_put(&gt.strings[gen & 1], s, strlen(s)) : 0;
}

/* One annotation event: type, up to three leading args, strings resolved
 * in the section's generation, then the stack. */
static int annotate(struct gt_thread *t, uint8_t type, uint64_t a0, int nstr, const char *s1, const char *s2,
		    uint64_t extra, int has_extra, uintptr_t site)
{
	int saved = errno, done = 0;
	struct gt_event e;
	if (!gt_event_begin(&e, t, site, GT_EVENT_SCRATCH, 0))
		goto out;
	uint64_t args[5];
	unsigned k = 0;
	args[k++] = a0;
	if (has_extra)
		args[k++] = extra;
	if (nstr >= 1)
		args[k++] = str(e.s.gen, s1);
	if (nstr >= 2)
		args[k++] = str(e.s.gen, s2);
	args[k++] = gt_event_stack(&e);
	gt_batch_event(e.s.b, type, e.ts, k, args);
	section_close(&e.s);
	done = 1;
out:
	t->inside--;
	errno = saved;
	return done;
}

uint64_t gt_task_begin(struct gt_thread *t, const char *name, uint64_t parent, uintptr_t site)
{
	uint64_t id = atomic_fetch_add(&next_task, 1);
	annotate(t, GT_EV_USER_TASK_BEGIN, id, 1, name, NULL, parent, 1, site);
	return id;
}

void gt_task_end(struct gt_thread *t, uint64_t task, uintptr_t site)
{
	annotate(t, GT_EV_USER_TASK_END, task, 0, NULL, NULL, 0, 0, site);
}

void gt_region_begin(struct gt_thread *t, uint64_t task, const char *name, uintptr_t site)
{
	struct gt_side *side = gt_thread_side(t);
	if (!side || t->nregions >= GT_REGIONS)
		return; /* too deep: its end will find no match and be ignored */
	struct gt_region_open *r = &side->regions[t->nregions++];
	r->task = task;
	strncpy(r->name, name ? name : "", sizeof r->name - 1);
	r->name[sizeof r->name - 1] = 0;
	if (!annotate(t, GT_EV_USER_REGION_BEGIN, task, 1, r->name, NULL, 0, 0, site))
		t->nregions--; /* not in the trace: nothing to end */
}

void gt_region_end(struct gt_thread *t, uint64_t task, const char *name, uintptr_t site)
{
	struct gt_side *side = t->side;
	if (!side)
		return; /* no region was ever opened */
	char want[sizeof side->regions[0].name];
	strncpy(want, name ? name : "", sizeof want - 1);
	want[sizeof want - 1] = 0;
	uint32_t i = t->nregions;
	while (i > 0 && !(side->regions[i - 1].task == task && strcmp(side->regions[i - 1].name, want) == 0))
		i--;
	if (i == 0)
		return; /* no such open region */
	/* Close the regions opened inside it first, innermost first. */
	while (t->nregions >= i) {
		struct gt_region_open *r = &side->regions[t->nregions - 1];
		annotate(t, GT_EV_USER_REGION_END, r->task, 1, r->name, NULL, 0, 0, site);
		t->nregions--;
		if (t->nregions == i - 1)
			break;
	}
}

void gt_user_log(struct gt_thread *t, uint64_t task, const char *category, const char *message, uintptr_t site)
{
	annotate(t, GT_EV_USER_LOG, task, 2, category, message, 0, 0, site);
}
