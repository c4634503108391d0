/* check.h — what the self-checking sample programs share: CHECK prints
 * the failed condition with its line and errno and exits 1 at once (no
 * stdio flush of other buffers, no atexit handlers); NOINLINE keeps a
 * function a frame of its own, so a stack names it. */
#ifndef TEST_PROGRAMS_CHECK_H
#define TEST_PROGRAMS_CHECK_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond, what)                                                          \
	do {                                                                       \
		if (!(cond)) {                                                     \
			int e_ = errno;                                            \
			printf("FAIL line %d: %s (errno %d %s)\n", __LINE__, what, \
			       e_, strerror(e_));                                  \
			fflush(stdout);                                            \
			_exit(1);                                                  \
		}                                                                  \
	} while (0)

#define NOINLINE __attribute__((noinline, noclone))

#endif
