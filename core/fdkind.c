/* fdkind.c — classifying a descriptor with fstat, and the cache. */
#include "fdkind.h"
#include "sys.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

_Atomic uint8_t gt_fdkinds[GT_FDKIND_MAX];

enum gt_fdkind gt_fdkind_probe(int fd)
{
	int saved = errno;
	struct stat st;
	enum gt_fdkind k;
	if (gt_sys_call(SYS_fstat, fd, &st) != 0) {
		errno = saved;
		return GT_FD_BAD; /* not cached: the number may be opened later */
	}
	errno = saved;
	switch (st.st_mode & S_IFMT) {
	case S_IFSOCK: k = GT_FD_SOCKET; break;
	case S_IFIFO: k = GT_FD_PIPE; break;
	case S_IFCHR: k = GT_FD_CHAR; break;
	case S_IFREG: case S_IFDIR: case S_IFBLK: k = GT_FD_FILE; break;
	default: k = GT_FD_OTHER; break;
	}
	gt_fdkind_set(fd, k);
	return k;
}
