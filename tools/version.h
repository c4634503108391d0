/* version.h — the version and the build's multiarch directory name, from
 * the file VERSION and the compiler (Makefile: only tools/version.o sees
 * them, so a new version rebuilds one object). */
#ifndef TOOLS_VERSION_H
#define TOOLS_VERSION_H

extern const char tool_version[];   /* "0.2.0" */
extern const char tool_multiarch[]; /* "x86_64-linux-gnu", or "" */

#endif
