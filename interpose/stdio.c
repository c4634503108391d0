/* stdio.c — stdio calls that may reach the kernel: a wait in the write or
 * read that a FILE's buffer makes inside libc (past the wrappers of io.c)
 * is recorded like those, socket → network, anything else a system call
 * (gt_fd_call_kind), and only when the call did wait.
 *
 * Every wrapper is a fast half and a slow half. The fast half peeks at
 * glibc's public FILE (<bits/types/struct_FILE.h>: the get and put areas,
 * _flags) without the FILE's lock: when the buffer alone can serve the call
 * (a character or block already read, room for the bytes written and no
 * flush due) it jumps to the real function, costing a few loads and a
 * compare. Otherwise the slow half makes the real call as a kernel call
 * (gt_call_begin/end, core/callwait.h). A stale peek only chooses the path
 * (the real function takes the lock and decides itself): at worst a wait
 * is missed or a call that did not wait costs two clock reads. A FILE
 * without a descriptor (fmemopen, open_memstream, fopencookie) never
 * waits in the kernel here and passes straight through.
 *
 * The printf family cannot know its output's length before formatting: it
 * is fast when the stream is fully buffered with PRINTF_ROOM bytes of
 * room; a single formatted output longer than that may flush unseen.
 *
 * A FILE's first call allocates its buffer; nothing is recorded inside a
 * kernel call, allocations included, so that call passes through when it
 * is a small write (first_small_write) or reads a regular file
 * (call_kind): the buffer stays in the heap view. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/readiness.h"
#include "interpose.h"

/* glibc's libio flag bits (libio.h, ABI: they are in every FILE). */
#define IO_UNBUFFERED 0x0002
#define IO_LINE_BUF 0x0200
#define IO_CURRENTLY_PUTTING 0x0800
#define IO_IS_FILEBUF 0x2000

#define PRINTF_ROOM 1024

/* The FILE's fields are the libc's, changed under its lock: read once,
 * never torn, never cached across calls. */
#define PEEK(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* file_fd: the descriptor behind fp, -1 when it has none (fileno's rule). */
static inline int file_fd(FILE *fp)
{
	if (!(PEEK(fp->_flags) & IO_IS_FILEBUF))
		return -1;
	return PEEK(fp->_fileno);
}

/* call_kind: how a call on fp that the buffer cannot serve is recorded
 * (gt_call_kind), 0 when it passes through: fp has no descriptor, or has
 * no buffer yet and reads or writes a regular file. Nothing is recorded
 * inside a kernel call, allocations included: the call that allocates a
 * FILE's buffer (its first) would leave the buffer out of the heap view,
 * and its free in fclose unmatched. Only on a regular file is that worth
 * more than the first call's wait (a pipe's or socket's first read may
 * wait for good). */
static inline int call_kind(FILE *fp)
{
	int fd = file_fd(fp);
	if (fd < 0)
		return 0;
	if (!PEEK(fp->_IO_buf_base) && gt_fdkind(fd) == GT_FD_FILE)
		return 0;
	return gt_fd_call_kind(fd);
}

/* --- what the buffer can serve -------------------------------------------- */

/* Bytes ready in the get area. */
static inline size_t get_avail(FILE *fp)
{
	char *p = PEEK(fp->_IO_read_ptr), *e = PEEK(fp->_IO_read_end);
	return e > p ? (size_t)(e - p) : 0;
}

/* A FILE's first write allocates its buffer: one of n bytes (n at most
 * PRINTF_ROOM) then fills it, or writes a line to a terminal or a
 * character to an unbuffered stream, which seldom waits. It passes
 * through, so the buffer's allocation is recorded (and the free in
 * fclose matches it; nothing is recorded inside a kernel call) and the
 * buffer set-up (an fstat) is never a wait of stdout's first printf. */
static inline int first_small_write(FILE *fp, size_t n)
{
	return n <= PRINTF_ROOM && !PEEK(fp->_IO_buf_base);
}

/* One character can be read without a refill. */
static inline int can_get(FILE *fp)
{
	return PEEK(fp->_IO_read_ptr) < PEEK(fp->_IO_read_end);
}

/* n bytes can be read without a refill. */
static inline int can_read(FILE *fp, size_t size, size_t n)
{
	size_t want;
	if (__builtin_mul_overflow(size, n, &want))
		return 0;
	return want <= get_avail(fp);
}

