/* real.h — the real libc functions behind every interposed one: one
 * pointer per row of GT_REAL_TABLE (core/real_table.h).
 *
 * Resolved in one place (gt_real_resolve), from the library's constructor
 * or from the first wrapper called before it (another library's
 * constructor may run first). A missing required symbol aborts with a
 * message; a missing optional one gets its fallback, so no pointer is NULL
 * once resolved and resolution runs once (per thread racing at the
 * start). The allocator's pointers are core/realalloc.h's. */
#ifndef GT_REAL_H
#define GT_REAL_H

#include <pthread.h>
#include <semaphore.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "real_table.h"

#define GT_REAL_FIELD(field, symbol, version, ret, params) ret(*field) params;
#define GT_REAL_FIELD_WANT(field, symbol, version, ret, params, missing) ret(*field) params;
struct gt_real {
	GT_REAL_TABLE(GT_REAL_FIELD, GT_REAL_FIELD_WANT)
};
#undef GT_REAL_FIELD
#undef GT_REAL_FIELD_WANT

extern struct gt_real gt_real __attribute__((visibility("hidden")));

/* gt_real_resolve fills gt_real; idempotent and thread-safe. */
void gt_real_resolve(void);

/* GT_REAL(f): the real function f, resolving first if nothing is resolved
 * yet (f is NULL only then). */
#define GT_REAL(f) (__builtin_expect(gt_real.f != NULL, 1) ? gt_real.f : (gt_real_resolve(), gt_real.f))

#endif
