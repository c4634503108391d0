/* sys.c — the tracer's own blocking primitives: the futex lock's slow path
 * and writing to the trace file. */
#include "lock.h"
#include "sys.h"

#include <sched.h>

void gt_lock_slow(gt_lock_t *l)
{
	for (int spin = 0; spin < 100; spin++) {
		int c = 0;
		if (atomic_compare_exchange_weak_explicit(&l->v, &c, 1, memory_order_acquire, memory_order_relaxed))
			return;
		__builtin_ia32_pause();
	}
	while (atomic_exchange_explicit(&l->v, 2, memory_order_acquire) != 0)
		gt_futex_wait(&l->v, 2, NULL);
}

int gt_write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		int cnt = n > 1024 ? 1024 : n;
		long w = syscall(SYS_writev, fd, iov, cnt);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (w == 0)
			return EIO;
		size_t left = (size_t)w;
		while (n > 0 && left >= iov->iov_len) {
			left -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0 && left) {
			iov->iov_base = (char *)iov->iov_base + left;
			iov->iov_len -= left;
		}
	}
	return 0;
}