/* A line (up to delim, or n - 1 bytes for fgets when n > 0) is in the
 * get area already. */
static inline int can_get_line(FILE *fp, int delim, int n)
{
	size_t avail = get_avail(fp);
	if (n > 0 && avail >= (size_t)n - 1)
		return 1;
	return avail && memchr(PEEK(fp->_IO_read_ptr), delim, avail) != NULL;
}

/* One character c can be written without a flush: room in the put area
 * (glibc's own inline test), or a line-buffered stream in put mode where c
 * is not a newline and the buffer is not full (__overflow stores it). */
static inline int can_put_char(FILE *fp, int c)
{
	char *p = PEEK(fp->_IO_write_ptr);
	if (__builtin_expect(p < PEEK(fp->_IO_write_end), 1))
		return 1;
	int fl = PEEK(fp->_flags);
	return ((fl & (IO_LINE_BUF | IO_UNBUFFERED | IO_CURRENTLY_PUTTING)) == (IO_LINE_BUF | IO_CURRENTLY_PUTTING) &&
		(unsigned char)c != '\n' && p && p < PEEK(fp->_IO_buf_end)) ||
	       first_small_write(fp, 1);
}

/* n bytes can be written to a fully buffered stream without a flush. A
 * line-buffered or unbuffered stream (a terminal, stderr) takes the slow
 * half: it writes at once or at a newline. */
static inline int can_put(FILE *fp, size_t n)
{
	char *p = PEEK(fp->_IO_write_ptr), *e = PEEK(fp->_IO_write_end);
	return (p < e && n <= (size_t)(e - p) && !(PEEK(fp->_flags) & (IO_LINE_BUF | IO_UNBUFFERED))) ||
	       first_small_write(fp, n);
}

static inline int can_put_block(FILE *fp, size_t size, size_t n)
{
	size_t want;
	if (__builtin_mul_overflow(size, n, &want))
		return 0;
	return want == 0 || can_put(fp, want);
}

/* Nothing is waiting to be written. */
static inline int nothing_to_flush(FILE *fp)
{
	return !(PEEK(fp->_IO_write_ptr) > PEEK(fp->_IO_write_base));
}

/* --- the halves --------------------------------------------------------------- */

#define UNPAREN(...) __VA_ARGS__

/* WAIT(fp, fn, ra, cfa, call): return call, made as a call that may wait
 * in the kernel on fp's descriptor when the thread is traced (call_kind).
 * fn: the exported wrapper (the stack's leaf); ra, cfa: its own. */
#define WAIT(fp, fn, ra, cfa, call)                                                              \
	do {                                                                                    \
		int kind_ = call_kind(fp);                                                      \
		struct gt_thread *t_;                                                           \
		if (!kind_ || !(t_ = gt_enter()))                                               \
			return call;                                                            \
		gt_call_begin(t_, kind_, GT_SITE_AT(fn, ra, cfa), (ra));                        \
		__typeof__(call) r_ = call;                                                     \
		gt_call_end(t_);                                                                \
		return r_;                                                                      \
	} while (0)

/* STDIO(fn, ret, params, args, file, fast): the exported wrapper fn of the
 * real function io_<field>: when fast holds it jumps to the real function,
 * else the slow half makes the call as a kernel call on file. */
#define STDIO(fn, field, ret, params, args, file, fast)                                         \
	GT_REAL_FN(field, ret, params, args)                                                   \
	static GT_SLOW ret fn##_slow(uintptr_t ra_, uintptr_t cfa_, UNPAREN params)             \
	{                                                                                       \
		WAIT(file, fn, ra_, cfa_, field##_fn args);                                     \
	}                                                                                       \
	GT_EXPORT ret fn params                                                                 \
	{                                                                                       \
		if (__builtin_expect((fast), 1))                                                \
			return field##_fn args;                                                 \
		return fn##_slow(GT_RA(), GT_CFA(), UNPAREN args);                              \
	}

#undef getc
#undef putc
#undef getc_unlocked
#undef putc_unlocked
#undef getchar
#undef putchar
#undef getchar_unlocked
#undef putchar_unlocked
#undef fgetc_unlocked
#undef fputc_unlocked
#undef fread_unlocked
#undef fwrite_unlocked

/* Exported by glibc, not declared unless fortified. */
int __underflow(FILE *fp);
size_t __fread_chk(void *p, size_t len, size_t size, size_t n, FILE *fp);
size_t __fread_unlocked_chk(void *p, size_t len, size_t size, size_t n, FILE *fp);
char *__fgets_chk(char *s, size_t len, int n, FILE *fp);
char *__fgets_unlocked_chk(char *s, size_t len, int n, FILE *fp);
int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...);
int __printf_chk(int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap);
int __vprintf_chk(int flag, const char *fmt, va_list ap);

