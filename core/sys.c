/* sys.c — the tracer's own system calls that are more than one call:
 * writing every byte of a list of buffers. */
#include "sys.h"

int gt_write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		int cnt = n > 1024 ? 1024 : n;
		long w = gt_sys_call(SYS_writev, fd, iov, cnt);
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
