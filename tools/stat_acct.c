/* stat_acct.c — the per-goroutine state machine of `gotrace stat`: each
 * replayed event moves a goroutine between Running, Runnable, Syscall,
 * Waiting (by reason) and dead, and the time it spent in the state it
 * leaves is added to it and, for waits and syscalls, to their site
 * (stat_acct.h). */
#include "tools/stat_acct.h"

#include <stdio.h>
#include <string.h>

#define NO_G 0 /* m_cur value: no goroutine runs on the M */

typedef unsigned long long ull;

int tool_stat_oom(struct tool_stat *s)
{
	snprintf(s->err, sizeof s->err,
		 "out of memory (generation %llu: %zu batches, %zu bytes of batches kept; %zu threads, %zu sites)",
		 (ull)s->gen, s->replay.nruns, s->replay.npayload, s->nth, s->sites.nsites);
	return -1;
}

uint64_t tool_stat_ns(const struct tool_stat *s, uint64_t ts)
{
	uint64_t f = s->g_freq ? s->g_freq : s->freq;
	if (f == 1000000000ull)
		return ts;
	unsigned __int128 ns = (unsigned __int128)ts * 1000000000u / f;
	return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

/* ---- reasons ---- */

/* reason_slot returns the slot of a reason string (interned), adding it;
 * when every slot is taken, the last one is shared. */
static uint32_t reason_slot(struct tool_stat *s, uint32_t str)
{
	for (size_t i = 0; i < s->nreasons; i++)
		if (s->reason[i] == str)
			return (uint32_t)i;
	if (s->nreasons < TOOL_STAT_REASONS) {
		s->reason[s->nreasons] = str;
		return (uint32_t)s->nreasons++;
	}
	s->reason[TOOL_STAT_REASONS - 1] = TOOL_STAT_NONE; /* now "(other)" */
	return TOOL_STAT_REASONS - 1;
}

const char *tool_stat_reason_name(const struct tool_stat *s, uint32_t slot)
{
	if (slot >= s->nreasons || s->reason[slot] == TOOL_STAT_NONE)
		return "(other)";
	return tool_sites_str(&s->sites, s->reason[slot]);
}

uint64_t tool_stat_blocked(const struct tool_stat *s, const struct tool_sthread *t, uint64_t *sleep)
{
	uint64_t sum = 0, slept = 0;
	for (size_t i = 0; i < s->nreasons; i++) {
		if (strcmp(tool_stat_reason_name(s, (uint32_t)i), "sleep") == 0)
			slept += t->blocked[i];
		else
			sum += t->blocked[i];
	}
	if (sleep)
		*sleep = slept;
	return sum;
}

/* ---- sites ---- */

static int count_at_site(struct tool_stat *s, uint32_t reason, uint32_t site, uint64_t d)
{
	bool syscall = reason == TOOL_STAT_NONE;
	struct tool_hmap *index = syscall ? &s->syscall_index : &s->wait_index;
	uint64_t key = syscall ? site : (uint64_t)reason << 32 | site;
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(index, key, &fresh);
	if (!e)
		return tool_stat_oom(s);
	struct tool_ssite **arr = syscall ? &s->syscalls : &s->waits;
	size_t *n = syscall ? &s->nsyscalls : &s->nwaits;
	size_t *cap = syscall ? &s->cap_syscalls : &s->cap_waits;
	if (fresh) {
		if (tool_grow(arr, cap, *n + 1, sizeof **arr)) {
			tool_hmap_del(index, key, NULL);
			return tool_stat_oom(s);
		}
		e->val = *n;
		(*arr)[(*n)++] = (struct tool_ssite){ .site = site, .reason = reason };
	}
	struct tool_ssite *st = &(*arr)[e->val];
	st->count++;
	st->total += d;
	if (d > st->max)
		st->max = d;
	return 0;
}

/* ---- goroutines and Ms ---- */

static struct tool_sthread *thread_of(struct tool_stat *s, uint64_t g)
{
	struct tool_hmap_entry *e = tool_hmap_get(&s->th_index, g);
	return e ? &s->th[e->val] : NULL;
}

/* new_thread adds goroutine g in `state` from time `now`; NULL when out
 * of memory (s->err set). pre: g is not known. */
static struct tool_sthread *new_thread(struct tool_stat *s, uint64_t g, uint8_t state, uint64_t now)
{
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(&s->th_index, g, &fresh);
	if (!e)
		return tool_stat_oom(s), NULL;
	if (tool_grow(&s->th, &s->cap_th, s->nth + 1, sizeof *s->th)) {
		tool_hmap_del(&s->th_index, g, NULL);
		return tool_stat_oom(s), NULL;
	}
	e->val = s->nth;
	struct tool_sthread *t = &s->th[s->nth++];
	memset(t, 0, sizeof *t);
	t->g = g;
	t->m = GT_NO_THREAD;
	t->func = TOOL_STAT_NONE;
	t->site = TOOL_STAT_NONE;
	t->state = state;
	t->since = t->first = t->end = now;
	return t;
}

static size_t index_of(const struct tool_stat *s, const struct tool_sthread *t)
{
	return (size_t)(t - s->th);
}

/* running_on returns the goroutine running on M m, or NULL. */
static struct tool_sthread *running_on(struct tool_stat *s, uint64_t m)
{
	struct tool_hmap_entry *e = tool_hmap_get(&s->m_cur, m);
	return e && e->val != NO_G ? &s->th[e->val - 1] : NULL;
}

/* bind makes t the goroutine running on M m (and on no other M). */
static int bind(struct tool_stat *s, struct tool_sthread *t, uint64_t m)
{
	if (t->m != GT_NO_THREAD && t->m != m) {
		struct tool_hmap_entry *old = tool_hmap_get(&s->m_cur, t->m);
		if (old && old->val == index_of(s, t) + 1)
			old->val = NO_G;
	}
	bool fresh;
	struct tool_hmap_entry *e = tool_hmap_put(&s->m_cur, m, &fresh);
	if (!e)
		return tool_stat_oom(s);
	e->val = index_of(s, t) + 1; /* a goroutine still on it left without saying so */
	t->m = m;
	return 0;
}

/* unbind notes that t runs on no M any more (t->m stays as its last M). */
static void unbind(struct tool_stat *s, struct tool_sthread *t)
{
	if (t->m == GT_NO_THREAD)
		return;
	struct tool_hmap_entry *e = tool_hmap_get(&s->m_cur, t->m);
	if (e && e->val == index_of(s, t) + 1)
		e->val = NO_G;
}

/* leave ends t's current state at `now`: its time goes to t and, for a
 * wait or syscall with a site, to the site. */
static int leave(struct tool_stat *s, struct tool_sthread *t, uint64_t now)
{
	if (now < t->since)
		now = t->since; /* clock skew between Ms: never negative */
	uint64_t d = now - t->since;
	int rc = 0;
	switch (t->state) {
	case TOOL_S_RUNNING: t->running += d; break;
	case TOOL_S_RUNNABLE: t->runnable += d; break;
	case TOOL_S_SYSCALL:
		t->syscall += d;
		if (t->site != TOOL_STAT_NONE)
			rc = count_at_site(s, TOOL_STAT_NONE, t->site, d);
		break;
	case TOOL_S_WAITING:
		t->blocked[t->reason] += d;
		if (t->site != TOOL_STAT_NONE)
			rc = count_at_site(s, t->reason, t->site, d);
		break;
	default: break;
	}
	t->since = now;
	t->site = TOOL_STAT_NONE;
	return rc;
}

/* enter moves t to `state` at `now` (a wait: reason slot and site). */
static int enter(struct tool_stat *s, struct tool_sthread *t, uint8_t state, uint64_t now, uint32_t reason,
		 uint32_t site)
{
	if (leave(s, t, now))
		return -1;
	t->lock_wait = false; /* a lock wait ends with its state (GoBlock sets it after) */
	t->state = state;
	if (state == TOOL_S_WAITING) {
		t->reason = (uint8_t)reason;
		t->nblocks += site != TOOL_STAT_NONE;
	}
	if (state == TOOL_S_SYSCALL)
		t->nsyscalls += site != TOOL_STAT_NONE;
	if (state == TOOL_S_WAITING || state == TOOL_S_SYSCALL)
		t->site = site;
	if (state == TOOL_S_DEAD)
		t->end = t->since;
	if (state != TOOL_S_RUNNING && state != TOOL_S_SYSCALL)
		unbind(s, t);
	return 0;
}

/* name_from_site gives t its start function from a stack's outermost
 * frame, unless it has one (from_create: that stack is its GoCreate's). */
static void name_from_site(struct tool_stat *s, struct tool_sthread *t, uint32_t site, bool from_create)
{
	if (site == TOOL_STAT_NONE || (t->func != TOOL_STAT_NONE && (t->from_create || !from_create)))
		return;
	const struct tool_hsite *h = &s->sites.sites[site];
	if (h->nframes == 0)
		return;
	t->func = tool_sites_site_frames(&s->sites, site)[h->nframes - 1];
	t->from_create = from_create;
}

/* reason_of interns a reason string id into its slot. */
static int reason_of(struct tool_stat *s, uint64_t id, uint32_t *slot)
{
	uint32_t str = tool_gen_string(&s->tables, &s->sites, id);
	if (str == TOOL_STAT_NONE)
		return tool_stat_oom(s);
	*slot = reason_slot(s, str);
	return 0;
}

static int site_of(struct tool_stat *s, uint64_t stack, uint32_t *site)
{
	*site = tool_gen_site(&s->tables, &s->sites, stack);
	return *site == TOOL_STAT_NONE ? tool_stat_oom(s) : 0;
}

static int anomaly(struct tool_stat *s)
{
	s->anomalies++;
	return 0;
}

/* ---- lock holders (tools/mutex_acct.h) ---- */

/* holder_log reads a gotrace.holder log: the goroutine it names holds the
 * lock the running goroutine is about to wait for. */
static int holder_log(struct tool_stat *s, uint64_t m, const struct gt_event *ev)
{
	uint32_t cat = tool_gen_string(&s->tables, &s->sites, ev->args[1]);
	if (cat == TOOL_STAT_NONE)
		return tool_stat_oom(s);
	struct tool_sthread *cur = running_on(s, m);
	if (cat != s->str_holder || !cur)
		return 0;
	uint32_t msg = tool_gen_string(&s->tables, &s->sites, ev->args[2]);
	if (msg == TOOL_STAT_NONE)
		return tool_stat_oom(s);
	cur->log_holder = tool_mutex_holder_goid(tool_sites_str(&s->sites, msg));
	cur->log_holder_stack = ev->args[3];
	return 0;
}

/* lock_woken: t's lock wait ends with GoUnblock ev on M m at now: one
 * contention charged to the releasing stack, unless nothing released it. */
static int lock_woken(struct tool_stat *s, uint64_t m, struct tool_sthread *t, const struct gt_event *ev,
		      uint64_t now)
{
	uint32_t site;
	if (site_of(s, ev->args[2], &site))
		return -1;
	const struct tool_hsite *h = &s->sites.sites[site];
	const uint32_t *fr = tool_sites_site_frames(&s->sites, site);
	if (h->nframes == 0 || (h->nframes == 1 && s->sites.frames[fr[0]].func == s->str_wakeup)) {
		s->mutex.no_release++;
		return 0;
	}
	uint32_t holder = TOOL_MUTEX_NONE;
	struct tool_sthread *rel = running_on(s, m);
	if (rel && rel != t) {
		holder = (uint32_t)index_of(s, rel);
	} else if (t->wait_holder) {
		struct tool_sthread *h2 = thread_of(s, t->wait_holder);
		if (h2) {
			holder = (uint32_t)index_of(s, h2);
			s->mutex.from_log++;
		}
	}
	uint64_t delay = now > t->since ? now - t->since : 0;
	return tool_mutex_add(&s->mutex, site, holder, delay) ? tool_stat_oom(s) : 0;
}

/* ---- events ---- */

/* created handles GoCreate / GoCreateBlocked / GoCreateSyscall. */
static int created(struct tool_stat *s, uint64_t m, const struct gt_event *ev, uint64_t now)
{
	uint64_t g = ev->args[0];
	struct tool_sthread *t = thread_of(s, g);
	uint32_t site = TOOL_STAT_NONE;
	if (ev->type != GT_EV_GO_CREATE_SYSCALL && site_of(s, ev->args[1], &site))
		return -1;
	if (t && t->state != TOOL_S_DEAD) {
		/* Seen already (its start came first across Ms): name it only. */
		name_from_site(s, t, site, true);
		return 0;
	}
	uint8_t state = ev->type == GT_EV_GO_CREATE ? TOOL_S_RUNNABLE
			: ev->type == GT_EV_GO_CREATE_BLOCKED ? TOOL_S_WAITING : TOOL_S_SYSCALL;
	if (t) { /* an id used again after its GoDestroy: a new life in the same row */
		t->state = state;
		t->since = now > t->since ? now : t->since;
		t->end = t->since;
	} else if (!(t = new_thread(s, g, state, now))) {
		return -1;
	}
	if (state == TOOL_S_WAITING) {
		uint32_t slot;
		if (reason_of(s, 0, &slot))
			return -1;
		t->reason = (uint8_t)slot;
	}
	name_from_site(s, t, site, true);
	if (state == TOOL_S_SYSCALL)
		return bind(s, t, m);
	/* The creator's stack names the creator if nothing else did. */
	struct tool_sthread *parent = running_on(s, m);
	if (parent && ev->type != GT_EV_GO_CREATE_SYSCALL) {
		uint32_t psite;
		if (site_of(s, ev->args[2], &psite))
			return -1;
		name_from_site(s, parent, psite, false);
	}
	return 0;
}

/* status handles GoStatus / GoStatusStack: a goroutine's state at the
 * start of a generation (or when it is first seen). */
static int status(struct tool_stat *s, uint64_t m, const struct gt_event *ev, uint64_t now)
{
	uint64_t g = ev->args[0], st = ev->args[2];
	uint8_t state;
	switch (st) {
	case GT_G_RUNNABLE: state = TOOL_S_RUNNABLE; break;
	case GT_G_RUNNING: state = TOOL_S_RUNNING; break;
	case GT_G_SYSCALL: state = TOOL_S_SYSCALL; break;
	case GT_G_WAITING: state = TOOL_S_WAITING; break;
	default: return anomaly(s);
	}
	struct tool_sthread *t = thread_of(s, g);
	if (t && t->state == TOOL_S_DEAD)
		return anomaly(s);
	if (!t) {
		if (!(t = new_thread(s, g, state, now)))
			return -1;
		if (state == TOOL_S_WAITING) {
			uint32_t slot;
			if (reason_of(s, 0, &slot))
				return -1;
			t->reason = (uint8_t)slot;
		}
	} else if (t->state != state) {
		uint32_t slot = 0;
		if (state == TOOL_S_WAITING && reason_of(s, 0, &slot))
			return -1;
		if (enter(s, t, state, now, slot, TOOL_STAT_NONE))
			return -1;
	}
	if (ev->type == GT_EV_GO_STATUS_STACK) {
		uint32_t site;
		if (site_of(s, ev->args[3], &site))
			return -1;
		name_from_site(s, t, site, false);
	}
	if (state == TOOL_S_RUNNING || state == TOOL_S_SYSCALL)
		return bind(s, t, m);
	unbind(s, t);
	return 0;
}

/* started handles GoStart and the goroutine GoSwitch switches to. */
static int started(struct tool_stat *s, uint64_t m, uint64_t g, uint64_t now)
{
	struct tool_sthread *t = thread_of(s, g);
	if (!t) {
		if (!(t = new_thread(s, g, TOOL_S_RUNNING, now)))
			return -1;
	} else if (t->state == TOOL_S_DEAD) {
		return anomaly(s);
	} else if (t->state != TOOL_S_RUNNING && enter(s, t, TOOL_S_RUNNING, now, 0, TOOL_STAT_NONE)) {
		return -1;
	}
	return bind(s, t, m);
}

int tool_stat_event(struct tool_stat *s, uint64_t m, const struct gt_event *ev)
{
	uint64_t now = tool_stat_ns(s, ev->ts);
	if (!s->have_time) {
		s->have_time = true;
		s->t_first = s->t_last = now;
	}
	if (now > s->t_last)
		s->t_last = now;
	if (now < s->t_first)
		s->t_first = now;

	struct tool_sthread *cur;
	uint32_t site, slot;
	switch (ev->type) {
	case GT_EV_GO_CREATE:
	case GT_EV_GO_CREATE_BLOCKED:
	case GT_EV_GO_CREATE_SYSCALL:
		return created(s, m, ev, now);
	case GT_EV_GO_STATUS:
	case GT_EV_GO_STATUS_STACK:
		return status(s, m, ev, now);
	case GT_EV_GO_START:
		return started(s, m, ev->args[0], now);
	case GT_EV_GO_UNBLOCK: {
		struct tool_sthread *t = thread_of(s, ev->args[0]);
		if (!t)
			return new_thread(s, ev->args[0], TOOL_S_RUNNABLE, now) ? 0 : -1;
		if (t->state != TOOL_S_WAITING)
			return anomaly(s);
		if (t->lock_wait && lock_woken(s, m, t, ev, now))
			return -1;
		return enter(s, t, TOOL_S_RUNNABLE, now, 0, TOOL_STAT_NONE);
	}
	case GT_EV_HEAP_ALLOC:
		if (!s->have_heap_metric || ev->args[0] > s->metric_peak) {
			s->have_heap_metric = true;
			s->metric_peak = ev->args[0];
			s->metric_peak_at = now;
		}
		return 0;
	case GT_EV_HEAP_OBJECT_ALLOC:
	case GT_EV_HEAP_OBJECT_FREE:
		s->heap_events++;
		return 0;
	case GT_EV_USER_LOG:
		return holder_log(s, m, ev);
	default:
		break;
	}

	/* The rest concern the goroutine running on the M. */
	switch (ev->type) {
	case GT_EV_GO_BLOCK:
	case GT_EV_GO_STOP:
	case GT_EV_GO_SYSCALL_BEGIN:
	case GT_EV_GO_SYSCALL_END:
	case GT_EV_GO_SYSCALL_END_BLOCKED:
	case GT_EV_GO_DESTROY:
	case GT_EV_GO_DESTROY_SYSCALL:
	case GT_EV_GO_SWITCH:
	case GT_EV_GO_SWITCH_DESTROY:
	case GT_EV_GO_LABEL:
		break;
	default:
		return 0; /* Ps, GC, user annotations, ...: only counted */
	}
	cur = running_on(s, m);
	if (!cur)
		return anomaly(s);
	bool in_syscall = cur->state == TOOL_S_SYSCALL;
	switch (ev->type) {
	case GT_EV_GO_BLOCK:
		if (in_syscall)
			return anomaly(s);
		if (reason_of(s, ev->args[0], &slot) || site_of(s, ev->args[1], &site))
			return -1;
		name_from_site(s, cur, site, false);
		if (enter(s, cur, TOOL_S_WAITING, now, slot, site))
			return -1;
		cur->lock_wait = s->reason[slot] == s->str_mutex || s->reason[slot] == s->str_rwlock;
		/* the log just before this GoBlock, at its stack (a wait the
		 * tracer took back leaves its log without a GoBlock) */
		cur->wait_holder = cur->lock_wait && cur->log_holder_stack == ev->args[1] ? cur->log_holder : 0;
		cur->log_holder = 0;
		return 0;
	case GT_EV_GO_STOP:
		if (in_syscall)
			return anomaly(s);
		if (site_of(s, ev->args[1], &site))
			return -1;
		name_from_site(s, cur, site, false);
		return enter(s, cur, TOOL_S_RUNNABLE, now, 0, TOOL_STAT_NONE);
	case GT_EV_GO_SYSCALL_BEGIN:
		if (in_syscall)
			return anomaly(s);
		if (site_of(s, ev->args[1], &site))
			return -1;
		name_from_site(s, cur, site, false);
		return enter(s, cur, TOOL_S_SYSCALL, now, 0, site);
	case GT_EV_GO_SYSCALL_END:
		return in_syscall ? enter(s, cur, TOOL_S_RUNNING, now, 0, TOOL_STAT_NONE) : anomaly(s);
	case GT_EV_GO_SYSCALL_END_BLOCKED:
		return in_syscall ? enter(s, cur, TOOL_S_RUNNABLE, now, 0, TOOL_STAT_NONE) : anomaly(s);
	case GT_EV_GO_DESTROY:
	case GT_EV_GO_DESTROY_SYSCALL:
		return enter(s, cur, TOOL_S_DEAD, now, 0, TOOL_STAT_NONE);
	case GT_EV_GO_SWITCH:
	case GT_EV_GO_SWITCH_DESTROY:
		if (ev->type == GT_EV_GO_SWITCH_DESTROY) {
			if (enter(s, cur, TOOL_S_DEAD, now, 0, TOOL_STAT_NONE))
				return -1;
		} else if (reason_of(s, 0, &slot) || enter(s, cur, TOOL_S_WAITING, now, slot, TOOL_STAT_NONE)) {
			return -1;
		}
		return started(s, m, ev->args[0], now);
	case GT_EV_GO_LABEL: {
		uint32_t str = tool_gen_string(&s->tables, &s->sites, ev->args[0]);
		if (str == TOOL_STAT_NONE)
			return tool_stat_oom(s);
		cur->label = str;
		return 0;
	}
	}
	return 0;
}

void tool_stat_finish(struct tool_stat *s)
{
	if (s->finished)
		return;
	s->finished = true;
	/* The heap peak (stat_acct.h): the events' replay, else the metric. A
	 * replay that failed counts its complete generations, as stat does. */
	const struct tool_heap *h = s->heap;
	if (h && h->events > 0) {
		s->have_heap_peak = s->heap_peak_from_events = true;
		s->heap_peak = (uint64_t)(h->peak_bytes + 0.5);
		s->heap_peak_at = h->peak_bytes > 0 ? tool_stat_ns(s, h->peak_ts) : s->t_first;
	} else if (s->have_heap_metric) {
		s->have_heap_peak = true;
		s->heap_peak = s->metric_peak;
		s->heap_peak_at = s->metric_peak_at;
	}
	for (size_t i = 0; i < s->nth; i++) {
		struct tool_sthread *t = &s->th[i];
		if (t->state == TOOL_S_DEAD)
			continue;
		/* Out of memory here only loses the site of one open wait. */
		(void)leave(s, t, s->t_last);
		t->end = t->since;
	}
}