/* --- writing ------------------------------------------------------------------ */

STDIO(fputc, io_fputc, int, (int c, FILE *fp), (c, fp), fp, can_put_char(fp, c))
STDIO(putc, io_putc, int, (int c, FILE *fp), (c, fp), fp, can_put_char(fp, c))
STDIO(fputc_unlocked, io_fputc_unlocked, int, (int c, FILE *fp), (c, fp), fp, can_put_char(fp, c))
STDIO(putc_unlocked, io_putc_unlocked, int, (int c, FILE *fp), (c, fp), fp, can_put_char(fp, c))
STDIO(putchar, io_putchar, int, (int c), (c), stdout, can_put_char(stdout, c))
STDIO(putchar_unlocked, io_putchar_unlocked, int, (int c), (c), stdout, can_put_char(stdout, c))
/* The slow path of glibc's inline putc_unlocked: the put area is full.
 * __overflow(fp, EOF) is a flush. */
STDIO(__overflow, io_overflow, int, (FILE *fp, int c), (fp, c), fp, c != EOF && can_put_char(fp, c))

STDIO(fwrite, io_fwrite, size_t, (const void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp), fp,
      can_put_block(fp, size, n))
STDIO(fwrite_unlocked, io_fwrite_unlocked, size_t, (const void *p, size_t size, size_t n, FILE *fp),
      (p, size, n, fp), fp, can_put_block(fp, size, n))
STDIO(fputs, io_fputs, int, (const char *s, FILE *fp), (s, fp), fp, can_put(fp, strlen(s)))
STDIO(fputs_unlocked, io_fputs_unlocked, int, (const char *s, FILE *fp), (s, fp), fp, can_put(fp, strlen(s)))
STDIO(puts, io_puts, int, (const char *s), (s), stdout, can_put(stdout, strlen(s) + 1))

/* fflush(NULL) flushes every stream: no one descriptor, a system call. */
GT_REAL_FN(io_fflush, int, (FILE *fp), (fp))
static GT_SLOW int fflush_slow(FILE *fp, uintptr_t ra, uintptr_t cfa)
{
	if (fp)
		WAIT(fp, fflush, ra, cfa, io_fflush_fn(fp));
	struct gt_thread *t = gt_enter();
	if (!t)
		return io_fflush_fn(fp);
	gt_call_begin(t, GT_CALL_SYSCALL, GT_SITE_AT(fflush, ra, cfa), ra);
	int r = io_fflush_fn(fp);
	gt_call_end(t);
	return r;
}

GT_EXPORT int fflush(FILE *fp)
{
	if (__builtin_expect(fp && nothing_to_flush(fp), 1))
		return io_fflush_fn(fp);
	return fflush_slow(fp, GT_RA(), GT_CFA());
}

STDIO(fflush_unlocked, io_fflush_unlocked, int, (FILE *fp), (fp), fp, nothing_to_flush(fp))

/* fclose flushes what is buffered, then frees the FILE and its buffer.
 * The frees must be recorded (the FILE's allocation was), and nothing is
 * recorded inside a kernel call, so the flush is made first as a kernel
 * call of its own (fflush: the same write glibc's fclose would make) and
 * fclose then has nothing to write. A failed flush discards the buffer, as
 * fclose's own would, and fclose reports it as it would have: EOF, with
 * the write's errno unless the close failed too. Also keeps the fd-kind
 * cache right (interpose/fd.c), without fileno: it would leave EBADF in
 * errno for a FILE without a descriptor (fmemopen). */
GT_REAL_FN(fclose, int, (FILE *fp), (fp))
static GT_SLOW int fclose_flush(FILE *fp, uintptr_t ra, uintptr_t cfa)
{
	WAIT(fp, fclose, ra, cfa, io_fflush_fn(fp));
}

