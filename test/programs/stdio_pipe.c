/* stdio_pipe.c — threads that wait in the kernel inside stdio calls.
 *
 *   fwrite_main   fwrite()s 1 MiB into a pipe that nobody drains for
 *                 300 ms (fwrite_drain_main sleeps, then reads it all)
 *   fgets_main    fgets() from a pipe that gets its line after 300 ms
 *   fprintf_main  fprintf()s 256 KiB of lines into a pipe drained after
 *                 300 ms (the 64 KiB pipe is full long before)
 *   getc_main     getc() over a 4 MiB file, the buffer refilled from the
 *                 page cache: nothing to record
 *
 * main then prints many short lines through every writing function
 * (putchar, putc, fputc, fputs, puts, printf, fwrite, fprintf), so the
 * traced output can be compared byte for byte with the untraced one, and
 * checks that errno and results are unchanged (fmemopen's FILE, which has
 * no descriptor, included). Compile with -D_FORTIFY_SOURCE=2 as well:
 * printf and friends then call __printf_chk and friends. Prints "all
 * checks passed". */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MIB (1 << 20)
#define WAIT_MS 300

static void sleep_ms(int ms)
{
	struct timespec d = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
}

/* drain: after WAIT_MS, read fd until EOF; returns the bytes read. */
static size_t drain(int fd)
{
	static __thread char buf[65536];
	size_t total = 0;
	ssize_t n;
	sleep_ms(WAIT_MS);
	while ((n = read(fd, buf, sizeof buf)) > 0)
		total += (size_t)n;
	return total;
}

static void *drain_main(void *arg)
{
	return (void *)(uintptr_t)drain((int)(intptr_t)arg);
}

static char block[MIB];

static NOINLINE void *fwrite_main(void *arg)
{
	FILE *f = arg;
	size_t n = fwrite(block, 1, sizeof block, f);
	CHECK(n == sizeof block, "fwrite 1 MiB");
	CHECK(fclose(f) == 0, "fclose after fwrite");
	return NULL;
}

static NOINLINE void *fprintf_main(void *arg)
{
	FILE *f = arg;
	for (int i = 0; i < 256 * 1024 / 64; i++)
		CHECK(fprintf(f, "%08d %-54.54s\n", i, "fprintf into a pipe that nobody reads yet") == 64,
		      "fprintf");
	CHECK(fclose(f) == 0, "fclose after fprintf");
	return NULL;
}

static NOINLINE void *fgets_main(void *arg)
{
	FILE *f = arg;
	char line[128];
	CHECK(fgets(line, sizeof line, f) != NULL, "fgets");
	CHECK(strcmp(line, "late line\n") == 0, "fgets' line");
	CHECK(fgets(line, sizeof line, f) == NULL && feof(f), "fgets at EOF");
	fclose(f);
	return NULL;
}

static void *late_writer_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	sleep_ms(WAIT_MS);
	CHECK(write(fd, "late line\n", 10) == 10, "late write");
	close(fd);
	return NULL;
}

static NOINLINE void *getc_main(void *arg)
{
	FILE *f = arg;
	unsigned long sum = 0, n = 0;
	int c;
	while ((c = getc(f)) != EOF)
		sum += (unsigned char)c, n++;
	CHECK(n == 4 * MIB, "getc read the whole file");
	CHECK(sum == 4ul * MIB * 'g', "getc's bytes");
	fclose(f);
	return (void *)sum;
}

static FILE *pipe_file(int fds[2], const char *mode)
{
	CHECK(pipe(fds) == 0, "pipe");
	FILE *f = fdopen(mode[0] == 'w' ? fds[1] : fds[0], mode);
	CHECK(f != NULL, "fdopen");
	return f;
}

/* stdout through every writing function; the test compares the bytes. */
static void print_lines(void)
{
	for (int i = 0; i < 4000; i++) {
		switch (i % 8) {
		case 0: putchar('a' + i % 26); putchar('\n'); break;
		case 1: putc('b', stdout); fputc('\n', stdout); break;
		case 2: fputs("fputs line\n", stdout); break;
		case 3: puts("puts line"); break;
		case 4: printf("printf %d %s\n", i, "line"); break;
		case 5: fwrite("fwrite line\n", 1, 12, stdout); break;
		case 6: fprintf(stdout, "fprintf %05d\n", i); break;
		default: printf("%s\n", "a longer printf line, a longer printf line, a longer printf line"); break;
		}
	}
	fflush(stdout);
}

