/* version.c — see version.h. */
#include "tools/version.h"

#ifndef GOTRACE_VERSION
#error "GOTRACE_VERSION comes from the file VERSION (Makefile)"
#endif
#ifndef GOTRACE_MULTIARCH
#define GOTRACE_MULTIARCH ""
#endif

const char tool_version[] = GOTRACE_VERSION;
const char tool_multiarch[] = GOTRACE_MULTIARCH;