GT_EXPORT int fclose(FILE *fp)
{
	if (!fp)
		return fclose_fn(fp);
	int flushed = 0, flush_errno = 0;
	if (__builtin_expect(!nothing_to_flush(fp), 0) && (PEEK(fp->_flags) & IO_CURRENTLY_PUTTING) &&
	    file_fd(fp) >= 0) {
		int saved = errno;
		flushed = fclose_flush(fp, GT_RA(), GT_CFA());
		flush_errno = errno;
		errno = saved;
	}
	int fd = file_fd(fp); /* not fileno: EBADF in errno for a FILE without one */
	if (fd >= 0)
		gt_fd_closed(fd); /* its kind, and out of any epoll set */
	int r = fclose_fn(fp);
	if (__builtin_expect(flushed != 0, 0)) {
		if (r == 0)
			errno = flush_errno;
		return EOF;
	}
	return r;
}

/* The printf family: printf and fprintf through the real v-functions (what
 * glibc's own do). */
static inline int can_print(FILE *fp)
{
	char *p = PEEK(fp->_IO_write_ptr), *e = PEEK(fp->_IO_write_end);
	return (p < e && e - p >= PRINTF_ROOM && !(PEEK(fp->_flags) & (IO_LINE_BUF | IO_UNBUFFERED))) ||
	       first_small_write(fp, PRINTF_ROOM);
}

GT_REAL_FN(io_vfprintf, int, (FILE *fp, const char *fmt, va_list ap), (fp, fmt, ap))
GT_REAL_FN(io_vfprintf_chk, int, (FILE *fp, int flag, const char *fmt, va_list ap), (fp, flag, fmt, ap))

static GT_SLOW int print_slow(FILE *fp, int chk, int flag, const char *fmt, va_list ap, uintptr_t site,
			      uintptr_t ra, uintptr_t cfa)
{
	int kind = call_kind(fp);
	struct gt_thread *t;
	if (!kind || !(t = gt_enter()))
		return chk ? io_vfprintf_chk_fn(fp, flag, fmt, ap) : io_vfprintf_fn(fp, fmt, ap);
	gt_call_begin(t, kind, gt_site_at(site, ra, cfa), ra);
	int r = chk ? io_vfprintf_chk_fn(fp, flag, fmt, ap) : io_vfprintf_fn(fp, fmt, ap);
	gt_call_end(t);
	return r;
}

/* PRINT(f, chk, flag, fn, fmt, ap): the body of a printf wrapper. */
#define PRINT(fp, chk, flag, fn, fmt, ap)                                                              \
	do {                                                                                          \
		if (__builtin_expect(can_print(fp), 1))                                                \
			return (chk) ? io_vfprintf_chk_fn((fp), (flag), (fmt), (ap))                  \
				     : io_vfprintf_fn((fp), (fmt), (ap));                              \
		return print_slow((fp), (chk), (flag), (fmt), (ap), GT_FN(fn), GT_RA(), GT_CFA());     \
	} while (0)

GT_EXPORT int vfprintf(FILE *fp, const char *fmt, va_list ap)
{
	PRINT(fp, 0, 0, vfprintf, fmt, ap);
}

GT_EXPORT int vprintf(const char *fmt, va_list ap)
{
	PRINT(stdout, 0, 0, vprintf, fmt, ap);
}

GT_EXPORT int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap)
{
	PRINT(fp, 1, flag, __vfprintf_chk, fmt, ap);
}

GT_EXPORT int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
	PRINT(stdout, 1, flag, __vprintf_chk, fmt, ap);
}

/* VA_PRINT: a variadic wrapper's body (PRINT between va_start and va_end). */
#define VA_PRINT(fp, chk, flag, fn, fmt)                                                               \
	do {                                                                                          \
		va_list ap;                                                                           \
		int r;                                                                                \
		va_start(ap, fmt);                                                                    \
		if (__builtin_expect(can_print(fp), 1))                                                \
			r = (chk) ? io_vfprintf_chk_fn((fp), (flag), fmt, ap) : io_vfprintf_fn((fp), fmt, ap); \
		else                                                                                  \
			r = print_slow((fp), (chk), (flag), fmt, ap, GT_FN(fn), GT_RA(), GT_CFA());    \
		va_end(ap);                                                                           \
		return r;                                                                             \
	} while (0)

GT_EXPORT int fprintf(FILE *fp, const char *fmt, ...)
{
	VA_PRINT(fp, 0, 0, fprintf, fmt);
}

