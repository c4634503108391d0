/* sink.c — the trace file: naming, checking, creating, appending (sink.h). */
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../encoder/writer.h"
#include "config.h"
#include "log.h"
#include "owntable.h"
#include "sys.h"
#include "tracer.h"

#define PATH_CAP 4096

static struct {
	char base[PATH_CAP];   /* GOTRACE_OUT expanded and made absolute */
	char path[PATH_CAP + 64]; /* the file's name (decided at creation for a later image) */
	int later;             /* a process started from a traced one */
	int own_name;          /* the pattern holds %p: the base is this process's already */
	int created;
	uint64_t dev, ino;     /* identity of the created file */
	int stream;            /* a FIFO or a device (invariant 3) */
	int stream_fd;         /* its descriptor until the flusher holds it */
	int held_fd;           /* the flusher's descriptor of the output, or -1 */
	int failed;            /* a write failed: nothing more is written */
	int no_unnamed;        /* unnamed files cannot be made or named here */
	int given_fd;          /* the caller's descriptor (gt_sink_prepare_fd), or -1 */
	uint64_t given_start;  /* where the trace begins in it */
} out = { .stream_fd = -1, .held_fd = -1, .given_fd = -1 };

/* The flusher marks itself: a file it creates stays open in its table. */
static __thread int holder;

static int sys_open(const char *path, int flags, int mode)
{
	return (int)gt_sys_call(SYS_openat, AT_FDCWD, path, flags, mode);
}

static void sys_close(int fd)
{
	if (fd >= 0)
		gt_sys_call(SYS_close, fd);
}

/* refuse names what is wrong with the output in one line; -1. */
static int refuse(const char *what)
{
	gt_warn("GOTRACE_OUT %s %s; the program runs untraced", out.base, what);
	return -1;
}

/* absolute writes path, made absolute against the working directory, to buf. */
static int absolute(const char *path, char *buf, size_t len)
{
	if (path[0] == '/')
		return snprintf(buf, len, "%s", path) < (int)len ? 0 : -1;
	char cwd[PATH_CAP];
	if (gt_sys_call(SYS_getcwd, cwd, sizeof cwd) < 0)
		return -1;
	return snprintf(buf, len, "%s/%s", cwd, path) < (int)len ? 0 : -1;
}

