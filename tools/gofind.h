/* gofind.h — which Go on this machine opens a trace: the newest one that
 * reads its format (`gotrace view`).
 *
 * Candidates, in order: GOTRACE_GO when set (that one only); `go` on PATH;
 * then every match of the globs in GOTRACE_GO_SEARCH (':'-separated; default
 * /usr/lib/go-* /bin/go, Debian's versioned packages, and /usr/local/go/bin/go,
 * the upstream tarball's place). Each is asked its version with `go env
 * GOVERSION` under GOTOOLCHAIN=local (no download); the newest wins, the
 * earlier candidate on a tie. */
#ifndef TOOLS_GOFIND_H
#define TOOLS_GOFIND_H

#include <limits.h>
#include <stddef.h>

#define TOOL_GO_SEARCH_DEFAULT "/usr/lib/go-*/bin/go:/usr/local/go/bin/go"

struct tool_go {
	char path[PATH_MAX];
	int minor, patch;     /* Go 1.minor.patch */
	char version[64];     /* as Go says it: "go1.27.1" */
};

/* tool_go_parse_version reads "go1.27.1", "go1.23rc2" or "devel go1.28-abc …"
 * into minor and patch; -1 when it is no Go version. */
int tool_go_parse_version(const char *s, int *minor, int *patch);

/* tool_go_find sets *best to the newest Go found: 0, or -1 when none answers
 * (looked, if not NULL, then says where gotrace looked). */
int tool_go_find(struct tool_go *best, char *looked, size_t looked_len);

/* tool_go_package names the Debian package that provides a Go of at least
 * 1.minor, for "install ..." messages. */
const char *tool_go_package(int minor);

#endif
