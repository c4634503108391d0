/* sink.h — the trace file: where complete generations go.
 *
 * Invariants:
 *
 * 1. The program never holds a descriptor of ours. The flusher thread runs
 *    with a private descriptor table (core/flusher.c) and keeps the output
 *    open there (gt_sink_hold); every other writer (the thread of a
 *    single-threaded program switching generations itself, the final
 *    generation at exit, death or exec) opens the file by path for one write
 *    and closes it before returning, with every signal blocked, so that no
 *    code of the program can see the number in between.
 *
 * 2. Every file left behind is a valid trace or is not there. A regular
 *    output file is made without a name (O_TMPFILE) and named only once it
 *    holds its header and first complete generation, so no reader meets it
 *    half written and a process killed while writing it leaves nothing
 *    (where the file system or a missing /proc forbids that, it is created
 *    under its name by that write); a write cut short (a full disk, a
 *    quota) is truncated back to the last complete generation, and a file
 *    left with no complete generation is removed.
 *
 * 3. A FIFO or a character device (/dev/null) cannot be reopened per write
 *    (a FIFO's reader would see end-of-file between two writers): it is
 *    opened once, without blocking, in the constructor, and handed to the
 *    flusher, which then runs for the whole life of the process.
 *
 * Every function here is called with gt.advance_lock held, except
 * gt_sink_prepare and gt_sink_prepare_fd (engine start, fork child: one
 * thread). */
#ifndef GT_SINK_H
#define GT_SINK_H

#include <stdint.h>
#include <sys/uio.h>

/* gt_sink_prepare decides the output from GOTRACE_OUT's pattern and checks it
 * without creating anything: a symbolic link, a directory, a socket, a
 * terminal, a FIFO without a reader or a directory that cannot be written to
 * is refused with one warning. later_image: a process started from a traced
 * one, which must never write over an earlier file. Returns 0, or -1 (the
 * program then runs untraced). Relative paths are made absolute here, so a
 * program that changes directory does not move its trace. */
int gt_sink_prepare(const char *pattern, int later_image);

/* gt_sink_prepare_fd takes the caller's descriptor fd as the output instead
 * of a path (core/engine.h): a regular file open for writing, whose identity
 * is checked before every write like a created file's. The trace is
 * appended at the file's end, header first with the first complete
 * generation; a write cut short is truncated back to the last complete
 * generation, and a trace with none is truncated away (nothing is created
 * or removed). The descriptor is the caller's, so invariant 1 does not
 * apply; the flusher keeps the same number in its own table
 * (gt_sink_keep_fd). Snapshots still go to files named after gt_sink_path,
 * /proc/self/fd/<fd>, which cannot be created (a warning each). Returns 0,
 * or -1 with one warning. */
int gt_sink_prepare_fd(int fd);

/* gt_sink_keep_fd: the descriptor the flusher keeps in its private table
 * (a stream's, or the caller's), or -1. */
int gt_sink_keep_fd(void);

/* gt_sink_stream: the output is a FIFO or a device, held open by the flusher
 * from the start (invariant 3). */
int gt_sink_stream(void);

/* gt_sink_stream_fd: the stream's descriptor, in the constructor's table
 * until the flusher has taken it into its own (gt_sink_stream_handed). */
int gt_sink_stream_fd(void);
void gt_sink_stream_handed(void);

/* gt_sink_hold opens the output in the calling thread's private table (the
 * flusher's) for every later write; gt_sink_release closes it. */
void gt_sink_hold(void);
void gt_sink_release(void);

/* A trace file being written: gt_sink_begin opens it (creating it, header
 * first, if it does not exist yet), each gt_sink_generation appends one
 * complete generation, gt_sink_end closes it. Returns 0 or an errno value;
 * after an error the file ends with its last complete generation (or is gone)
 * and tracing has stopped with one warning. */
struct gt_sink_file {
	int fd;
	int transient;      /* opened for this write only: closed by gt_sink_end */
	uint64_t committed; /* bytes up to the end of the last complete generation */
	const char *path;
	int is_main;        /* the output itself, not a snapshot */
	int detour;         /* the program's table is full: each generation is
	                     * written by a task of the tracer's (core/sink.c) */
	int unnamed;        /* created without a name (O_TMPFILE), named by its
	                     * first complete generation (invariant 2) */
	int err;
};

int gt_sink_begin(struct gt_sink_file *f);
int gt_sink_generation(struct gt_sink_file *f, struct iovec *iov, int n);
void gt_sink_end(struct gt_sink_file *f);

/* gt_sink_write writes one complete generation to the output: begin,
 * generation, end (what a switch without the flight recorder does). */
void gt_sink_write(struct iovec *iov, int n);

/* gt_sink_begin_new opens a new trace file at path (a flight-recorder
 * snapshot): created or truncated, header written. */
int gt_sink_begin_new(struct gt_sink_file *f, const char *path);

/* gt_sink_created: the output file exists (a generation was written). */
int gt_sink_created(void);

/* gt_sink_path: the output's path (its final name once created). */
const char *gt_sink_path(void);

/* gt_sink_later_image: this process writes OUT.<pid>-style names. */
int gt_sink_later_image(void);

/* gt_sink_forget_after_fork: the child of fork writes a file of its own; the
 * parent's held descriptor, if any, is not in the child's table. */
void gt_sink_forget_after_fork(void);

#endif
