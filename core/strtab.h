/* strtab.h — a generation's string table: bytes → string id.
 *
 * The fixed strings (block reasons) have the same ids in every generation
 * and are written out with every table; dynamic strings (thread labels,
 * function and file names) get ids from GT_STR_FIRST_DYNAMIC on. */
#ifndef GT_STRTAB_H
#define GT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "idmap.h"
#include "lock.h"

enum gt_str {
	GT_STR_NONE = 0,
	GT_STR_SYNC_MUTEX,    /* "sync.mutex": pthread_mutex_*lock */
	GT_STR_SYNC_RWLOCK,   /* "sync.rwlock" */
	GT_STR_SYNC_SPIN,     /* "sync.spinlock" */
	GT_STR_SYNC_COND,     /* "sync.cond": condition variable waits */
	GT_STR_SYNC_JOIN,     /* "sync.join": pthread_join and friends */
	GT_STR_SYNC_BARRIER,  /* "sync.barrier" */
	GT_STR_SYNC_SEM,      /* "sync.semaphore" */
	GT_STR_SLEEP,         /* "sleep": the sleep family */
	GT_STR_YIELD,         /* "sched_yield": GoStop reason */
	GT_STR_NETWORK,       /* "network": socket waits */
	GT_STR_SYNC_SIGNAL,   /* "sync.signal": pause, sigsuspend, sigwait... */
	/* issue 15 item 2 */
	GT_STR_SYNC_EVENTFD,  /* "sync.eventfd": a readiness wait for an eventfd */
	/* issue 15 item 1: raw futex waits */
	GT_STR_SYNC_FUTEX,    /* "sync.futex": syscall(SYS_futex, FUTEX_WAIT...) */
	GT_STR_FIRST_DYNAMIC,
};

/* The text of each fixed string, indexed by enum gt_str. */
extern const char *const gt_fixed_strings[GT_STR_FIRST_DYNAMIC];

struct gt_strtab {
	gt_lock_t lock;
	struct gt_idmap map;
};

void gt_strtab_init(struct gt_strtab *t);

/* gt_strtab_put returns the id of s[0..len) in this table (0 when out of
 * memory). Strings longer than the format's 1024 bytes are cut. Locks. */
uint64_t gt_strtab_put(struct gt_strtab *t, const char *s, size_t len);

/* gt_strtab_reset empties the table. pre: no concurrent put. */
void gt_strtab_reset(struct gt_strtab *t);

#endif