int main(void)
{
	memset(block, 'w', sizeof block);

	/* fwrite into a pipe drained late */
	int wfds[2];
	FILE *wf = pipe_file(wfds, "w");
	pthread_t writer, wdrain;
	CHECK(pthread_create(&wdrain, NULL, drain_main, (void *)(intptr_t)wfds[0]) == 0, "create");
	CHECK(pthread_create(&writer, NULL, fwrite_main, wf) == 0, "create");

	/* fgets from a pipe written late */
	int rfds[2];
	FILE *rf = pipe_file(rfds, "r");
	pthread_t reader, late;
	CHECK(pthread_create(&late, NULL, late_writer_main, (void *)(intptr_t)rfds[1]) == 0, "create");
	CHECK(pthread_create(&reader, NULL, fgets_main, rf) == 0, "create");

	/* fprintf into a pipe drained late */
	int pfds[2];
	FILE *pf = pipe_file(pfds, "w");
	pthread_t printer, pdrain;
	CHECK(pthread_create(&pdrain, NULL, drain_main, (void *)(intptr_t)pfds[0]) == 0, "create");
	CHECK(pthread_create(&printer, NULL, fprintf_main, pf) == 0, "create");

	/* getc over a file in the page cache */
	FILE *tf = tmpfile();
	CHECK(tf != NULL, "tmpfile");
	memset(block, 'g', sizeof block);
	for (int i = 0; i < 4; i++)
		CHECK(fwrite(block, 1, sizeof block, tf) == sizeof block, "fwrite to the file");
	CHECK(fflush(tf) == 0 && fseek(tf, 0, SEEK_SET) == 0, "rewind");
	pthread_t getter;
	CHECK(pthread_create(&getter, NULL, getc_main, tf) == 0, "create");

	void *r;
	CHECK(pthread_join(writer, NULL) == 0, "join");
	CHECK(pthread_join(wdrain, &r) == 0 && (uintptr_t)r == MIB, "fwrite's bytes drained");
	close(wfds[0]);
	CHECK(pthread_join(reader, NULL) == 0 && pthread_join(late, NULL) == 0, "join");
	CHECK(pthread_join(printer, NULL) == 0, "join");
	CHECK(pthread_join(pdrain, &r) == 0 && (uintptr_t)r == 256 * 1024, "fprintf's bytes drained");
	close(pfds[0]);
	CHECK(pthread_join(getter, NULL) == 0, "join");

	/* errno and results are the real functions' */
	char mem[64];
	FILE *mf = fmemopen(mem, sizeof mem, "w+");
	CHECK(mf != NULL, "fmemopen");
	errno = 4321;
	CHECK(fputc('m', mf) == 'm' && fputs("emory", mf) >= 0 && fwrite("!\n", 1, 2, mf) == 2, "fmemopen writes");
	CHECK(fprintf(mf, "%d", 42) == 2 && fflush(mf) == 0, "fmemopen printf");
	CHECK(errno == 4321, "errno after fmemopen writes");
	rewind(mf);
	char line[16];
	CHECK(fgets(line, sizeof line, mf) && strcmp(line, "memory!\n") == 0 && getc(mf) == '4', "fmemopen reads");
	CHECK(fclose(mf) == 0 && errno == 4321, "fmemopen fclose");

	int efds[2];
	FILE *ef = pipe_file(efds, "w");
	close(efds[0]);
	CHECK(fputs("to nobody\n", ef) >= 0, "buffered write to a closed pipe");
	signal(SIGPIPE, SIG_IGN);
	errno = 0;
	CHECK(fclose(ef) == EOF && errno == EPIPE, "fclose reports the failed flush");

	print_lines();
	printf("all checks passed\n");
	return 0;
}