/* dir_of writes the directory of the absolute path to dir. */
static void dir_of(const char *path, char *dir, size_t len)
{
	snprintf(dir, len, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0; /* the root directory */
	else if (slash)
		*slash = 0;
}

/* dir_writable: the directory that will hold path takes new files. */
static int dir_writable(const char *path)
{
	char dir[PATH_CAP];
	dir_of(path, dir, sizeof dir);
	return gt_sys_call(SYS_faccessat, AT_FDCWD, dir, W_OK | X_OK, 0) == 0 ? 0 : -errno;
}

/* write_header writes the trace header to a new file; 0 or errno. */
static int write_header(int fd)
{
	uint8_t hdr[GT_HEADER_LEN];
	gt_write_header(hdr, gt.format);
	struct iovec iov = { hdr, sizeof hdr };
	return gt_write_all(fd, &iov, 1);
}

/* open_stream opens a FIFO or device without blocking (no reader: ENXIO). */
static int open_stream(int is_fifo)
{
	int fd = sys_open(out.base, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0);
	if (fd < 0) {
		if (is_fifo && errno == ENXIO)
			return refuse("is a FIFO with no reader (start the reader first)");
		char what[128];
		snprintf(what, sizeof what, "cannot be opened: %s", strerror(errno));
		return refuse(what);
	}
	if (isatty(fd)) {
		sys_close(fd);
		return refuse("is a terminal; a trace is binary (write it to a file)");
	}
	/* Writes may block (the flusher waits for the reader); open could not. */
	int fl = (int)gt_sys_call(SYS_fcntl, fd, F_GETFL);
	if (fl >= 0)
		gt_sys_call(SYS_fcntl, fd, F_SETFL, fl & ~O_NONBLOCK);
	/* The header now: a stream is one trace from its first byte. */
	int err = write_header(fd);
	if (err) {
		sys_close(fd);
		char what[128];
		snprintf(what, sizeof what, "cannot be written: %s", strerror(err));
		return refuse(what);
	}
	out.stream = 1;
	out.stream_fd = fd;
	out.created = 1;
	snprintf(out.path, sizeof out.path, "%s", out.base);
	return 0;
}

int gt_sink_prepare(const char *pattern, int later_image)
{
	char expanded[PATH_CAP];
	out.later = later_image;
	out.own_name = strstr(pattern, "%p") != NULL;
	out.created = 0;
	out.failed = 0;
	out.stream = 0;
	out.stream_fd = -1;
	out.held_fd = -1;
	out.given_fd = -1;
	if (gt_config_expand_out(pattern, getpid(), expanded, sizeof expanded - 32) != 0 ||
	    absolute(expanded, out.base, sizeof out.base - 32) != 0) {
		snprintf(out.base, sizeof out.base, "%s", pattern);
		return refuse("is not a usable path");
	}
	snprintf(out.path, sizeof out.path, "%s", out.base);
	struct stat st;
	if (gt_sys_call(SYS_newfstatat, AT_FDCWD, out.base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !later_image) {
		if (S_ISLNK(st.st_mode))
			return refuse("is a symbolic link; gotrace does not follow links for its output");
		if (S_ISDIR(st.st_mode))
			return refuse("is a directory");
		if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
			return open_stream(S_ISFIFO(st.st_mode));
		if (!S_ISREG(st.st_mode))
			return refuse("is not a regular file, a FIFO or a character device");
		/* An earlier run's trace: replaced when this process writes its
		 * first generation; gone now, so that a process that never gets
		 * that far leaves no stale file under its name. */
		gt_sys_call(SYS_unlinkat, AT_FDCWD, out.base, 0);
	}
	int e = dir_writable(out.base);
	if (e) {
		gt_warn("cannot write the trace file %s: %s; the program runs untraced", out.base, strerror(-e));
		return -1;
	}
	return 0;
}

/* refuse_fd: refuse for a descriptor output. */
static int refuse_fd(int fd, const char *what)
{
	gt_warn("the trace descriptor %d %s; the program runs untraced", fd, what);
	return -1;
}

int gt_sink_prepare_fd(int fd)
{
	struct stat st;
	memset(&out, 0, sizeof out);
	out.stream_fd = out.held_fd = out.given_fd = -1;
	snprintf(out.base, sizeof out.base, "/proc/self/fd/%d", fd);
	snprintf(out.path, sizeof out.path, "%s", out.base);
	int fl = (int)gt_sys_call(SYS_fcntl, fd, F_GETFL);
	if (fl < 0 || gt_sys_call(SYS_fstat, fd, &st) != 0)
		return refuse_fd(fd, "is not an open descriptor");
	if (!S_ISREG(st.st_mode))
		return refuse_fd(fd, "is not a regular file");
	if ((fl & O_ACCMODE) == O_RDONLY)
		return refuse_fd(fd, "is not open for writing");
	out.given_fd = fd;
	out.dev = st.st_dev;
	out.ino = st.st_ino;
	return 0;
}

int gt_sink_keep_fd(void)
{
	return out.stream ? out.stream_fd : out.given_fd;
}

int gt_sink_stream(void)
{
	return out.stream;
}

int gt_sink_stream_fd(void)
{
	return out.stream_fd;
}

void gt_sink_stream_handed(void)
{
	/* The flusher has its own copy now; the program's table keeps none. */
	if (!holder)
		sys_close(out.stream_fd);
}

const char *gt_sink_path(void)
{
	return out.path;
}

int gt_sink_created(void)
{
	return out.created;
}

int gt_sink_later_image(void)
{
	return out.later;
}

void gt_sink_forget_after_fork(void)
{
	out.held_fd = -1; /* it lived in the parent flusher's table */
	out.stream_fd = -1;
	out.given_fd = -1; /* the parent's output */
}

/* name_candidate writes the k-th name a later image may take to out.path
 * (k = -1: the base itself, for a pattern holding %p); 0, or -1 when there
 * is no k-th name. */
static int name_candidate(int k)
{
	if (k >= 100)
		return -1;
	if (k < 0)
		snprintf(out.path, sizeof out.path, "%s", out.base);
	else if (out.own_name) /* the pid is in the name already */
		snprintf(out.path, sizeof out.path, "%s.%d", out.base, k + 1);
	else if (k == 0)
		snprintf(out.path, sizeof out.path, "%s.%d", out.base, (int)getpid());
	else
		snprintf(out.path, sizeof out.path, "%s.%d.%d", out.base, (int)getpid(), k);
	return 0;
}

/* start_file writes the header to the new file fd and, for the output
 * (is_main, not a snapshot), remembers its identity (checked before every
 * write): fd, or -errno with fd closed and path (if any) removed. */
static int start_file(int fd, const char *path, int is_main)
{
	struct stat st;
	int err = write_header(fd);
	if (!err && is_main && gt_sys_call(SYS_fstat, fd, &st) != 0)
		err = errno;
	if (!err) {
		if (is_main) {
			out.dev = st.st_dev;
			out.ino = st.st_ino;
		}
		return fd;
	}
	sys_close(fd);
	if (path)
		gt_sys_call(SYS_unlinkat, AT_FDCWD, path, 0);
	return -err;
}

/* create_named makes the output file under its final name (chosen now for
 * a later image: never over an earlier file) and writes the header: the
 * way when the file system has no unnamed files. */
static int create_named(void)
{
	int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW;
	int fd = -1;
	if (!out.later) {
		fd = sys_open(out.path, flags | O_TRUNC, 0666);
	} else {
		for (int k = out.own_name ? -1 : 0; fd < 0 && name_candidate(k) == 0; k++) {
			fd = sys_open(out.path, flags | O_EXCL, 0666);
			if (fd < 0 && errno != EEXIST)
				break;
		}
	}
	if (fd < 0)
		return -errno;
	fd = start_file(fd, out.path, 1);
	if (fd >= 0)
		out.created = 1;
	return fd;
}

/* create_snapshot_named makes a flight-recorder snapshot's file under its
 * name (replacing one of that name) and writes the header: fd or -errno. */
static int create_snapshot_named(const char *path)
{
	int fd = sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0666);
	return fd < 0 ? -errno : start_file(fd, path, 0);
}

/* open_unnamed opens a file with no name yet (O_TMPFILE) in the directory
 * of path and writes the header: it is named once it holds a complete
 * generation (give_name), so a reader never meets it half written and a
 * process killed while writing its first generation leaves nothing.
 * Returns the descriptor or -errno (no such files here: -EOPNOTSUPP and
 * the like). */
static int open_unnamed(const char *path, int is_main)
{
	char dir[PATH_CAP + 64];
	dir_of(path, dir, sizeof dir);
	int fd = sys_open(dir, O_TMPFILE | O_WRONLY | O_APPEND | O_CLOEXEC, 0666);
	return fd < 0 ? -errno : start_file(fd, NULL, is_main);
}

/* link_as names the unnamed file fd path; with replace, a file of that name
 * is replaced. Through /proc/thread-self: the calling thread's table may be
 * its own (the flusher's). 0 or errno. */
static int link_as(int fd, const char *path, int replace)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/thread-self/fd/%d", fd);
	for (int tries = 0;; tries++) {
		if (gt_sys_call(SYS_linkat, AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST || !replace || tries > 0)
			return errno;
		gt_sys_call(SYS_unlinkat, AT_FDCWD, path, 0);
	}
}

/* give_name names the unnamed output file fd: out.path, or for a later image
 * the first of its names not taken. 0 or errno. */
static int give_name(int fd)
{
	if (!out.later)
		return link_as(fd, out.path, 1);
	int err = EEXIST;
	for (int k = out.own_name ? -1 : 0; err == EEXIST && name_candidate(k) == 0; k++)
		err = link_as(fd, out.path, 0);
	return err;
}

/* create makes the output file: unnamed until its first generation is
 * complete (f->unnamed), or named at once where that cannot be. */
static int create(struct gt_sink_file *f)
{
	if (!out.no_unnamed) {
		int fd = open_unnamed(out.base, 1);
		if (fd >= 0) {
			f->unnamed = 1;
			return fd;
		}
		if (fd == -EMFILE || fd == -ENFILE)
			return fd; /* the table is full: the same again elsewhere */
		out.no_unnamed = 1;
	}
	return create_named();
}

/* name_complete: the unnamed file *fd (f's) now holds a complete generation,
 * iov: it takes its name. Where that cannot be (no /proc here), the file is
 * made again under its name and the generation written there, and unnamed
 * files are not tried again. 0 or errno. */
static int name_complete(struct gt_sink_file *f, int *fd, struct iovec *iov, int n)
{
	int err = f->is_main ? give_name(*fd) : link_as(*fd, f->path, 1);
	if (!err) {
		f->unnamed = 0;
		if (f->is_main)
			out.created = 1;
		return 0;
	}
	out.no_unnamed = 1;
	int held = f->is_main && out.held_fd == *fd;
	sys_close(*fd);
	if (held)
		out.held_fd = -1;
	f->unnamed = 0;
	*fd = f->is_main ? create_named() : create_snapshot_named(f->path);
	if (*fd < 0)
		return -*fd;
	f->committed = GT_HEADER_LEN;
	if ((err = gt_write_all(*fd, iov, n))) {
		gt_sys_call(SYS_ftruncate, *fd, (off_t)0);
		return err;
	}
	for (int i = 0; i < n; i++)
		f->committed += iov[i].iov_len;
	if (held)
		out.held_fd = *fd;
	return 0;
}

/* append writes one complete generation, iov, to fd (f's file): named once
 * it is the first; a write cut short is cut back to the last complete
 * generation (invariant 2). 0 or errno. */
static int append(struct gt_sink_file *f, int *fd, struct iovec *iov, int n)
{
	int err = gt_write_all(*fd, iov, n);
	if (err) {
		if (!f->unnamed && !(f->is_main && out.stream))
			gt_sys_call(SYS_ftruncate, *fd, (off_t)f->committed);
		return err;
	}
	for (int i = 0; i < n; i++)
		f->committed += iov[i].iov_len;
	return f->unnamed ? name_complete(f, fd, iov, n) : 0;
}

/* stop ends tracing after a problem with the output (one warning). */
#define stop(...)                                  \
	do {                                       \
		out.failed = 1;                    \
		atomic_store(&gt.on, 0);           \
		gt_warn(__VA_ARGS__);              \
	} while (0)

/* same_file: fd is still the file we created and it is still reachable. */
static int same_file(int fd, uint64_t *size)
{
	struct stat st;
	if (gt_sys_call(SYS_fstat, fd, &st) != 0)
		return -1;
	if (st.st_dev != out.dev || st.st_ino != out.ino) {
		stop("the trace file %s was replaced by another file; tracing stops, the program goes on", out.path);
		return -1;
	}
	if (st.st_nlink == 0 && out.given_fd < 0) { /* a descriptor's file may have no name */
		stop("the trace file %s was deleted; tracing stops, the program goes on", out.path);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return 0;
}

/* --- a full descriptor table ---------------------------------------------
 *
 * When every slot of the program's table is taken, each generation is
 * written by a task with a table of its own (core/owntable.h). */

struct detour {
	struct gt_sink_file *f;
	struct iovec *iov;
	int n;
	int err;
};

static int detour_main(void *arg)
{
	struct detour *d = arg;
	struct gt_sink_file *f = d->f;
	int fd;
	if (!out.created) {
		fd = create(f);
		if (fd < 0) {
			d->err = -fd;
			return 0;
		}
		f->committed = GT_HEADER_LEN;
	} else {
		fd = sys_open(out.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0);
		if (fd < 0) {
			d->err = errno == ENOENT ? ENOENT : errno;
			return 0;
		}
		if (same_file(fd, &f->committed) != 0) {
			sys_close(fd);
			d->err = EIO;
			return 0;
		}
	}
	d->err = append(f, &fd, d->iov, d->n);
	sys_close(fd);
	f->unnamed = 0; /* closed: a file never named is gone */
	return 0;
}

static int detour_generation(struct gt_sink_file *f, struct iovec *iov, int n)
{
	struct detour d = { f, iov, n, 0 };
	if (gt_owntable_run(detour_main, &d) < 0)
		d.err = EMFILE;
	if (d.err) {
		f->err = d.err;
		if (!out.failed)
			stop("cannot write the trace to %s: %s; tracing stops, the program goes on", f->path,
			     strerror(d.err));
	}
	return d.err;
}

/* begin_given: the caller's descriptor, the same number in the flusher's
 * table (core/flusher.c keeps it): appended at the file's end, header
 * first when the trace begins there. */
static int begin_given(struct gt_sink_file *f)
{
	f->fd = out.given_fd;
	if (same_file(f->fd, &f->committed) != 0) {
		f->fd = -1;
		return f->err = EIO;
	}
	if (gt_sys_call(SYS_lseek, f->fd, (off_t)f->committed, SEEK_SET) < 0) {
		stop("cannot write the trace to %s: %s; tracing stops, the program goes on", out.path, strerror(errno));
		f->fd = -1;
		return f->err = EIO;
	}
	if (out.created)
		return 0;
	out.given_start = f->committed;
	int err = write_header(f->fd);
	if (err) {
		gt_sys_call(SYS_ftruncate, f->fd, (off_t)f->committed);
		stop("cannot write the trace to %s: %s; tracing stops, the program goes on", out.path, strerror(err));
		f->fd = -1;
		return f->err = err;
	}
	out.created = 1;
	f->committed += GT_HEADER_LEN;
	return 0;
}

int gt_sink_begin(struct gt_sink_file *f)
{
	memset(f, 0, sizeof *f);
	f->fd = -1;
	f->path = out.path;
	f->is_main = 1;
	if (out.failed)
		return f->err = EIO;
	if (out.given_fd >= 0)
		return begin_given(f);
	/* Only the holder's table has the held descriptor (invariant 1). */
	if (holder && out.held_fd >= 0) {
		f->fd = out.held_fd;
		if (!out.stream && same_file(f->fd, &f->committed) != 0) {
			sys_close(out.held_fd);
			out.held_fd = f->fd = -1;
			return f->err = EIO;
		}
		return 0;
	}
	if (out.stream) {
		/* Another writer of the FIFO or device: the flusher's descriptor
		 * keeps it open between writes, so no reader sees an end. */
		int fd = sys_open(out.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0);
		if (fd < 0) {
			stop("cannot open the trace output %s again: %s; tracing stops, the program goes on", out.path,
			     strerror(errno));
			return f->err = EIO;
		}
		int fl = (int)gt_sys_call(SYS_fcntl, fd, F_GETFL);
		if (fl >= 0)
			gt_sys_call(SYS_fcntl, fd, F_SETFL, fl & ~O_NONBLOCK);
		f->fd = fd;
		f->transient = 1;
		return 0;
	}
	if (!out.created) {
		int fd = create(f);
		if (fd == -EMFILE || fd == -ENFILE) {
			f->detour = 1; /* every slot of the program's table is taken */
			return 0;
		}
		if (fd < 0) {
			stop("cannot write the trace file %s: %s; tracing stops, the program goes on", out.path,
			     strerror(-fd));
			return f->err = -fd;
		}
		f->fd = fd;
		f->committed = GT_HEADER_LEN;
		if (holder)
			out.held_fd = fd;
		else
			f->transient = 1;
		return 0;
	}
	int fd = sys_open(out.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		f->detour = 1;
		return 0;
	}
	if (fd < 0) {
		if (errno == ENOENT)
			stop("the trace file %s was deleted or moved; tracing stops, the program goes on", out.path);
		else
			stop("cannot open the trace file %s again: %s; tracing stops, the program goes on", out.path,
			     strerror(errno));
		return f->err = EIO;
	}
	f->fd = fd;
	f->transient = 1;
	if (same_file(fd, &f->committed) != 0) {
		sys_close(fd);
		f->fd = -1;
		return f->err = EIO;
	}
	return 0;
}

void gt_sink_write(struct iovec *iov, int n)
{
	struct gt_sink_file f;
	if (gt_sink_begin(&f) == 0)
		gt_sink_generation(&f, iov, n);
	gt_sink_end(&f);
}

int gt_sink_begin_new(struct gt_sink_file *f, const char *path)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	f->transient = 1;
	f->committed = GT_HEADER_LEN;
	f->fd = out.no_unnamed ? -EOPNOTSUPP : open_unnamed(path, 0);
	if (f->fd >= 0) {
		f->unnamed = 1; /* named by its first generation */
		return 0;
	}
	if (f->fd != -EMFILE && f->fd != -ENFILE)
		f->fd = create_snapshot_named(path);
	if (f->fd >= 0)
		return 0;
	f->err = -f->fd;
	f->fd = -1;
	return f->err;
}

int gt_sink_generation(struct gt_sink_file *f, struct iovec *iov, int n)
{
	if (f->detour && !f->err)
		return detour_generation(f, iov, n);
	if (f->err || f->fd < 0)
		return f->err ? f->err : EBADF;
	int err = append(f, &f->fd, iov, n);
	if (!err)
		return 0;
	f->err = err;
	if (f->is_main)
		stop("cannot write the trace to %s: %s; tracing stops, the program goes on", f->path, strerror(err));
	return err;
}

void gt_sink_end(struct gt_sink_file *f)
{
	if (f->detour && out.created && f->committed && f->committed <= GT_HEADER_LEN) {
		gt_sys_call(SYS_unlinkat, AT_FDCWD, f->path, 0); /* a header alone is not a trace */
		out.created = 0;
	}
	if (f->fd < 0)
		return;
	if (f->is_main && out.given_fd >= 0) {
		if (f->committed <= out.given_start + GT_HEADER_LEN) { /* a header alone: as it was */
			gt_sys_call(SYS_ftruncate, f->fd, (off_t)out.given_start);
			out.created = 0;
		}
		f->fd = -1;
		return;
	}
	if (f->unnamed) { /* never named: closing it removes it */
		if (f->is_main && out.held_fd == f->fd)
			out.held_fd = -1;
		sys_close(f->fd);
		f->fd = -1;
		return;
	}
	int empty = f->committed <= GT_HEADER_LEN && !(f->is_main && out.stream);
	if (f->transient)
		sys_close(f->fd);
	if (empty) { /* a header alone is not a trace (invariant 2) */
		gt_sys_call(SYS_unlinkat, AT_FDCWD, f->path, 0);
		if (f->is_main) {
			out.created = 0;
			if (out.held_fd == f->fd) {
				sys_close(out.held_fd);
				out.held_fd = -1;
			}
		}
	}
	f->fd = -1;
}

void gt_sink_hold(void)
{
	holder = 1;
	if (out.stream) {
		out.held_fd = out.stream_fd; /* the same number, now in our table */
		return;
	}
	if (!out.created || out.failed || out.given_fd >= 0)
		return; /* created (and kept) by this thread's first write; a
		         * descriptor output has the same number here */
	int fd = sys_open(out.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0);
	uint64_t size;
	if (fd >= 0 && same_file(fd, &size) == 0)
		out.held_fd = fd;
	else
		sys_close(fd);
}

void gt_sink_release(void)
{
	if (out.held_fd >= 0 && !out.stream)
		sys_close(out.held_fd);
	if (!out.stream)
		out.held_fd = -1;
	holder = 0;
}