GT_EXPORT int printf(const char *fmt, ...)
{
	VA_PRINT(stdout, 0, 0, printf, fmt);
}

GT_EXPORT int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...)
{
	VA_PRINT(fp, 1, flag, __fprintf_chk, fmt);
}

GT_EXPORT int __printf_chk(int flag, const char *fmt, ...)
{
	VA_PRINT(stdout, 1, flag, __printf_chk, fmt);
}

/* --- reading ------------------------------------------------------------------ */

STDIO(fgetc, io_fgetc, int, (FILE *fp), (fp), fp, can_get(fp))
STDIO(getc, io_getc, int, (FILE *fp), (fp), fp, can_get(fp))
STDIO(fgetc_unlocked, io_fgetc_unlocked, int, (FILE *fp), (fp), fp, can_get(fp))
STDIO(getc_unlocked, io_getc_unlocked, int, (FILE *fp), (fp), fp, can_get(fp))

GT_REAL_FN(io_getchar, int, (void), ())
static GT_SLOW int getchar_slow(uintptr_t ra, uintptr_t cfa)
{
	WAIT(stdin, getchar, ra, cfa, io_getchar_fn());
}

GT_EXPORT int getchar(void)
{
	if (__builtin_expect(can_get(stdin), 1))
		return io_getchar_fn();
	return getchar_slow(GT_RA(), GT_CFA());
}

GT_REAL_FN(io_getchar_unlocked, int, (void), ())
static GT_SLOW int getchar_unlocked_slow(uintptr_t ra, uintptr_t cfa)
{
	WAIT(stdin, getchar_unlocked, ra, cfa, io_getchar_unlocked_fn());
}

GT_EXPORT int getchar_unlocked(void)
{
	if (__builtin_expect(can_get(stdin), 1))
		return io_getchar_unlocked_fn();
	return getchar_unlocked_slow(GT_RA(), GT_CFA());
}
/* The slow paths of glibc's inline getc_unlocked and friends: the get area
 * is empty (or a pushed-back character is being left). */
STDIO(__uflow, io_uflow, int, (FILE *fp), (fp), fp, can_get(fp))
STDIO(__underflow, io_underflow, int, (FILE *fp), (fp), fp, can_get(fp))

STDIO(fread, io_fread, size_t, (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp), fp, can_read(fp, size, n))
STDIO(fread_unlocked, io_fread_unlocked, size_t, (void *p, size_t size, size_t n, FILE *fp), (p, size, n, fp), fp,
      can_read(fp, size, n))
STDIO(__fread_chk, io_fread_chk, size_t, (void *p, size_t len, size_t size, size_t n, FILE *fp),
      (p, len, size, n, fp), fp, can_read(fp, size, n))
STDIO(__fread_unlocked_chk, io_fread_unlocked_chk, size_t, (void *p, size_t len, size_t size, size_t n, FILE *fp),
      (p, len, size, n, fp), fp, can_read(fp, size, n))

STDIO(fgets, io_fgets, char *, (char *s, int n, FILE *fp), (s, n, fp), fp, n <= 1 || can_get_line(fp, '\n', n))
STDIO(fgets_unlocked, io_fgets_unlocked, char *, (char *s, int n, FILE *fp), (s, n, fp), fp,
      n <= 1 || can_get_line(fp, '\n', n))
STDIO(__fgets_chk, io_fgets_chk, char *, (char *s, size_t len, int n, FILE *fp), (s, len, n, fp), fp,
      n <= 1 || can_get_line(fp, '\n', n))
STDIO(__fgets_unlocked_chk, io_fgets_unlocked_chk, char *, (char *s, size_t len, int n, FILE *fp), (s, len, n, fp),
      fp, n <= 1 || can_get_line(fp, '\n', n))

/* getline and getdelim may grow the caller's buffer: done on the fast half
 * the allocation is recorded; on the slow half (the line crosses the get
 * area's end) it is not (nothing is recorded inside a kernel call). */
STDIO(getdelim, io_getdelim, ssize_t, (char **line, size_t *n, int delim, FILE *fp), (line, n, delim, fp), fp,
      can_get_line(fp, delim, 0))
STDIO(getline, io_getline, ssize_t, (char **line, size_t *n, FILE *fp), (line, n, fp), fp, can_get_line(fp, '\n', 0))
