/* readiness.c — the epoll set summaries (core/readiness.h): per epoll
 * descriptor, its members counted by rank; per member descriptor, the set
 * it was added to. Lock-free: counts are atomic, a member's record is one
 * word, and a set's generation (bumped when its number is closed or made
 * anew) tells a member's record of an earlier set with the same number. */
#include "readiness.h"

struct gt_epset gt_epsets[GT_EPSET_MAX];

/* A member's record: its set's number + 1 (15 bits), the rank it counted
 * with (3 bits), its set's generation (14 bits); 0 = in no set we know. */
static _Atomic uint32_t members[GT_FDKIND_MAX];

#define GEN_MASK 0x3fffu

static uint32_t member_word(int epfd, int rank, uint32_t state)
{
	return (uint32_t)(epfd + 1) | (uint32_t)rank << 15 | ((state >> 1) & GEN_MASK) << 18;
}

static int member_set(uint32_t m) { return (int)(m & 0x7fff) - 1; }
static int member_rank(uint32_t m) { return (int)(m >> 15) & 7; }

/* member_current: m counts in its set as that set is now. */
static int member_current(uint32_t m)
{
	int epfd = member_set(m);
	if (epfd < 0 || epfd >= GT_EPSET_MAX)
		return 0;
	uint32_t state = atomic_load_explicit(&gt_epsets[epfd].state, memory_order_acquire);
	return (state & 1) && ((state >> 1) & GEN_MASK) == (m >> 18);
}

static void count_down(struct gt_epset *e, int r)
{
	uint32_t v = atomic_load_explicit(&e->n[r], memory_order_relaxed);
	while (v && !atomic_compare_exchange_weak_explicit(&e->n[r], &v, v - 1, memory_order_relaxed,
							   memory_order_relaxed))
		;
}

/* reset: a new generation of epfd's entry, known (an empty or copied set)
 * or not. */
static void reset(int epfd, int known, const uint32_t *counts)
{
	struct gt_epset *e = &gt_epsets[epfd];
	uint32_t state = atomic_load_explicit(&e->state, memory_order_relaxed);
	uint32_t gen = ((state >> 1) + 1) & GEN_MASK;
	atomic_store_explicit(&e->state, gen << 1, memory_order_release);
	for (int r = 0; r < GT_READY_RANKS; r++)
		atomic_store_explicit(&e->n[r], counts ? counts[r] : 0, memory_order_relaxed);
	if (known)
		atomic_store_explicit(&e->state, gen << 1 | 1, memory_order_release);
}

void gt_epset_created(int epfd)
{
	gt_fdkind_set(epfd, GT_FD_EPOLL);
	if (epfd >= 0 && epfd < GT_EPSET_MAX)
		reset(epfd, 1, 0);
}

void gt_epset_ctl(int epfd, int op, int fd)
{
	if (epfd < 0 || epfd >= GT_EPSET_MAX)
		return;
	struct gt_epset *e = &gt_epsets[epfd];
	uint32_t state = atomic_load_explicit(&e->state, memory_order_acquire);
	if (!(state & 1))
		return; /* a set we never knew stays unknown */
	_Atomic uint32_t *mine = fd >= 0 && fd < GT_FDKIND_MAX ? &members[fd] : 0;
	if (op == 1 /* EPOLL_CTL_ADD */) {
		int r = gt_ready_fd_rank(fd);
		atomic_fetch_add_explicit(&e->n[r], 1, memory_order_relaxed);
		if (mine) {
			uint32_t m = atomic_load_explicit(mine, memory_order_relaxed);
			/* the first set it is in keeps it (a descriptor in two
			 * sets leaves only the first one when closed) */
			if (!m || !member_current(m))
				atomic_compare_exchange_strong_explicit(mine, &m, member_word(epfd, r, state),
									memory_order_relaxed, memory_order_relaxed);
		}
	} else if (op == 2 /* EPOLL_CTL_DEL */) {
		uint32_t m = mine ? atomic_load_explicit(mine, memory_order_relaxed) : 0;
		int r;
		if (m && member_set(m) == epfd && member_current(m)) {
			r = member_rank(m);
			atomic_compare_exchange_strong_explicit(mine, &m, 0, memory_order_relaxed, memory_order_relaxed);
		} else {
			r = gt_ready_fd_rank(fd);
		}
		count_down(e, r);
	}
}

void gt_epset_dup(int from, int to)
{
	if (to < 0 || to >= GT_EPSET_MAX || to == from)
		return;
	if (from >= 0 && from < GT_EPSET_MAX) {
		struct gt_epset *e = &gt_epsets[from];
		if (atomic_load_explicit(&e->state, memory_order_acquire) & 1) {
			uint32_t counts[GT_READY_RANKS];
			for (int r = 0; r < GT_READY_RANKS; r++)
				counts[r] = atomic_load_explicit(&e->n[r], memory_order_relaxed);
			reset(to, 1, counts);
			return;
		}
	}
	if (atomic_load_explicit(&gt_epsets[to].state, memory_order_relaxed) & 1)
		reset(to, 0, 0);
}

void gt_fd_closed(int fd)
{
	gt_fdkind_set(fd, GT_FD_UNKNOWN);
	if (fd < 0 || fd >= GT_FDKIND_MAX)
		return;
	if (atomic_load_explicit(&members[fd], memory_order_relaxed)) {
		uint32_t m = atomic_exchange_explicit(&members[fd], 0, memory_order_relaxed);
		if (m && member_current(m))
			count_down(&gt_epsets[member_set(m)], member_rank(m));
	}
	if (fd < GT_EPSET_MAX && (atomic_load_explicit(&gt_epsets[fd].state, memory_order_relaxed) & 1))
		reset(fd, 0, 0);
}
