/* locate.h — finds libgotrace.so beside the gotrace executable, and a command
 * on PATH (locate.c). */
#ifndef TOOLS_LOCATE_H
#define TOOLS_LOCATE_H

#include <stddef.h>

#include "tools/cmd.h"

/* tool_find_preload finds libgotrace.so next to this executable: DIR/libgotrace.so
 * (build tree) or DIR/../lib/gotrace/libgotrace.so (installed). Writes its
 * absolute path to buf and returns 0, or returns -1 and writes the places it
 * looked to buf, e.g. "/a/libgotrace.so or /lib/gotrace/libgotrace.so". */
int tool_find_preload(char *buf, size_t len);

/* tool_which finds cmd the way execvp would (PATH search unless cmd has a '/').
 * Returns 0 with the file's path in buf, TOOL_EXIT_NOTFOUND when nothing exists,
 * or TOOL_EXIT_NOEXEC when a candidate exists but is not an executable file. */
int tool_which(const char *cmd, char *buf, size_t len);

#endif
